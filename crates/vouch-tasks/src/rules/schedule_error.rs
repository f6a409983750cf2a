//! Why a `schedule_expression` does not read as its `schedule_type` says: the reason a
//! validation finding gives after what was expected.

/// What is wrong with a schedule expression, or with one part of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ScheduleError {
    /// A clock time without `:`.
    #[error("no `:` between hours and minutes")]
    NoColon,
    /// A clock time that is not one or two digits, `:`, two digits.
    #[error("`{0}` is not HH:MM")]
    NotClock(String),
    /// An hour past 23.
    #[error("hour {0} is not 0-23")]
    Hour(u32),
    /// A minute past 59.
    #[error("minute {0} is not 0-59")]
    Minute(u32),
    /// Days without `@` (or a space) and a clock time after them.
    #[error("expected the days, `@` (or a space), then HH:MM")]
    NoClockAfterDays,
    /// A day number outside `lo..=hi`.
    #[error("day {day} is not {lo}-{hi}")]
    DayOutOfRange { day: u32, lo: u32, hi: u32 },
    /// A weekday that is neither a name nor 1–7.
    #[error("`{0}` is not a weekday (mon-sun or 1-7)")]
    NotWeekday(String),
    /// A day of the month that is not a number.
    #[error("`{0}` is not a day number")]
    NotDayNumber(String),
    /// An `@` macro cron does not have.
    #[error("unknown macro `{0}`")]
    UnknownMacro(String),
    /// A cron expression of neither five nor six fields.
    #[error("{0} fields; a cron expression has 5 (or 6 with seconds)")]
    FieldCount(usize),
    /// One cron field is wrong.
    #[error("{what} `{field}`: {why}")]
    CronField {
        what: &'static str,
        field: String,
        why: Box<ScheduleError>,
    },
    /// A cron value that is neither a number nor a name of its field.
    #[error("`{0}` is not a number")]
    NotNumber(String),
    /// A cron value outside its field's range.
    #[error("{n} is not {lo}-{hi}")]
    OutOfRange { n: u32, lo: u32, hi: u32 },
    /// A cron step that is not a positive number.
    #[error("step `{0}` is not a positive number")]
    Step(String),
    /// A cron range whose start is past its end.
    #[error("range {0}-{1} runs backwards")]
    Backwards(u32, u32),
}
