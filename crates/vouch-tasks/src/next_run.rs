//! When a schedule is next due: the first time after a given instant that a task's
//! `schedule_type` and `schedule_expression` name, in UTC. Every expression the validator
//! reads (the data model's and the reference scheduler's forms) is computed here, so a schedule
//! that validates always has a next time or has ended.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use crate::model::ScheduleType;
use crate::rules::schedule::{CronSets, clock, cron_sets, days_then_clock};

/// How far ahead a calendar schedule is looked for: a schedule that allows no day in this many
/// years (`0 0 30 2 *`, February 30th) is never due.
const HORIZON_DAYS: i64 = 366 * 8;

/// Returns the first time strictly after `after` at which a schedule of `kind` with `expr` is
/// due; `None` when there is none (a `once` time passed, an expression that is not valid, a
/// calendar no day matches). `interval` is due `expr` seconds after `after`.
pub fn next_run(kind: ScheduleType, expr: &str, after: Timestamp) -> Option<Timestamp> {
    let e = expr.trim();
    match kind {
        ScheduleType::Once => {
            let at = crate::timestamp::parse(e).ok()?;
            let at = Timestamp::from_microsecond(at.micros).ok()?;
            (at > after).then_some(at)
        }
        ScheduleType::Interval => {
            let secs: i64 = e.parse().ok().filter(|n| *n > 0)?;
            after.checked_add(secs.seconds()).ok()
        }
        ScheduleType::Cron => next_in(&cron_sets(e).ok()?, after),
        ScheduleType::Daily => {
            let (h, m) = clock(e).ok()?;
            next_in(&at_clock(h, m, ALL_DAYS, ALL_WEEKDAYS), after)
        }
        ScheduleType::Weekly => {
            let (days, (h, m)) = days_then_clock(e, 1, 7).ok()?;
            // 1 = Monday … 7 = Sunday; cron's weekdays are Sunday = 0.
            let weekdays = days.iter().fold(0u64, |set, d| set | 1 << (d % 7));
            next_in(&at_clock(h, m, ALL_DAYS, weekdays), after)
        }
        ScheduleType::Monthly => {
            let (days, (h, m)) = days_then_clock(e, 1, 31).ok()?;
            let days = days.iter().fold(0u64, |set, d| set | 1 << d);
            next_in(&at_clock(h, m, days, ALL_WEEKDAYS), after)
        }
    }
}

const ALL_DAYS: u64 = ((1 << 32) - 1) & !1;
const ALL_WEEKDAYS: u64 = 0x7f;

/// The sets of a schedule at `h:m` on `days` of the month and `weekdays`.
fn at_clock(h: u32, m: u32, days: u64, weekdays: u64) -> CronSets {
    CronSets {
        seconds: 1,
        minutes: 1 << m,
        hours: 1 << h,
        days,
        months: ((1 << 13) - 1) & !1,
        weekdays,
        either_day: false,
    }
}

/// The first instant after `after` that `sets` allow.
fn next_in(sets: &CronSets, after: Timestamp) -> Option<Timestamp> {
    let from: DateTime = after.to_zoned(TimeZone::UTC).datetime();
    let first_day: Date = from.date();
    for offset in 0..HORIZON_DAYS {
        let day = first_day.checked_add(offset.days()).ok()?;
        if !day_allowed(sets, day) {
            continue;
        }
        for h in bits(sets.hours, 24) {
            for m in bits(sets.minutes, 60) {
                for s in bits(sets.seconds, 60) {
                    let at = day.at(
                        i8::try_from(h).ok()?,
                        i8::try_from(m).ok()?,
                        i8::try_from(s).ok()?,
                        0,
                    );
                    if at > from {
                        return at.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp());
                    }
                }
            }
        }
    }
    None
}

/// Whether `day`'s month, day of the month and weekday are allowed.
fn day_allowed(sets: &CronSets, day: Date) -> bool {
    let has = |set: u64, n: i64| (0..64).contains(&n) && set & (1 << n) != 0;
    if !has(sets.months, i64::from(day.month())) {
        return false;
    }
    let dom = has(sets.days, i64::from(day.day()));
    let dow = has(
        sets.weekdays,
        i64::from(day.weekday().to_sunday_zero_offset()),
    );
    if sets.either_day {
        dom || dow
    } else {
        dom && dow
    }
}

/// The values of `set` below `limit`, ascending.
fn bits(set: u64, limit: u32) -> impl Iterator<Item = u32> {
    (0..limit).filter(move |n| set & (1 << n) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().expect("a timestamp")
    }

    fn next(kind: ScheduleType, expr: &str, after: &str) -> Option<String> {
        next_run(kind, expr, at(after)).map(|t| t.to_string())
    }

    #[test]
    fn each_type_and_both_syntaxes_give_the_next_time() {
        use ScheduleType::*;
        // 2026-11-25 is a Wednesday.
        let now = "2026-11-25T10:00:00Z";
        assert_eq!(
            next(Interval, "90", now).as_deref(),
            Some("2026-11-25T10:01:30Z")
        );
        assert_eq!(
            next(Once, "2026-11-26T09:00:00Z", now).as_deref(),
            Some("2026-11-26T09:00:00Z")
        );
        assert_eq!(next(Once, "2026-11-24T09:00:00Z", now), None);
        assert_eq!(
            next(Daily, "09:30", now).as_deref(),
            Some("2026-11-26T09:30:00Z")
        );
        assert_eq!(
            next(Daily, "10:30", now).as_deref(),
            Some("2026-11-25T10:30:00Z")
        );
        assert_eq!(
            next(Weekly, "mon,wed@09:30", now).as_deref(),
            Some("2026-11-30T09:30:00Z")
        );
        assert_eq!(
            next(Weekly, "3 11:00", now).as_deref(),
            Some("2026-11-25T11:00:00Z")
        );
        assert_eq!(
            next(Weekly, "sun@00:00", now).as_deref(),
            Some("2026-11-29T00:00:00Z")
        );
        assert_eq!(
            next(Monthly, "1,15@09:30", now).as_deref(),
            Some("2026-12-01T09:30:00Z")
        );
        assert_eq!(
            next(Monthly, "31 08:00", "2026-11-01T00:00:00Z").as_deref(),
            Some("2026-12-31T08:00:00Z")
        );
        assert_eq!(
            next(Cron, "0 9 * * 1-5", now).as_deref(),
            Some("2026-11-26T09:00:00Z")
        );
        assert_eq!(
            next(Cron, "*/15 * * * *", now).as_deref(),
            Some("2026-11-25T10:15:00Z")
        );
        assert_eq!(
            next(Cron, "30 0 9 * * *", now).as_deref(),
            Some("2026-11-26T09:00:30Z")
        );
        assert_eq!(
            next(Cron, "@hourly", now).as_deref(),
            Some("2026-11-25T11:00:00Z")
        );
        // Both day fields restricted: either matches (the 1st, or any Friday).
        assert_eq!(
            next(Cron, "0 0 1 * fri", now).as_deref(),
            Some("2026-11-27T00:00:00Z")
        );
        // A day that never comes.
        assert_eq!(next(Cron, "0 0 30 2 *", now), None);
    }

    proptest::proptest! {
        #[test]
        fn the_next_time_is_later_and_matches_its_expression(
            minute in 0u32..60, hour in 0u32..24, secs in 0i64..10_000_000,
        ) {
            let after = Timestamp::from_second(1_790_000_000 + secs).expect("a time");
            let expr = format!("{minute} {hour} * * *");
            let next = next_run(ScheduleType::Cron, &expr, after).expect("a next time");
            proptest::prop_assert!(next > after);
            proptest::prop_assert!(next.as_second() - after.as_second() <= 86_400);
            let civil = next.to_zoned(TimeZone::UTC).datetime();
            proptest::prop_assert_eq!(u32::try_from(civil.minute()).ok(), Some(minute));
            proptest::prop_assert_eq!(u32::try_from(civil.hour()).ok(), Some(hour));
        }
    }
}
