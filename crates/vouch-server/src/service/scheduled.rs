//! `tasks.scheduled.list` and `tasks.scheduled.due`, as apflow's client calls them: the tasks
//! with a schedule, earliest next run first, as a list of tasks.

use serde_json::Value;

use super::{LIST_LIMIT, Params, Service, internal, to_json};
use crate::rpc::Failure;

impl Service {
    /// `tasks.scheduled.list`: `{enabled_only (default true), user_id, schedule_type, status,
    /// limit}`.
    pub(super) fn scheduled_list(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let enabled_only = p.flag("enabled_only", true)?;
        self.scheduled(p, enabled_only, None)
    }

    /// `tasks.scheduled.due`: `{before (default now), user_id, limit}` — the enabled schedules
    /// due by then (the engine fires them within a fraction of a second).
    pub(super) fn scheduled_due(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let before = match p.string("before")? {
            Some(text) => vouch_tasks::timestamp_micros(text)
                .map(|us| us.div_euclid(1000))
                .ok_or_else(|| {
                    Failure::invalid_params(format!("`before` is not a timestamp: `{text}`"))
                })?,
            None => jiff::Timestamp::now().as_millisecond(),
        };
        self.scheduled(p, true, Some(before))
    }

    fn scheduled(
        &self,
        p: &Params<'_>,
        enabled_only: bool,
        before: Option<i64>,
    ) -> Result<Value, Failure> {
        let limit = p.count("limit", 100)?.min(LIST_LIMIT);
        let user = p.string("user_id")?;
        let kind = p.string("schedule_type")?;
        let status = p.string("status")?;
        let tasks = self
            .store
            .scheduled(enabled_only, before, i64::try_from(limit).unwrap_or(100))
            .map_err(|e| internal(&e))?;
        Ok(Value::Array(
            tasks
                .iter()
                .filter(|t| user.is_none_or(|u| t.user_id.as_deref() == Some(u)))
                .filter(|t| kind.is_none_or(|k| t.schedule_type.is_some_and(|s| s.as_str() == k)))
                .filter(|t| status.is_none_or(|s| t.status.as_str() == s))
                .map(to_json)
                .collect(),
        ))
    }
}
