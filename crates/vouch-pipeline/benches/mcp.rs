//! What an MCP call costs a run beyond the server's own time: `Clients::call` of the stdio
//! stand-in's `echo` (which answers at once), over the process's pipes, through rmcp.
//!
//! `cargo bench -p vouch-pipeline --bench mcp`

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::json;
use vouch_pipeline::mcp::{Clients, McpServer};

fn main() {
    divan::main();
}

fn connected() -> &'static (tokio::runtime::Runtime, Clients) {
    static C: OnceLock<(tokio::runtime::Runtime, Clients)> = OnceLock::new();
    C.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let bin = vouch_standin::mcp::stdio_binary();
        let server = McpServer::stdio(
            "standin",
            &bin.to_string_lossy(),
            &[],
            Duration::from_secs(10),
        );
        let clients = Clients::start(
            &[server],
            &vouch_process::EnvPolicy::default(),
            &std::env::temp_dir(),
            None,
            &runtime,
        )
        .expect("the stand-in starts");
        (runtime, clients)
    })
}

#[divan::bench(sample_count = 200)]
fn stdio_echo_call(bencher: divan::Bencher<'_, '_>) {
    let (runtime, clients) = connected();
    let args = json!({"text": "hello"});
    bencher.bench(|| {
        let out = clients.call(runtime, "mcp__standin__echo", &args, 10_000);
        assert_eq!(out.text, "hello");
        out
    });
}
