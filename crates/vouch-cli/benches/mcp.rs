//! `vouch mcp` answering `gate_check` — every validator on the 100,000-event session of
//! `vouch-loggen`'s gate project — to a client that keeps the server open, as an agent does:
//! one JSON-RPC request written, its answer read.
//!
//! `cargo bench -p vouch-cli --bench mcp`

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

fn main() {
    divan::main();
}

struct Server {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
    _dir: tempfile::TempDir,
}

impl Server {
    fn ask(&mut self, method: &str, params: &serde_json::Value) -> serde_json::Value {
        self.next += 1;
        let line = serde_json::json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        writeln!(self.stdin, "{line}").expect("the request is written");
        self.stdin.flush().expect("flushed");
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).expect("an answer");
        serde_json::from_str(&answer).expect("JSON")
    }
}

fn server() -> &'static Mutex<Server> {
    static S: OnceLock<Mutex<Server>> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        vouch_loggen::GateProject::default()
            .write(dir.path())
            .expect("the generated project");
        let mut child = Command::new(env!("CARGO_BIN_EXE_vouch"))
            .arg("mcp")
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("vouch mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut s = Server {
            _child: child,
            stdin,
            stdout,
            next: 0,
            _dir: dir,
        };
        s.ask(
            "initialize",
            &serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
        );
        writeln!(s.stdin, "{}", serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .expect("initialized");
        Mutex::new(s)
    })
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn gate_check_on_100k_events(bencher: divan::Bencher<'_, '_>) {
    let server = server();
    bencher.bench(|| {
        let mut s = server.lock().expect("the server");
        let answer = s.ask(
            "tools/call",
            &serde_json::json!({"name": "gate_check", "arguments": {
                "config": "pipeline.yaml", "log": "session.jsonl", "keyword": "APPROVED", "agent": "Reviewer"}}),
        );
        let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        assert!(text.contains("\"verdict\": \"pass\""), "{answer}");
        text
    });
}
