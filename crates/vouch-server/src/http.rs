//! The HTTP transport: JSON-RPC 2.0 on `POST /` (and `/tasks`), the progress stream on
//! `GET /events/{root_id}`, an optional bearer token — checked before a request's body is read
//! — a body size limit, and one log line per request on standard error.
//!
//! An event stream waits for this process's writes (a notification, not a poll) and looks
//! for other processes' every second; it ends when every task of its tree has ended and every
//! event was sent, when nothing of the tree has been queued or running for a while (a tree
//! never started), or when the server shuts down. At most [`MAX_STREAMS`] are open at once.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::watch;

use crate::rpc::{self, code};
use crate::service::Service;
use crate::store::Store;

/// How often a stream looks for events other processes wrote (its own process's writes wake
/// it at once).
const EVENT_POLL: Duration = Duration::from_secs(1);

/// How long a stream stays open, by default, on a tree none of whose tasks is queued or
/// running.
pub const IDLE_END: Duration = Duration::from_secs(30);

/// The most event streams open at once; one more is refused with 503.
pub const MAX_STREAMS: usize = 256;

/// What the routes share.
#[derive(Debug, Clone)]
struct Shared {
    service: Arc<Service>,
    /// The SHA-256 of the token, when one is needed.
    token: Option<[u8; 32]>,
    quiet: bool,
    /// Turns true when the server shuts down: open streams end.
    shutdown: watch::Receiver<bool>,
    /// Streams open now.
    streams: Arc<AtomicUsize>,
    /// How long a stream stays open on a still tree.
    idle: Duration,
}

/// How the HTTP transport runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The bearer token every request must carry.
    pub token: Option<String>,
    /// The largest request body, in bytes.
    pub max_body: usize,
    /// Leaves out the log line per request.
    pub quiet: bool,
    /// How long an event stream stays open on a tree none of whose tasks is queued or running
    /// (default [`IDLE_END`]).
    pub stream_idle: Duration,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            token: None,
            max_body: 64 << 20,
            quiet: false,
            stream_idle: IDLE_END,
        }
    }
}

/// Returns the service's routes: `POST /`, `POST /tasks`, `GET /events/{root_id}`.
/// With a token, every request must carry `Authorization: Bearer <token>`, checked before its
/// body is read. Bodies larger than `max_body` bytes are refused (HTTP 413). Event streams end
/// when `shutdown` turns true.
pub fn router(
    service: Arc<Service>,
    options: &HttpOptions,
    shutdown: watch::Receiver<bool>,
) -> Router {
    let shared = Shared {
        service,
        token: options
            .token
            .as_ref()
            .map(|t| Sha256::digest(t.as_bytes()).into()),
        quiet: options.quiet,
        shutdown,
        streams: Arc::new(AtomicUsize::new(0)),
        idle: options.stream_idle,
    };
    // The agent card is discovery: it answers without the token (it holds no task data).
    let public = Router::new()
        .route("/.well-known/agent-card", get(agent_card))
        .route("/.well-known/agent-card.json", get(agent_card))
        .route("/ui", get(dashboard))
        .with_state(shared.clone());
    Router::new()
        .route("/", post(call))
        .route("/tasks", post(call))
        .route("/events/{root_id}", get(events))
        .fallback(unknown_path)
        .layer(DefaultBodyLimit::max(options.max_body))
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
        .merge(public)
}

/// `GET /.well-known/agent-card`: the A2A agent card, its `url` the address the request came to.
async fn agent_card(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1");
    log(&shared, format_args!("GET /.well-known/agent-card 200"));
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        crate::agent_card::card(&format!("http://{host}")).to_string(),
    )
        .into_response()
}

/// `GET /ui`: the live dashboard's page (it holds no data; its calls carry the token).
async fn dashboard(State(shared): State<Shared>) -> Response {
    log(&shared, format_args!("GET /ui 200"));
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, crate::dashboard::CSP),
            (header::CACHE_CONTROL, "no-store"),
        ],
        crate::dashboard::PAGE,
    )
        .into_response()
}

/// A path the server does not serve: logged, and answered 404 with what it does serve.
async fn unknown_path(State(shared): State<Shared>, request: Request) -> Response {
    log(
        &shared,
        format_args!("{} {} 404", request.method(), request.uri().path()),
    );
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "application/json")],
        json!({"error": format!(
            "no such path {}: JSON-RPC is POST / (or /tasks), events GET /events/{{root_id}}, the agent card GET /.well-known/agent-card",
            request.uri().path()
        )})
        .to_string(),
    )
        .into_response()
}

/// Refuses a request without the token before anything reads its body.
async fn guard(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    if authorized(&shared, request.headers()) {
        return next.run(request).await;
    }
    log(
        &shared,
        format_args!("{} {} 401", request.method(), request.uri().path()),
    );
    rpc_error(
        StatusCode::UNAUTHORIZED,
        code::UNAUTHORIZED,
        "send `Authorization: Bearer <token>` with the token the server was started with",
    )
}

/// Returns true when the request carries the token (or none is needed). The token and what
/// was sent are compared as SHA-256 digests, in time that depends on neither their contents
/// nor their lengths.
fn authorized(shared: &Shared, headers: &HeaderMap) -> bool {
    let Some(token) = &shared.token else {
        return true;
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    let given: [u8; 32] = Sha256::digest(given.as_bytes()).into();
    given
        .iter()
        .zip(token.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

fn log(shared: &Shared, line: std::fmt::Arguments<'_>) {
    if !shared.quiet {
        eprintln!("{line}");
    }
}

/// The names of the methods a request body calls, for the log line.
fn methods_of(body: &[u8]) -> String {
    let names = |v: &Value| v.get("method").and_then(Value::as_str).map(str::to_owned);
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(calls)) => {
            let all: Vec<String> = calls.iter().filter_map(names).collect();
            format!("batch[{}] {}", calls.len(), all.join(","))
        }
        Ok(v) => names(&v).unwrap_or_else(|| "-".into()),
        Err(_) => "-".into(),
    }
}

async fn call(State(shared): State<Shared>, uri: Uri, body: Bytes) -> Response {
    let started = Instant::now();
    let methods = methods_of(&body);
    let service = Arc::clone(&shared.service);
    let answer = tokio::task::spawn_blocking(move || rpc::handle(&body, service.as_ref())).await;
    let response = match answer {
        Ok(Some(bytes)) if methods == "tasks.execute" => match streamed(&shared, &bytes) {
            Some(stream) => stream,
            None => (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                bytes,
            )
                .into_response(),
        },
        Ok(Some(bytes)) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            bytes,
        )
            .into_response(),
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            code::INTERNAL_ERROR,
            &e.to_string(),
        ),
    };
    log(
        &shared,
        format_args!(
            "POST {} {} {:.1} ms {methods}",
            uri.path(),
            response.status().as_u16(),
            started.elapsed().as_secs_f64() * 1000.0
        ),
    );
    response
}

/// The answer of a `tasks.execute` call that asked for streaming (`use_streaming`,
/// `metadata.stream`): a Server-Sent Events stream whose first message, `response`, is the
/// JSON-RPC response, followed by the tree's events of this run (as `GET /events/{root_id}`
/// sends them, with `protocol: "a2a"` in each for an A2A request). `None` when the call did not
/// ask, failed, or no stream place is free (then the response goes as JSON).
fn streamed(shared: &Shared, response: &[u8]) -> Option<Response> {
    let parsed: Value = serde_json::from_slice(response).ok()?;
    let result = parsed.get("result")?;
    if result.get("streaming") != Some(&Value::Bool(true)) {
        return None;
    }
    let root = result.get("root_task_id")?.as_str()?.to_owned();
    let after = result.get("events_after").and_then(Value::as_i64)?;
    let a2a = result.pointer("/metadata/protocol").is_some();
    let slot = Slot::take(&shared.streams)?;
    let first = SseEvent::default()
        .event("response")
        .data(String::from_utf8_lossy(response));
    let events = stream_of(
        Arc::clone(shared.service.store()),
        root,
        after,
        shared.shutdown.clone(),
        slot,
        shared.idle,
        a2a,
    );
    let body = stream::once(async move { Ok::<_, Infallible>(first) }).chain(events);
    Some(
        Sse::new(body)
            .keep_alive(KeepAlive::default())
            .into_response(),
    )
}

/// An error response outside any call (no id to answer under).
fn rpc_error(status: StatusCode, code: i32, why: &str) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": code::message(code), "data": why},
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn events(
    State(shared): State<Shared>,
    Path(root): Path<String>,
    headers: HeaderMap,
) -> Response {
    let root = root.to_ascii_lowercase();
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or(0);
    let store = Arc::clone(shared.service.store());
    let lookup = {
        let store = Arc::clone(&store);
        let root = root.clone();
        tokio::task::spawn_blocking(move || store.root_of(&root)).await
    };
    match lookup {
        Ok(Ok(Some(r))) if r == root => {}
        Ok(Ok(Some(r))) => {
            log(&shared, format_args!("GET /events/{root} 404 (not a root)"));
            return rpc_error(
                StatusCode::NOT_FOUND,
                code::TASK_NOT_FOUND,
                &format!("{root} is not a root; its root is {r}"),
            );
        }
        Ok(Ok(None)) => {
            log(&shared, format_args!("GET /events/{root} 404"));
            return rpc_error(
                StatusCode::NOT_FOUND,
                code::TASK_NOT_FOUND,
                &format!("no task {root}"),
            );
        }
        Ok(Err(e)) => {
            return rpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                code::INTERNAL_ERROR,
                &e.to_string(),
            );
        }
        Err(e) => {
            return rpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                code::INTERNAL_ERROR,
                &e.to_string(),
            );
        }
    }
    let Some(slot) = Slot::take(&shared.streams) else {
        log(
            &shared,
            format_args!("GET /events/{root} 503 (too many streams)"),
        );
        return rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            code::INTERNAL_ERROR,
            &format!("{MAX_STREAMS} event streams are open; try again later"),
        );
    };
    log(
        &shared,
        format_args!("GET /events/{root} 200 stream from event {after}"),
    );
    Sse::new(stream_of(
        store,
        root,
        after,
        shared.shutdown.clone(),
        slot,
        shared.idle,
        false,
    ))
    .keep_alive(KeepAlive::default())
    .into_response()
}

/// One of the [`MAX_STREAMS`] places, given back when its stream ends.
#[derive(Debug)]
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(count: &Arc<AtomicUsize>) -> Option<Slot> {
        count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < MAX_STREAMS).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(count)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Where a stream is: the last event sent, whether it is over, and what wakes it.
struct Cursor {
    store: Arc<Store>,
    root: String,
    after: i64,
    done: bool,
    written: watch::Receiver<u64>,
    shutdown: watch::Receiver<bool>,
    /// When the tree was last seen moving (an event, or a task queued or running).
    moved: Instant,
    /// How long it may stay still.
    idle: Duration,
    /// Adds `protocol: "a2a"` to each event's data.
    a2a: bool,
    _slot: Slot,
}

/// The events of tree `root` after event `after`, as they come, until every task of the tree
/// has ended and every event has been sent, the tree has been still for `idle`, or the server
/// shuts down. With `a2a`, each event's data carries `protocol: "a2a"`.
fn stream_of(
    store: Arc<Store>,
    root: String,
    after: i64,
    shutdown: watch::Receiver<bool>,
    slot: Slot,
    idle: Duration,
    a2a: bool,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let cursor = Cursor {
        written: store.written(),
        store,
        root,
        after,
        done: false,
        shutdown,
        moved: Instant::now(),
        idle,
        a2a,
        _slot: slot,
    };
    stream::unfold(cursor, |mut c| async move {
        if c.done || *c.shutdown.borrow() {
            return None;
        }
        loop {
            let (store, root, after) = (Arc::clone(&c.store), c.root.clone(), c.after);
            // Marks what this process wrote as seen before reading, so a write after the read
            // wakes the wait below.
            c.written.borrow_and_update();
            // Whether the tree was over is read before the events, so none is missed.
            let read = tokio::task::spawn_blocking(move || {
                let open = store.openness(&root)?;
                let events = store.events(&root, after, 500)?;
                Ok::<_, crate::store::StoreError>((open, events))
            })
            .await;
            match read {
                Ok(Ok((_, events))) if !events.is_empty() => {
                    c.moved = Instant::now();
                    if let Some(last) = events.last() {
                        c.after = last.id;
                    }
                    let a2a = c.a2a;
                    let batch: Vec<Result<SseEvent, Infallible>> = events
                        .into_iter()
                        .map(|e| {
                            let data = if a2a { tagged(&e.data) } else { e.data };
                            Ok(SseEvent::default()
                                .id(e.id.to_string())
                                .event(e.kind)
                                .data(data))
                        })
                        .collect();
                    return Some((stream::iter(batch), c));
                }
                Ok(Ok((open, _))) if open.open == 0 => return None,
                Err(_) => return None,
                Ok(Ok((open, _))) => {
                    if open.active > 0 {
                        c.moved = Instant::now();
                    } else if c.moved.elapsed() >= c.idle {
                        return None;
                    }
                    tokio::select! {
                        _ = c.written.changed() => {}
                        _ = c.shutdown.changed() => return None,
                        () = tokio::time::sleep(EVENT_POLL) => {}
                    }
                }
                Ok(Err(e)) => {
                    c.done = true;
                    let error = SseEvent::default().event("error").data(e.to_string());
                    return Some((stream::iter(vec![Ok(error)]), c));
                }
            }
        }
    })
    .flatten()
}

/// An event's data with `protocol: "a2a"` (the page's MUST for A2A event data).
fn tagged(data: &str) -> String {
    match serde_json::from_str::<Value>(data) {
        Ok(Value::Object(mut m)) => {
            m.insert("protocol".into(), Value::String("a2a".into()));
            Value::Object(m).to_string()
        }
        _ => data.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_beyond_the_cap_get_no_slot_and_slots_come_back() {
        let count = Arc::new(AtomicUsize::new(0));
        let slots: Vec<Slot> = (0..MAX_STREAMS)
            .filter_map(|_| Slot::take(&count))
            .collect();
        assert_eq!(slots.len(), MAX_STREAMS);
        assert!(Slot::take(&count).is_none());
        drop(slots);
        assert_eq!(count.load(Ordering::SeqCst), 0);
        assert!(Slot::take(&count).is_some());
    }
}
