//! The HTTP transport: JSON-RPC 2.0 on `POST /` (and `/tasks`), the progress stream on
//! `GET /events/{root_id}`, an optional bearer token, a body size limit, and one log line per
//! request on standard error.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::{Value, json};

use crate::rpc::{self, code};
use crate::service::Service;
use crate::store::Store;

/// How often the event stream looks for new events.
const EVENT_POLL: Duration = Duration::from_millis(100);

/// What the routes share.
#[derive(Debug, Clone)]
struct Shared {
    service: Arc<Service>,
    token: Option<Arc<str>>,
    quiet: bool,
}

/// Returns the service's routes: `POST /`, `POST /tasks`, `GET /events/{root_id}`.
/// With `token`, every request must carry `Authorization: Bearer <token>`. Bodies larger than
/// `max_body` bytes are refused (HTTP 413).
pub fn router(
    service: Arc<Service>,
    token: Option<String>,
    max_body: usize,
    quiet: bool,
) -> Router {
    let shared = Shared {
        service,
        token: token.map(Arc::from),
        quiet,
    };
    Router::new()
        .route("/", post(call))
        .route("/tasks", post(call))
        .route("/events/{root_id}", get(events))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(shared)
}

/// Returns true when the request carries the token (or none is needed).
fn authorized(shared: &Shared, headers: &HeaderMap) -> bool {
    let Some(token) = &shared.token else {
        return true;
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    // Compared in time independent of where they differ.
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
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

async fn call(State(shared): State<Shared>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let started = Instant::now();
    let methods = methods_of(&body);
    let response = if authorized(&shared, &headers) {
        let service = Arc::clone(&shared.service);
        let answer =
            tokio::task::spawn_blocking(move || rpc::handle(&body, service.as_ref())).await;
        match answer {
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
        }
    } else {
        rpc_error(
            StatusCode::UNAUTHORIZED,
            code::UNAUTHORIZED,
            "send `Authorization: Bearer <token>` with the token the server was started with",
        )
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
    if !authorized(&shared, &headers) {
        log(&shared, format_args!("GET /events/{root} 401"));
        return rpc_error(
            StatusCode::UNAUTHORIZED,
            code::UNAUTHORIZED,
            "a bearer token is required",
        );
    }
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
    log(
        &shared,
        format_args!("GET /events/{root} 200 stream from event {after}"),
    );
    Sse::new(stream_of(store, root, after))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Where a stream is: the last event sent, and whether it is over.
struct Cursor {
    store: Arc<Store>,
    root: String,
    after: i64,
    done: bool,
}

/// The events of tree `root` after event `after`, as they come, until every task of the tree
/// has ended and every event has been sent.
fn stream_of(
    store: Arc<Store>,
    root: String,
    after: i64,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let cursor = Cursor {
        store,
        root,
        after,
        done: false,
    };
    stream::unfold(cursor, |mut c| async move {
        if c.done {
            return None;
        }
        loop {
            let (store, root, after) = (Arc::clone(&c.store), c.root.clone(), c.after);
            // Whether the tree was over is read before the events, so none is missed.
            let read = tokio::task::spawn_blocking(move || {
                let open = store.open_tasks(&root)?;
                let events = store.events(&root, after, 500)?;
                Ok::<_, crate::store::StoreError>((open, events))
            })
            .await;
            match read {
                Ok(Ok((_, events))) if !events.is_empty() => {
                    if let Some(last) = events.last() {
                        c.after = last.id;
                    }
                    let batch: Vec<Result<SseEvent, Infallible>> = events
                        .into_iter()
                        .map(|e| {
                            Ok(SseEvent::default()
                                .id(e.id.to_string())
                                .event(e.kind)
                                .data(e.data))
                        })
                        .collect();
                    return Some((stream::iter(batch), c));
                }
                Ok(Ok((0, _))) | Err(_) => return None,
                Ok(Ok(_)) => tokio::time::sleep(EVENT_POLL).await,
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
