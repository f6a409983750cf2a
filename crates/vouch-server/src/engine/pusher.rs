//! The pusher: delivers trees' events to their push notification callbacks
//! (`configuration.push_notification_config`). Each worker process runs one; a target is
//! delivered by the one holding its lease in the store, in event order, each event with up to
//! [`ATTEMPTS`] requests (backing off from [`FIRST_BACKOFF`], doubling) before it is recorded
//! as failed and delivery moves on — a callback that never answers cannot hold a tree's other
//! events back for more than about a minute each, and never holds the tree itself. Every
//! delivery is recorded (`tasks.push.get`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Map, Value};
use vouch_llm::guarded::{self, Fetch, FetchError};

use crate::engine::HttpPolicy;
use crate::store::{Event, PushDelivery, PushTarget, Store};

/// Requests per event before it is recorded as failed.
pub(crate) const ATTEMPTS: u32 = 5;

/// The wait after the first failed request; each later one doubles it.
pub(crate) const FIRST_BACKOFF: Duration = Duration::from_millis(250);

/// How long one callback request may take.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a worker holds a target between deliveries.
const LEASE_MS: i64 = 30_000;

/// How often an idle pusher looks for work.
const TICK: Duration = Duration::from_millis(100);

/// Targets delivered at once.
const BATCH: i64 = 16;

/// Events read per look.
const EVENTS: i64 = 100;

/// The pusher thread's state.
pub(crate) struct Pusher {
    pub(crate) store: Arc<Store>,
    pub(crate) policy: HttpPolicy,
    pub(crate) owner: String,
    pub(crate) stop: Arc<AtomicBool>,
}

impl Pusher {
    /// Delivers until the engine stops, then gives its leases back.
    pub(crate) fn run(self) {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "push notifications cannot be sent: no HTTP runtime");
                return;
            }
        };
        while !self.stop.load(Ordering::SeqCst) {
            let claimed = match self.store.push_claim(&self.owner, LEASE_MS, BATCH) {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "push targets could not be read");
                    Vec::new()
                }
            };
            let rounds = claimed
                .into_iter()
                .map(|(root, target, after)| self.deliver(root, target, after));
            let sent: usize = runtime
                .block_on(futures_util::future::join_all(rounds))
                .into_iter()
                .sum();
            if sent == 0 {
                std::thread::sleep(TICK);
            }
        }
        if let Err(e) = self.store.push_release(&self.owner) {
            tracing::warn!(error = %e, "push leases could not be given back");
        }
    }

    /// Delivers tree `root`'s events after `after`; marks the target done when the tree has
    /// ended and none is left. Returns how many events it settled.
    async fn deliver(&self, root: String, target: PushTarget, mut after: i64) -> usize {
        // Whether the tree was over is read before the events, so none is missed.
        let open = self.store.openness(&root);
        let events = match self.store.events(&root, after, EVENTS) {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(root = %root, error = %e, "events to push could not be read");
                return 0;
            }
        };
        if events.is_empty() {
            if open.is_ok_and(|o| o.open == 0)
                && let Err(e) = self.store.push_finish(&self.owner, &root, after)
            {
                tracing::warn!(root = %root, error = %e, "a push target could not be closed");
            }
            return 0;
        }
        let mut settled = 0;
        for event in &events {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            let delivery = self.send(&root, &target, event).await;
            match self
                .store
                .push_record(&self.owner, LEASE_MS, &root, &delivery)
            {
                Ok(true) => {
                    after = event.id;
                    settled += 1;
                }
                // Another worker holds the target now (this one was too slow): it goes on.
                Ok(false) => break,
                Err(e) => {
                    tracing::warn!(root = %root, error = %e, "a push delivery could not be recorded");
                    break;
                }
            }
        }
        tracing::debug!(root = %root, after, settled, "push deliveries");
        settled
    }

    /// Sends one event, retrying; returns how it went.
    async fn send(&self, root: &str, target: &PushTarget, event: &Event) -> PushDelivery {
        let mut fetch = Fetch::get(target.url.clone());
        fetch.method.clone_from(&target.method);
        fetch.headers.clone_from(&target.headers);
        fetch
            .headers
            .push(("content-type".to_owned(), "application/json".to_owned()));
        fetch.body = Some(callback_body(root, target, event).to_string());
        fetch.timeout = REQUEST_TIMEOUT;
        fetch.max_body = 4096;
        fetch.allow_private = self.policy.allow_private;
        let mut backoff = FIRST_BACKOFF;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let (status, error, again) = match guarded::fetch(&fetch).await {
                Ok(f) if (200..300).contains(&f.status) => (Some(f.status), None, false),
                Ok(f) => (
                    Some(f.status),
                    Some(format!("{} answered HTTP {}", target.url, f.status)),
                    // A refusal that will not change is not sent again.
                    matches!(f.status, 408 | 425 | 429) || f.status >= 500,
                ),
                Err(e @ (FetchError::NotUrl(_) | FetchError::Private { .. })) => {
                    (None, Some(e.to_string()), false)
                }
                Err(e) => (None, Some(e.to_string()), true),
            };
            if !again || attempts >= ATTEMPTS || self.stop.load(Ordering::SeqCst) {
                return PushDelivery::of(event, attempts, status, error);
            }
            tokio::time::sleep(backoff).await;
            backoff *= 2;
        }
    }
}

/// The callback's body: the page's `{task_id, status, progress, result}` with the event's
/// `error`, `timestamp`, its kind and id, and the tree's root (and `protocol: "a2a"` for an A2A
/// request).
fn callback_body(root: &str, target: &PushTarget, event: &Event) -> Value {
    let mut body = match serde_json::from_str::<Value>(&event.data) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    body.entry("progress").or_insert(Value::from(0.0));
    body.entry("result").or_insert(Value::Null);
    body.insert("event".into(), Value::String(event.kind.clone()));
    body.insert("event_id".into(), Value::from(event.id));
    body.insert("root_task_id".into(), Value::String(root.to_owned()));
    if let Some(p) = &target.protocol {
        body.insert("protocol".into(), Value::String(p.clone()));
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_holds_the_pages_keys_and_the_events() {
        let event = Event {
            id: 7,
            task_id: "t1".into(),
            kind: "task_completed".into(),
            data: r#"{"task_id":"t1","status":"completed","progress":1.0,"result":{"n":1},"timestamp":"x"}"#.into(),
        };
        let target = PushTarget::new("http://h/cb".into(), vec![], Some("a2a".into()));
        let body = callback_body("r", &target, &event);
        for key in [
            "task_id",
            "status",
            "progress",
            "result",
            "event",
            "event_id",
            "root_task_id",
            "protocol",
        ] {
            assert!(body.get(key).is_some(), "no {key} in {body}");
        }
        assert_eq!(body["event_id"], 7);
        let pending = Event {
            data: r#"{"task_id":"t1","status":"pending"}"#.into(),
            ..event
        };
        let body = callback_body(
            "r",
            &PushTarget::new("http://h".into(), vec![], None),
            &pending,
        );
        assert_eq!(body["progress"], 0.0);
        assert!(body["result"].is_null());
        assert!(body.get("protocol").is_none());
    }
}
