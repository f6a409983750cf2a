//! Push notifications in the store: a tree's callback target (one per root), the lease that
//! makes one worker deliver it, the cursor delivery has reached, and every delivery's outcome.
//! A delivery and the cursor move in one transaction, and only for the worker holding the
//! lease: two workers never both send an event (unless a lease ran out mid-send — then the
//! event may go twice, never zero times).

use serde_json::Value;

use crate::clock::Now;
use crate::store::sql::{Row, Sql, Val};
use crate::store::{PushDelivery, PushState, PushTarget, StoreError};

/// The most deliveries `state` returns.
const STATE_DELIVERIES: i64 = 1000;

/// Registers `target` for tree `root`, replacing any earlier one: delivery starts after the
/// tree's last event so far.
pub(crate) fn register(
    sql: &mut dyn Sql,
    root: &str,
    target: &PushTarget,
    now: &Now,
) -> Result<(), StoreError> {
    let after = super::last_event(sql, root)?;
    let headers = Value::Object(
        target
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
    .to_string();
    sql.exec("DELETE FROM push_targets WHERE root_id = ?", &[root.into()])?;
    sql.exec(
        "INSERT INTO push_targets (root_id, url, method, headers, protocol, after_seq, created_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?)",
        &[
            root.into(),
            target.url.as_str().into(),
            target.method.as_str().into(),
            headers.into(),
            target.protocol.clone().into(),
            after.into(),
            now.text.as_str().into(),
        ],
    )?;
    Ok(())
}

/// Takes (or keeps) the lease of up to `limit` unfinished targets for `owner`, for `lease_ms`
/// by the database's clock; returns them with their cursors.
pub(crate) fn claim(
    sql: &mut dyn Sql,
    owner: &str,
    lease_ms: i64,
    limit: i64,
) -> Result<Vec<(String, PushTarget, i64)>, StoreError> {
    let (now, skip) = (sql.now_ms(), sql.skip_locked());
    let rows = sql.query(
        &format!(
            "SELECT root_id, url, method, headers, protocol, after_seq FROM push_targets \
             WHERE finished = 0 AND (lease_until < {now} OR owner = ?) \
             ORDER BY lease_until LIMIT ? {skip}"
        ),
        &[owner.into(), limit.into()],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let Some((root, target, after)) = target_of(&row) else {
            continue;
        };
        sql.exec(
            &format!(
                "UPDATE push_targets SET owner = ?, lease_until = {now} + ? WHERE root_id = ?"
            ),
            &[owner.into(), lease_ms.into(), root.as_str().into()],
        )?;
        out.push((root, target, after));
    }
    Ok(out)
}

fn target_of(row: &Row) -> Option<(String, PushTarget, i64)> {
    let headers = match serde_json::from_str::<Value>(row.get(3)?.text()?) {
        Ok(Value::Object(m)) => m
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
            .collect(),
        _ => Vec::new(),
    };
    Some((
        row.first()?.text()?.to_owned(),
        PushTarget {
            url: row.get(1)?.text()?.to_owned(),
            method: row.get(2)?.text()?.to_owned(),
            headers,
            protocol: row.get(4).and_then(Val::text).map(str::to_owned),
        },
        row.get(5)?.int()?,
    ))
}

/// Records `delivery` of tree `root` and moves its cursor past the event, if `owner` still
/// holds the lease (renewed for `lease_ms`); false when it does not (nothing is written).
pub(crate) fn record(
    sql: &mut dyn Sql,
    owner: &str,
    lease_ms: i64,
    root: &str,
    delivery: &PushDelivery,
) -> Result<bool, StoreError> {
    let now = sql.now_ms();
    let moved = sql.exec(
        &format!(
            "UPDATE push_targets SET after_seq = ?, delivered = delivered + ?, failed = failed + ?, \
             lease_until = {now} + ? WHERE root_id = ? AND owner = ? AND after_seq < ?"
        ),
        &[
            delivery.event_id.into(),
            i64::from(delivery.ok).into(),
            i64::from(!delivery.ok).into(),
            lease_ms.into(),
            root.into(),
            owner.into(),
            delivery.event_id.into(),
        ],
    )?;
    if moved == 0 {
        return Ok(false);
    }
    sql.exec(
        "INSERT INTO push_deliveries (root_id, event_id, task_id, kind, attempts, status, error, ok, at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            root.into(),
            delivery.event_id.into(),
            delivery.task_id.as_str().into(),
            delivery.kind.as_str().into(),
            i64::from(delivery.attempts).into(),
            delivery.status.map(i64::from).into(),
            delivery.error.clone().into(),
            i64::from(delivery.ok).into(),
            delivery.at.as_str().into(),
        ],
    )?;
    Ok(true)
}

/// Marks tree `root`'s target delivered to the end, if `owner` holds it and its cursor is still
/// `after`.
pub(crate) fn finish(
    sql: &mut dyn Sql,
    owner: &str,
    root: &str,
    after: i64,
) -> Result<bool, StoreError> {
    Ok(sql.exec(
        "UPDATE push_targets SET finished = 1, owner = NULL, lease_until = 0 \
         WHERE root_id = ? AND owner = ? AND after_seq = ?",
        &[root.into(), owner.into(), after.into()],
    )? == 1)
}

/// Gives back the leases `owner` holds (a worker shutting down): another takes them at once.
pub(crate) fn release(sql: &mut dyn Sql, owner: &str) -> Result<u64, StoreError> {
    sql.exec(
        "UPDATE push_targets SET owner = NULL, lease_until = 0 WHERE owner = ? AND finished = 0",
        &[owner.into()],
    )
}

/// Returns tree `root`'s target and its deliveries, oldest first.
pub(crate) fn state(sql: &mut dyn Sql, root: &str) -> Result<Option<PushState>, StoreError> {
    let Some(row) = sql
        .query(
            "SELECT root_id, url, method, headers, protocol, after_seq, delivered, failed, finished \
             FROM push_targets WHERE root_id = ?",
            &[root.into()],
        )?
        .pop()
    else {
        return Ok(None);
    };
    let Some((_, target, after)) = target_of(&row) else {
        return Err(StoreError::Corrupt(format!(
            "the push target of {root} does not read back"
        )));
    };
    let int = |i: usize| row.get(i).and_then(Val::int).unwrap_or(0);
    let deliveries = sql
        .query(
            "SELECT event_id, task_id, kind, attempts, status, error, ok, at FROM push_deliveries \
             WHERE root_id = ? ORDER BY seq LIMIT ?",
            &[root.into(), STATE_DELIVERIES.into()],
        )?
        .iter()
        .filter_map(|r| {
            Some(PushDelivery {
                event_id: r.first()?.int()?,
                task_id: r.get(1)?.text()?.to_owned(),
                kind: r.get(2)?.text()?.to_owned(),
                attempts: u32::try_from(r.get(3)?.int()?).ok()?,
                status: r
                    .get(4)
                    .and_then(Val::int)
                    .and_then(|s| u16::try_from(s).ok()),
                error: r.get(5).and_then(Val::text).map(str::to_owned),
                ok: r.get(6)?.int()? == 1,
                at: r.get(7)?.text()?.to_owned(),
            })
        })
        .collect();
    Ok(Some(PushState {
        target,
        after,
        delivered: int(6),
        failed: int(7),
        finished: int(8) == 1,
        deliveries,
    }))
}
