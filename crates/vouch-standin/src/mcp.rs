//! A stand-in MCP server: JSON-RPC 2.0 over stdio (the `vouch-standin-mcp` binary) or
//! streamable HTTP (through [`crate::Server`]), with tools that answer, fail, hang and flood:
//!
//! - `echo {text}` answers `text`;
//! - `fail {}` answers an error result (`isError: true`);
//! - `hang {}` never answers (an hour);
//! - `flood {bytes}` answers that many bytes of text (default 1 MiB).

use serde_json::{Value, json};

/// The stand-in's tools, as `tools/list` answers them.
pub fn tools() -> Value {
    let object = |props: Value| json!({"type": "object", "properties": props});
    json!([
        {"name": "echo", "description": "Answers its text.", "inputSchema": object(json!({"text": {"type": "string"}}))},
        {"name": "fail", "description": "Always fails.", "inputSchema": object(json!({}))},
        {"name": "hang", "description": "Never answers.", "inputSchema": object(json!({}))},
        {"name": "flood", "description": "Answers many bytes.", "inputSchema": object(json!({"bytes": {"type": "integer"}}))},
    ])
}

/// What the server does with one JSON-RPC message: the answer to send (none for a
/// notification), or a hang.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Send this message.
    Send(Value),
    /// Send nothing (a notification was read).
    Nothing,
    /// Never answer this request.
    Hang,
}

/// Answers one message.
pub fn answer(message: &Value) -> Answer {
    let Some(id) = message.get("id").cloned() else {
        return Answer::Nothing;
    };
    let ok = |result: Value| Answer::Send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    match message["method"].as_str().unwrap_or_default() {
        "initialize" => {
            let version = message["params"]["protocolVersion"]
                .as_str()
                .unwrap_or("2025-06-18");
            ok(json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "vouch-standin-mcp", "version": "0.1.0"}
            }))
        }
        "ping" => ok(json!({})),
        "tools/list" => ok(json!({"tools": tools()})),
        "tools/call" => {
            let args = &message["params"]["arguments"];
            let text = |t: String, error: bool| {
                ok(json!({"content": [{"type": "text", "text": t}], "isError": error}))
            };
            match message["params"]["name"].as_str().unwrap_or_default() {
                "echo" => text(args["text"].as_str().unwrap_or_default().to_owned(), false),
                "fail" => text("failed on purpose".to_owned(), true),
                "hang" => Answer::Hang,
                "flood" => {
                    let bytes = args["bytes"].as_u64().unwrap_or(1 << 20);
                    text("x".repeat(usize::try_from(bytes).unwrap_or(1 << 20)), false)
                }
                other => Answer::Send(json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32602, "message": format!("no tool `{other}`")}})),
            }
        }
        other => Answer::Send(json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": format!("no method `{other}`")}})),
    }
}

/// Returns the stdio stand-in (`vouch-standin-mcp`), next to the calling test or bench binary
/// in the target folder — built there by `cargo` when it is missing.
pub fn stdio_binary() -> std::path::PathBuf {
    crate::binary("vouch-standin-mcp")
}

/// Serves MCP over HTTP on a stand-in [`crate::Server`]: `POST` JSON-RPC, answered as JSON.
pub fn http() -> crate::Server {
    crate::Server::start(|req, _| {
        if req.method != "POST" {
            return crate::Reply::text(405, "");
        }
        match answer(&req.json()) {
            Answer::Send(v) => crate::Reply::json(200, &v),
            Answer::Nothing => crate::Reply::text(202, ""),
            Answer::Hang => crate::Reply::text(200, "").after(std::time::Duration::from_secs(3600)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_answer_fail_and_hang() {
        let call = |name: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {"text": "hi", "bytes": 3}}});
        assert!(
            matches!(answer(&call("echo")), Answer::Send(v) if v["result"]["content"][0]["text"] == "hi")
        );
        assert!(matches!(answer(&call("fail")), Answer::Send(v) if v["result"]["isError"] == true));
        assert!(
            matches!(answer(&call("flood")), Answer::Send(v) if v["result"]["content"][0]["text"] == "xxx")
        );
        assert_eq!(answer(&call("hang")), Answer::Hang);
        assert_eq!(
            answer(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Answer::Nothing
        );
    }
}
