//! A server on a free port with a temporary SQLite store, and a client of it.

use std::net::SocketAddr;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vouch_server::serve::{self, Options};

/// A running server; stopped when dropped.
pub(crate) struct Server {
    pub(crate) url: String,
    pub(crate) dir: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// A server with a fresh SQLite store, two workers and a 2 s lease.
    pub(crate) fn start() -> Server {
        Server::start_with(|_| {})
    }

    /// A server whose options `tune` changes first (the store defaults to a fresh SQLite file).
    pub(crate) fn start_with(tune: impl FnOnce(&mut Options)) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut options = Options::new(dir.path().join("tasks.db").to_string_lossy().into_owned());
        options.listen = Some(SocketAddr::from(([127, 0, 0, 1], 0)));
        options.concurrency = 2;
        options.lease = Duration::from_secs(2);
        options.quiet = true;
        options.shutdown_timeout = Duration::from_secs(1);
        tune(&mut options);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let shutdown = async move {
                let _ = rx.await;
            };
            let ready = ready_tx.clone();
            if let Err(e) = serve::run(
                &options,
                move |addr| {
                    let _ = ready.send(Ok(addr));
                },
                shutdown,
            ) {
                let _ = ready_tx.send(Err(e.to_string()));
            }
        });
        let addr = ready_rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap()
            .unwrap()
            .unwrap();
        Server {
            url: format!("http://{addr}"),
            dir,
            stop: Some(tx),
            thread: Some(thread),
        }
    }

    /// Posts `body` to `path` with `headers`; returns the status and the body.
    pub(crate) fn post(&self, path: &str, body: &str, headers: &[(&str, &str)]) -> (u16, String) {
        let body = body.to_owned();
        self.send(headers, |client, url| {
            client
                .post(format!("{url}{path}"))
                .header("content-type", "application/json")
                .body(body)
        })
    }

    /// Gets `path` with `headers`, reading the body to its end.
    pub(crate) fn get(&self, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
        self.send(headers, |client, url| client.get(format!("{url}{path}")))
    }

    /// Sends the request `build` makes, with `headers`; returns the status and the whole body.
    fn send(
        &self,
        headers: &[(&str, &str)],
        build: impl FnOnce(&reqwest::Client, &str) -> reqwest::RequestBuilder,
    ) -> (u16, String) {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let client = reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap();
            let mut request = build(&client, &self.url);
            for (k, v) in headers {
                request = request.header(*k, *v);
            }
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.text().await.unwrap())
        })
    }

    /// Calls `method` and returns the whole response object.
    pub(crate) fn rpc(&self, method: &str, params: &Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        let (status, text) = self.post("/", &body.to_string(), &[]);
        assert_eq!(status, 200, "{text}");
        serde_json::from_str(&text).unwrap()
    }

    /// Calls `method` and returns its result, failing the test on an error.
    pub(crate) fn ok(&self, method: &str, params: &Value) -> Value {
        let answer = self.rpc(method, params);
        assert!(answer.get("error").is_none(), "{method} failed: {answer:#}");
        answer["result"].clone()
    }

    /// Calls `method` and returns its error object, failing the test on a result.
    pub(crate) fn err(&self, method: &str, params: &Value) -> Value {
        let answer = self.rpc(method, params);
        assert!(
            answer.get("result").is_none(),
            "{method} succeeded: {answer:#}"
        );
        answer["error"].clone()
    }

    /// Waits until every task of the tree rooted at `root` has ended; returns the tasks.
    pub(crate) fn wait(&self, root: &str) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let tasks = self.tasks(root);
            if tasks.iter().all(|t| {
                matches!(
                    t["status"].as_str(),
                    Some("completed" | "failed" | "cancelled")
                )
            }) {
                return tasks;
            }
            assert!(
                Instant::now() < deadline,
                "the tree did not end: {tasks:#?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until task `id` has `status`; returns it.
    pub(crate) fn wait_for(&self, id: &str, status: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let task = self.ok("tasks.get", &json!({"task_id": id}));
            if task["status"] == status {
                return task;
            }
            assert!(
                Instant::now() < deadline,
                "task {id} never became {status}: {task:#}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Returns every task of the tree rooted at `root`, flattened.
    pub(crate) fn tasks(&self, root: &str) -> Vec<Value> {
        let tree = self.ok("tasks.tree", &json!({"task_id": root}));
        let mut out = Vec::new();
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            out.push(node["task"].clone());
            stack.extend(node["children"].as_array().cloned().unwrap_or_default());
        }
        out
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Returns a v4 UUID made from `n`, readable in failures.
pub(crate) fn id(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// A task running `command`, with id `n`, parent `parent`, and `more` fields.
pub(crate) fn cmd(n: u32, parent: Option<u32>, command: &str, more: &Value) -> Value {
    let mut t = json!({
        "id": id(n),
        "name": format!("t{n}"),
        "schemas": {"method": "command"},
        "inputs": {"command": command},
    });
    if let Some(p) = parent {
        t["parent_id"] = json!(id(p));
    }
    if let Value::Object(m) = more {
        for (k, v) in m {
            t[k] = v.clone();
        }
    }
    t
}

/// Returns the task with id `n` among `tasks`.
pub(crate) fn find(tasks: &[Value], n: u32) -> &Value {
    let id = id(n);
    tasks.iter().find(|t| t["id"] == id.as_str()).unwrap()
}
