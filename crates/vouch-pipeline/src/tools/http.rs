//! fuseraft's `Http` plugin: `http_get`, `http_post`, `http_put`, `http_patch`,
//! `http_delete`, `http_head` — through the guarded fetch `vouch serve` uses too: the hosts
//! of `Security.HttpAllowedHosts` only (any public host when empty), never a private or
//! loopback address unless `Security.AllowPrivateHosts`, no redirects, a timeout, the answer
//! cut at the run's read cap. Every request is recorded in the turn's change-log entry.

use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{Value, json};
use vouch_llm::guarded::{Fetch, fetch};

use crate::tools::{Effect, ToolContext, ToolOutput, text_arg};

/// Runs the request `name` (`http_get`, ...) asks for.
pub(super) fn run(name: &str, args: &Value, cx: &ToolContext) -> ToolOutput {
    let method = name.trim_start_matches("http_").to_ascii_uppercase();
    let url = match text_arg(args, "url") {
        Ok(u) => u.to_owned(),
        Err(e) => return e,
    };
    let mut request = Fetch::get(url.clone());
    request.method.clone_from(&method);
    request.allow_private = cx.http.allow_private;
    request.allowed_hosts.clone_from(&cx.http.allowed_hosts);
    request.max_body = cx.result_cap;
    request.timeout = args
        .get("timeoutSeconds")
        .and_then(Value::as_u64)
        .map_or(Duration::from_secs(30), |s| {
            Duration::from_secs(s.clamp(1, 300))
        });
    match args.get("headers") {
        Some(Value::Object(h)) => {
            for (k, v) in h {
                request.headers.push((
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                ));
            }
        }
        // fuseraft passes headers as a JSON string.
        Some(Value::String(s)) if !s.trim().is_empty() => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(h)) => {
                for (k, v) in h {
                    request
                        .headers
                        .push((k, v.as_str().map_or_else(|| v.to_string(), str::to_owned)));
                }
            }
            _ => return ToolOutput::error("`headers` must be a JSON object"),
        },
        _ => {}
    }
    if let Some(body) = args.get("body") {
        let content_type = args
            .get("contentType")
            .and_then(Value::as_str)
            .unwrap_or("application/json");
        request
            .headers
            .push(("content-type".to_owned(), content_type.to_owned()));
        request.body = Some(
            body.as_str()
                .map_or_else(|| body.to_string(), str::to_owned),
        );
    }
    let answer = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
        .and_then(|rt| rt.block_on(fetch(&request)).map_err(|e| e.to_string()));
    let record = |failed: bool| {
        Effect::Tool(vouch_evidence::ToolCallRun::new(
            name,
            json!({"method": method, "url": url}),
            failed,
        ))
    };
    match answer {
        Ok(f) => {
            let mut text = format!("HTTP {}\n", f.status);
            if method == "HEAD" {
                for (k, v) in &f.headers {
                    let _ = writeln!(text, "{k}: {v}");
                }
            } else {
                text.push_str(&String::from_utf8_lossy(&f.body));
                if f.truncated {
                    let _ = write!(text, "\n[… cut at {} bytes]", cx.result_cap);
                }
            }
            let failed = f.status >= 400;
            let out = if failed {
                ToolOutput::error(text)
            } else {
                ToolOutput::ok(text)
            };
            out.with(record(failed))
        }
        Err(why) => ToolOutput::denied(why).with(record(true)),
    }
}
