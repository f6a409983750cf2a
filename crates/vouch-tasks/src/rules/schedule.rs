//! The syntax of `schedule_expression` for each `schedule_type`: the data model's
//! (`mon,wed@09:30`, `1,15@09:30`) and the protocol's reference scheduler's (`1,3,5 09:00`),
//! both read:
//!
//! | type | expression |
//! | --- | --- |
//! | `once` | an ISO 8601 timestamp (T7) |
//! | `interval` | a positive whole number of seconds (`"3600"`) |
//! | `cron` | five fields (or six, seconds first), or `@hourly`, `@daily`, … |
//! | `daily` | `HH:MM` |
//! | `weekly` | weekdays `mon`–`sun` (or 1–7, 1 = Monday), `@`, `HH:MM`: `"mon,wed@09:30"`; or the days 1–7, a space, `HH:MM`: `"1,3,5 09:00"` |
//! | `monthly` | days of the month 1–31, `@`, `HH:MM`: `"1,15@09:30"`; or the days, a space, `HH:MM` |

use super::schedule_error::ScheduleError;
use crate::model::ScheduleType;
use crate::timestamp;

/// Returns why `expr` is not a valid expression of `kind`, with what was expected.
pub(crate) fn check(kind: ScheduleType, expr: &str) -> Result<(), (&'static str, String)> {
    let e = expr.trim();
    match kind {
        ScheduleType::Once => timestamp::parse(e)
            .map(|_| ())
            .map_err(|why| ("an ISO 8601 timestamp", why.to_string())),
        ScheduleType::Interval => match e.parse::<u64>() {
            Ok(n) if n > 0 => Ok(()),
            _ => Err((
                "a positive whole number of seconds",
                "not a positive whole number".to_owned(),
            )),
        },
        ScheduleType::Cron => cron(e).map_err(|why| {
            (
                "a cron expression (minute hour day-of-month month day-of-week)",
                why.to_string(),
            )
        }),
        ScheduleType::Daily => clock(e)
            .map(|_| ())
            .map_err(|why| ("HH:MM", why.to_string())),
        ScheduleType::Weekly => days_then_clock(e, 1, 7).map(|_| ()).map_err(|why| {
            (
                "weekdays, @, HH:MM, as \"mon,wed@09:30\" (or \"1,3 09:30\")",
                why.to_string(),
            )
        }),
        ScheduleType::Monthly => days_then_clock(e, 1, 31).map(|_| ()).map_err(|why| {
            (
                "days 1-31, @, HH:MM, as \"1,15@09:30\" (or \"1,15 09:30\")",
                why.to_string(),
            )
        }),
    }
}

/// `H:MM` or `HH:MM`, hours 0–23, minutes 0–59: the hour and minute.
pub(crate) fn clock(e: &str) -> Result<(u32, u32), ScheduleError> {
    let (h, m) = e.split_once(':').ok_or(ScheduleError::NoColon)?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !(digits(h) && h.len() <= 2 && digits(m) && m.len() == 2) {
        return Err(ScheduleError::NotClock(e.to_owned()));
    }
    let (h, m): (u32, u32) = (h.parse().unwrap_or(99), m.parse().unwrap_or(99));
    if h > 23 {
        return Err(ScheduleError::Hour(h));
    }
    if m > 59 {
        return Err(ScheduleError::Minute(m));
    }
    Ok((h, m))
}

/// A comma-separated list of days in `lo..=hi` (for weekdays, `mon`–`sun` too), then `@` (the
/// data model's form) or whitespace (the reference scheduler's), then `HH:MM`.
pub(crate) fn days_then_clock(
    e: &str,
    lo: u32,
    hi: u32,
) -> Result<(Vec<u32>, (u32, u32)), ScheduleError> {
    let (days, time) = e
        .split_once('@')
        .or_else(|| e.split_once(char::is_whitespace))
        .ok_or(ScheduleError::NoClockAfterDays)?;
    let at = clock(time.trim())?;
    let days = days
        .split(',')
        .map(|day| day_number(day.trim(), lo, hi))
        .collect::<Result<Vec<u32>, ScheduleError>>()?;
    Ok((days, at))
}

/// The weekdays by name, Monday first (Monday = 1): abbreviated and in full.
const WEEKDAYS_FROM_MONDAY: [(&str, &str); 7] = [
    ("mon", "monday"),
    ("tue", "tuesday"),
    ("wed", "wednesday"),
    ("thu", "thursday"),
    ("fri", "friday"),
    ("sat", "saturday"),
    ("sun", "sunday"),
];

/// Reads one day: a number in `lo..=hi`, or (for weekdays, `hi` = 7) a weekday's name.
pub(crate) fn day_number(day: &str, lo: u32, hi: u32) -> Result<u32, ScheduleError> {
    let lower = day.to_ascii_lowercase();
    if hi == 7
        && let Some(i) = WEEKDAYS_FROM_MONDAY
            .iter()
            .position(|(short, long)| lower == *short || lower == *long)
    {
        return Ok(u32::try_from(i).unwrap_or(0) + 1);
    }
    match day.parse::<u32>() {
        Ok(d) if (lo..=hi).contains(&d) => Ok(d),
        Ok(d) => Err(ScheduleError::DayOutOfRange { day: d, lo, hi }),
        Err(_) if hi == 7 => Err(ScheduleError::NotWeekday(day.to_owned())),
        Err(_) => Err(ScheduleError::NotDayNumber(day.to_owned())),
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// A cron expression read: the values each field allows, as bit sets (bit `n` for value
/// `n`); `seconds` holds only 0 for a five-field expression. Day of week 7 is Sunday, as 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CronSets {
    pub(crate) seconds: u64,
    pub(crate) minutes: u64,
    pub(crate) hours: u64,
    pub(crate) days: u64,
    pub(crate) months: u64,
    pub(crate) weekdays: u64,
    /// Both day fields were restricted (not `*`): a day matches either (cron's rule).
    pub(crate) either_day: bool,
}

/// Five cron fields (minute, hour, day of month, month, day of week), or six with seconds
/// first, or a macro.
fn cron(e: &str) -> Result<(), ScheduleError> {
    cron_sets(e).map(|_| ())
}

/// Reads a cron expression into the sets of values its fields allow.
pub(crate) fn cron_sets(e: &str) -> Result<CronSets, ScheduleError> {
    let e = match e {
        "@yearly" | "@annually" => "0 0 1 1 *",
        "@monthly" => "0 0 1 * *",
        "@weekly" => "0 0 * * 0",
        "@daily" | "@midnight" => "0 0 * * *",
        "@hourly" => "0 * * * *",
        _ if e.starts_with('@') => return Err(ScheduleError::UnknownMacro(e.to_owned())),
        _ => e,
    };
    let fields: Vec<&str> = e.split_whitespace().collect();
    let ranges: &[(&str, u32, u32, &[&str])] = match fields.len() {
        5 => &[
            ("minute", 0, 59, &[]),
            ("hour", 0, 23, &[]),
            ("day of month", 1, 31, &[]),
            ("month", 1, 12, &MONTHS),
            ("day of week", 0, 7, &WEEKDAYS),
        ],
        6 => &[
            ("second", 0, 59, &[]),
            ("minute", 0, 59, &[]),
            ("hour", 0, 23, &[]),
            ("day of month", 1, 31, &[]),
            ("month", 1, 12, &MONTHS),
            ("day of week", 0, 7, &WEEKDAYS),
        ],
        n => return Err(ScheduleError::FieldCount(n)),
    };
    let mut sets = Vec::with_capacity(6);
    for (field, &(what, lo, hi, names)) in fields.iter().zip(ranges) {
        sets.push(
            cron_field(field, lo, hi, names).map_err(|why| ScheduleError::CronField {
                what,
                field: (*field).to_owned(),
                why: Box::new(why),
            })?,
        );
    }
    if sets.len() == 5 {
        sets.insert(0, 1);
    }
    let restricted = |i: usize| {
        fields[fields.len() - 5 + i].trim() != "*" && fields[fields.len() - 5 + i].trim() != "?"
    };
    let mut weekdays = sets[5];
    if weekdays & (1 << 7) != 0 {
        weekdays |= 1;
    }
    Ok(CronSets {
        seconds: sets[0],
        minutes: sets[1],
        hours: sets[2],
        days: sets[3],
        months: sets[4],
        weekdays: weekdays & 0x7f,
        either_day: restricted(2) && restricted(4),
    })
}

/// Reads one cron field into the set of values it allows.
fn cron_field(field: &str, lo: u32, hi: u32, names: &[&str]) -> Result<u64, ScheduleError> {
    let value = |s: &str| -> Result<u32, ScheduleError> {
        let lower = s.to_ascii_lowercase();
        if let Some(i) = names.iter().position(|n| *n == lower) {
            // Months are 1-based, weekdays 0-based (Sunday = 0).
            let base = u32::from(names.len() == 12);
            return Ok(u32::try_from(i).unwrap_or(0) + base);
        }
        let n: u32 = s
            .parse()
            .map_err(|_| ScheduleError::NotNumber(s.to_owned()))?;
        if (lo..=hi).contains(&n) {
            Ok(n)
        } else {
            Err(ScheduleError::OutOfRange { n, lo, hi })
        }
    };
    let mut set = 0u64;
    for part in field.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (part, None),
        };
        let step = match step {
            None => 1,
            Some(step) => match step.parse::<u32>() {
                Ok(s) if s > 0 => s,
                _ => return Err(ScheduleError::Step(step.to_owned())),
            },
        };
        let (from, to) = match range {
            "*" | "?" => (lo, hi),
            r => match r.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (value(a)?, value(b)?);
                    if a > b {
                        return Err(ScheduleError::Backwards(a, b));
                    }
                    (a, b)
                }
                // `n/step` runs from n to the field's end.
                None if step > 1 => (value(r)?, hi),
                None => {
                    let n = value(r)?;
                    (n, n)
                }
            },
        };
        let mut v = from;
        while v <= to {
            set |= 1 << v;
            v += step;
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_reads_its_own_expressions() {
        use ScheduleType::*;
        for (kind, good) in [
            (Once, "2024-01-15T09:00:00Z"),
            (Interval, "3600"),
            (Cron, "0 9 * * 1-5"),
            (Cron, "*/15 0-6,22,23 1 jan-jun mon"),
            (Cron, "0 0 9 * * *"),
            (Cron, "@daily"),
            (Daily, "09:00"),
            (Daily, "9:05"),
            (Weekly, "1,3,5 09:00"),
            (Monthly, "1,15 23:59"),
            (Weekly, "mon,wed@09:30"),
            (Weekly, "Friday@18:00"),
            (Weekly, "1,7@00:00"),
            (Monthly, "1,15@09:30"),
        ] {
            assert_eq!(check(kind, good), Ok(()), "{kind} {good}");
        }
        for (kind, bad) in [
            (Once, "tomorrow"),
            (Interval, "0"),
            (Interval, "1h"),
            (Cron, "0 9 * *"),
            (Cron, "60 * * * *"),
            (Cron, "0 9 * * 1-"),
            (Cron, "*/0 * * * *"),
            (Cron, "@sometimes"),
            (Daily, "24:00"),
            (Daily, "9am"),
            (Weekly, "0,3 09:00"),
            (Weekly, "1,3,5"),
            (Monthly, "32 09:00"),
            (Weekly, "mon,xyz@09:30"),
            (Weekly, "monster@09:30"),
            (Weekly, "mon@25:00"),
            (Monthly, "0@09:30"),
            (Monthly, "mon@09:30"),
        ] {
            assert!(check(kind, bad).is_err(), "{kind} {bad} should be rejected");
        }
    }

    #[test]
    fn reasons_name_the_part_that_is_wrong() {
        use ScheduleType::*;
        for (kind, bad, why) in [
            (
                Cron,
                "0 9 * *",
                "4 fields; a cron expression has 5 (or 6 with seconds)",
            ),
            (
                Cron,
                "0 9 * * 5-1",
                "day of week `5-1`: range 5-1 runs backwards",
            ),
            (Cron, "x 9 * * *", "minute `x`: `x` is not a number"),
            (
                Cron,
                "*/0 * * * *",
                "minute `*/0`: step `0` is not a positive number",
            ),
            (Cron, "0 24 * * *", "hour `24`: 24 is not 0-23"),
            (Cron, "@sometimes", "unknown macro `@sometimes`"),
            (Daily, "24:00", "hour 24 is not 0-23"),
            (Daily, "9:60", "minute 60 is not 0-59"),
            (Daily, "9am", "no `:` between hours and minutes"),
            (Daily, "9:5", "`9:5` is not HH:MM"),
            (
                Weekly,
                "1,3,5",
                "expected the days, `@` (or a space), then HH:MM",
            ),
            (
                Weekly,
                "mon,xyz@09:30",
                "`xyz` is not a weekday (mon-sun or 1-7)",
            ),
            (Monthly, "32 09:00", "day 32 is not 1-31"),
            (Monthly, "mon@09:30", "`mon` is not a day number"),
        ] {
            assert_eq!(
                check(kind, bad).map_err(|(_, why)| why),
                Err(why.to_owned())
            );
        }
    }
}
