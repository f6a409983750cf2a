//! The time the service writes: RFC 3339 in UTC for task fields, milliseconds since the epoch
//! for leases.

/// A moment, in both forms.
#[derive(Debug, Clone)]
pub(crate) struct Now {
    /// RFC 3339, UTC, millisecond precision (`2026-11-24T11:30:35.123Z`).
    pub(crate) text: String,
    /// Milliseconds since the Unix epoch.
    pub(crate) ms: i64,
}

/// Returns the current moment.
pub(crate) fn now() -> Now {
    let t = jiff::Timestamp::now();
    let ms = t.as_millisecond();
    let text =
        jiff::Timestamp::from_millisecond(ms).map_or_else(|_| t.to_string(), |t| format!("{t:.3}"));
    Now { text, ms }
}
