//! The time the service writes in task fields: RFC 3339 in UTC. Leases are measured by the
//! database's clock instead (`Sql::now_ms`), which every worker shares.

/// A moment.
#[derive(Debug, Clone)]
pub(crate) struct Now {
    /// RFC 3339, UTC, millisecond precision (`2026-11-24T11:30:35.123Z`).
    pub(crate) text: String,
}

/// Returns the current moment.
pub(crate) fn now() -> Now {
    let t = jiff::Timestamp::now();
    let ms = t.as_millisecond();
    let text =
        jiff::Timestamp::from_millisecond(ms).map_or_else(|_| t.to_string(), |t| format!("{t:.3}"));
    Now { text }
}
