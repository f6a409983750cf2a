//! Planning a task's schedule: its `next_run_at`, computed by the service (the data model says
//! clients only read it) from `schedule_type` and `schedule_expression`, at or after
//! `schedule_start_at`, never past `schedule_end_at` and never past `max_runs` — when the
//! schedule is created, and whenever a field of it changes. The engine's scheduler fires what
//! is due (`store/ops/schedule.rs`).

use jiff::{Timestamp, ToSpan};
use vouch_tasks::{ScheduleType, Task, next_run};

/// The fields whose change plans the schedule again.
pub(super) const SCHEDULE_FIELDS: &[&str] = &[
    "schedule_type",
    "schedule_expression",
    "schedule_enabled",
    "schedule_start_at",
    "schedule_end_at",
    "max_runs",
    "run_count",
];

/// Sets `task`'s `next_run_at` as of `now`: the first due time of its enabled schedule, or none
/// (the schedule turned off when it has ended: past its end, or its runs used up).
pub(super) fn plan(task: &mut Task, now: Timestamp) {
    task.next_run_at = None;
    if task.schedule_enabled != Some(true) {
        return;
    }
    if task
        .max_runs
        .is_some_and(|max| task.run_count.unwrap_or(0) >= max)
    {
        task.schedule_enabled = Some(false);
        return;
    }
    let (Some(kind), Some(expr)) = (task.schedule_type, task.schedule_expression.as_deref()) else {
        return;
    };
    let start = instant(task.schedule_start_at.as_deref());
    let next = first_due(kind, expr, now, start);
    let end = instant(task.schedule_end_at.as_deref());
    match next {
        Some(at) if end.is_none_or(|end| at <= end) => task.next_run_at = Some(at.to_string()),
        _ => task.schedule_enabled = Some(false),
    }
}

/// The first due time of a schedule planned at `now` that may start at `start`: an interval
/// runs at its start, or one interval after `now`; a calendar schedule at its first time at or
/// after both.
pub(crate) fn first_due(
    kind: ScheduleType,
    expr: &str,
    now: Timestamp,
    start: Option<Timestamp>,
) -> Option<Timestamp> {
    let from = start.filter(|s| *s > now);
    match (kind, from) {
        (ScheduleType::Interval, Some(start)) => Some(start),
        (_, Some(start)) => next_run(kind, expr, start.checked_sub(1.millisecond()).ok()?),
        (_, None) => next_run(kind, expr, now),
    }
}

/// The instant a stored timestamp names.
pub(crate) fn instant(text: Option<&str>) -> Option<Timestamp> {
    Timestamp::from_microsecond(vouch_tasks::timestamp_micros(text?)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(fields: &serde_json::Value) -> Task {
        let mut base = serde_json::json!({"id": "3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c", "name": "s", "status": "pending"});
        if let (Some(b), Some(f)) = (base.as_object_mut(), fields.as_object()) {
            b.extend(f.clone());
        }
        serde_json::from_value(base).expect("a task")
    }

    #[test]
    fn a_schedule_is_planned_within_its_window_and_runs() {
        let now: Timestamp = "2026-11-25T10:00:00Z".parse().expect("a time");
        let mut t = task(
            &serde_json::json!({"schedule_enabled": true, "schedule_type": "interval", "schedule_expression": "60"}),
        );
        plan(&mut t, now);
        assert_eq!(t.next_run_at.as_deref(), Some("2026-11-25T10:01:00Z"));
        let mut t = task(
            &serde_json::json!({"schedule_enabled": true, "schedule_type": "daily", "schedule_expression": "09:00",
            "schedule_start_at": "2026-12-01T00:00:00Z"}),
        );
        plan(&mut t, now);
        assert_eq!(t.next_run_at.as_deref(), Some("2026-12-01T09:00:00Z"));
        // Past its end: off.
        let mut t = task(
            &serde_json::json!({"schedule_enabled": true, "schedule_type": "daily", "schedule_expression": "09:00",
            "schedule_end_at": "2026-11-26T08:00:00Z"}),
        );
        plan(&mut t, now);
        assert_eq!((t.next_run_at, t.schedule_enabled), (None, Some(false)));
        // Its runs used up: off.
        let mut t = task(
            &serde_json::json!({"schedule_enabled": true, "schedule_type": "interval", "schedule_expression": "5",
            "max_runs": 2, "run_count": 2}),
        );
        plan(&mut t, now);
        assert_eq!((t.next_run_at, t.schedule_enabled), (None, Some(false)));
        // Not enabled: no next time.
        let mut t = task(
            &serde_json::json!({"schedule_type": "interval", "schedule_expression": "5", "next_run_at": "2026-11-25T10:00:05Z"}),
        );
        plan(&mut t, now);
        assert_eq!(t.next_run_at, None);
    }
}
