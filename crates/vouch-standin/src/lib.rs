//! Local stand-ins of model providers, for tests that must not touch the network.
//!
//! [`Server`] is a small HTTP/1.1 server on `127.0.0.1`, run on a thread of its own, that
//! answers each request with what a handler returns — a status, headers, a body, and how long
//! to wait first — and counts what it saw: requests, and the most that were in flight at once.
//! [`openai`] and [`anthropic`] build bodies in those providers' wire formats.
//!
//! ```
//! use vouch_standin::{Reply, Server, openai};
//!
//! let server = Server::start(|_request, _n| Reply::json(200, &openai::chat(r#"{"score": 8}"#)));
//! assert!(server.url().starts_with("http://127.0.0.1:"));
//! assert_eq!(server.requests(), 0);
//! ```

#![deny(missing_docs)]

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub mod cli;
mod conversation;
pub mod mcp;
pub mod postgres;

pub use conversation::{Step, Wire, conversation};

/// Returns the stand-in executable `name` of this package, next to the calling test or bench
/// binary in the target folder — built there by `cargo` when it is missing.
///
/// # Panics
///
/// When the test's own path has no target folder, or `cargo build` fails: a test cannot go on.
pub fn binary(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(std::path::Path::parent)
        .expect("the target folder");
    let bin = dir.join(name);
    if !bin.exists() {
        let mut args = vec!["build", "-p", "vouch-standin", "--bin", name];
        if dir.ends_with("release") {
            args.push("--release");
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let built = std::process::Command::new(cargo)
            .args(&args)
            .status()
            .is_ok_and(|s| s.success());
        assert!(built, "cargo build -p vouch-standin --bin {name} failed");
    }
    bin
}

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `POST`, `GET`, …
    pub method: String,
    /// The path, with its query.
    pub path: String,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Request {
    /// Returns the value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Returns the body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// Returns the text of the last user message of a chat-completions or Messages request
    /// (empty when there is none).
    pub fn prompt(&self) -> String {
        self.json()["messages"]
            .as_array()
            .and_then(|m| m.iter().rfind(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned()
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// How long to wait before answering.
    pub delay: Duration,
    /// How many requests must have been in flight at once before it answers (0: none), so
    /// that a test of a concurrency limit sees the limit reached however loaded the machine.
    pub rendezvous: usize,
}

impl Reply {
    /// A JSON reply.
    pub fn json(status: u16, body: &serde_json::Value) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            delay: Duration::ZERO,
            rendezvous: 0,
        }
    }

    /// A plain-text reply.
    pub fn text(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.as_bytes().to_vec(),
            delay: Duration::ZERO,
            rendezvous: 0,
        }
    }

    /// This reply, after waiting `delay`.
    #[must_use]
    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// This reply, given only once `n` requests have been in flight at the same time (or
    /// after [`RENDEZVOUS_LIMIT`], when they never are), then after its delay. A client that
    /// keeps `n` requests going sees its limit reached deterministically; one allowing fewer
    /// shows it by the wait, one allowing more by the count.
    #[must_use]
    pub fn once_in_flight(mut self, n: usize) -> Reply {
        self.rendezvous = n;
        self
    }

    /// This reply, with a header.
    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

#[derive(Default)]
struct Counts {
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    seen: Mutex<Vec<Request>>,
}

/// A running stand-in server; it stops when dropped.
pub struct Server {
    addr: SocketAddr,
    counts: Arc<Counts>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts a server whose `handler` answers each request, given the request and its number
    /// (from 0, in the order requests arrived).
    ///
    /// # Panics
    /// When no local port can be bound (the tests cannot run then).
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> Server {
        let handler: Arc<Handler> = Arc::new(handler);
        let counts = Arc::new(Counts::default());
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread_counts = Arc::clone(&counts);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime for the stand-in server");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("a local port for the stand-in server");
                addr_tx
                    .send(listener.local_addr().expect("the bound address"))
                    .expect("the test waits for the address");
                let accept = async {
                    loop {
                        let Ok((stream, _)) = listener.accept().await else {
                            continue;
                        };
                        let handler = Arc::clone(&handler);
                        let counts = Arc::clone(&thread_counts);
                        tokio::spawn(serve(stream, handler, counts));
                    }
                };
                tokio::select! {
                    () = accept => {}
                    _ = stop_rx => {}
                }
            });
        });
        let addr = addr_rx.recv().expect("the stand-in server started");
        Server {
            addr,
            counts,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// Returns `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Returns how many requests arrived.
    pub fn requests(&self) -> usize {
        self.counts.requests.load(Ordering::SeqCst)
    }

    /// Returns the most requests that were being answered at once.
    pub fn most_in_flight(&self) -> usize {
        self.counts.most_in_flight.load(Ordering::SeqCst)
    }

    /// Returns every request seen so far, in the order they arrived.
    pub fn seen(&self) -> Vec<Request> {
        self.counts
            .seen
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The longest a reply waits for its rendezvous ([`Reply::once_in_flight`]).
pub const RENDEZVOUS_LIMIT: Duration = Duration::from_secs(10);

/// Reads one request from `stream`, answers it, and closes the connection.
async fn serve(mut stream: TcpStream, handler: Arc<Handler>, counts: Arc<Counts>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let n = counts.requests.fetch_add(1, Ordering::SeqCst);
    let now = counts.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    counts.most_in_flight.fetch_max(now, Ordering::SeqCst);
    if let Ok(mut seen) = counts.seen.lock() {
        seen.push(request.clone());
    }
    let reply = handler(&request, n);
    let waiting = std::time::Instant::now();
    while counts.most_in_flight.load(Ordering::SeqCst) < reply.rendezvous
        && waiting.elapsed() < RENDEZVOUS_LIMIT
    {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        reply.status,
        reason(reply.status),
        reply.body.len()
    );
    for (k, v) in &reply.headers {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    head.push_str("\r\n");
    // The request stops being in flight as its answer starts: once the client has read it, it
    // may send the next, which must not find this one still counted.
    counts.in_flight.fetch_sub(1, Ordering::SeqCst);
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(&reply.body).await;
    let _ = stream.shutdown().await;
}

async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let path = first.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// Bodies in the OpenAI chat-completions wire format.
pub mod openai {
    use serde_json::{Value, json};

    /// A chat completion whose message content is `content`.
    pub fn chat(content: &str) -> Value {
        json!({
            "id": "chatcmpl-standin",
            "object": "chat.completion",
            "created": 1_767_225_600,
            "model": "standin-model",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop"
            }],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
        })
    }

    /// An error body, as OpenAI-compatible servers send with a 4xx or 5xx status.
    pub fn error(message: &str, kind: &str) -> Value {
        json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
    }
}

/// Bodies in the Anthropic Messages wire format.
pub mod anthropic {
    use serde_json::{Value, json};

    /// A message whose only block is a call of tool `name` with `input` (a forced tool call).
    pub fn tool_use(name: &str, input: &Value) -> Value {
        json!({
            "id": "msg_standin",
            "type": "message",
            "role": "assistant",
            "model": "standin-claude",
            "content": [{"type": "tool_use", "id": "toolu_standin", "name": name, "input": input}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 10}
        })
    }

    /// A message whose only block is `text`.
    pub fn text(text: &str) -> Value {
        json!({
            "id": "msg_standin",
            "type": "message",
            "role": "assistant",
            "model": "standin-claude",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 10}
        })
    }

    /// An error body.
    pub fn error(kind: &str, message: &str) -> Value {
        json!({"type": "error", "error": {"type": kind, "message": message}})
    }
}
