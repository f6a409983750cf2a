//! MCP servers in a run, against the stand-in server (vouch-standin) over stdio and HTTP:
//! tools listed and offered, every call recorded in the session and the change log, a hung
//! call timed out, a flood capped, a server that cannot start a load error naming it.

use vouch_pipeline::{Ended, RunConfig, RunError, models, run};

use crate::support::Project;

fn pipeline(server: &str) -> String {
    let bin = vouch_standin::mcp::stdio_binary();
    let bin_dir = bin
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    format!(
        r#"
Orchestration:
  Models:
    demo: {{Provider: scripted, Script: script.yaml}}
  McpServers:
{server}
  Agents:
    - Name: Worker
      Description: Uses the stand-in's tools.
      Instructions: Use the tools, then say DONE.
      Model: demo
      Plugins: [standin]
  Security:
    # The stand-in's binary sits in the target folder: the sandbox lets it run from there.
    ReadPaths: [{bin_dir}]
  Selection:
    Type: roundrobin
  Termination:
    Type: composite
    MaxIterations: 3
    Strategies:
      - {{Type: regex, Pattern: "DONE"}}
"#
    )
}

const SCRIPT: &str = r#"
agents:
  Worker:
    - calls:
        - {tool: mcp__standin__echo, args: {text: "hello from the stand-in"}}
        - {tool: mcp__standin__fail, args: {}}
        - {tool: mcp__standin__flood, args: {bytes: 500000}}
        - {tool: mcp__standin__hang, args: {}}
    - text: "DONE"
"#;

fn go(server_yaml: &str) -> (Result<vouch_pipeline::Summary, RunError>, Project) {
    let p = Project::new();
    p.write("pipeline.yaml", &pipeline(server_yaml));
    p.write("script.yaml", SCRIPT);
    let config = RunConfig::load(&p.path().join("pipeline.yaml")).unwrap();
    let models = models::build(&config).unwrap();
    let summary = run(&config, &models, &p.options("use the tools"), &mut |_| {});
    (summary, p)
}

fn check(summary: &vouch_pipeline::Summary) {
    assert!(
        matches!(summary.ended, Ended::Terminated { .. }),
        "{:?}",
        summary.ended
    );
    let session = std::fs::read_to_string(&summary.session).unwrap();
    for tool in [
        "mcp__standin__echo",
        "mcp__standin__fail",
        "mcp__standin__flood",
        "mcp__standin__hang",
    ] {
        assert!(session.contains(tool), "{tool} not in the session");
    }
    assert!(session.contains("hello from the stand-in"));
    assert!(session.contains("[TIMEOUT]"), "the hung call timed out");
    assert!(
        session.contains("more characters cut"),
        "the flood was capped"
    );
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary.change_log).unwrap()).unwrap();
    let calls = log
        .pointer("/Entries/0/ToolCalls")
        .cloned()
        .unwrap_or_default();
    let text = calls.to_string();
    assert!(text.contains("mcp__standin__echo"), "{log}");
    assert!(calls.as_array().is_some_and(|c| c.len() == 4), "{calls}");
    assert_eq!(calls[1]["IsError"], true, "{calls}");
    assert_eq!(calls[0]["IsError"], false, "{calls}");
}

#[test]
fn a_stdio_server_s_calls_are_evidence() {
    let bin = vouch_standin::mcp::stdio_binary();
    let (summary, _p) = go(&format!(
        "    - {{Name: standin, Transport: stdio, Command: {}, TimeoutSeconds: 2}}",
        bin.display()
    ));
    check(&summary.unwrap());
}

#[test]
fn an_http_server_s_calls_are_evidence() {
    let server = vouch_standin::mcp::http();
    let (summary, _p) = go(&format!(
        "    - {{Name: standin, Transport: http, Url: \"{}/mcp\", TimeoutSeconds: 2}}",
        server.url()
    ));
    check(&summary.unwrap());
}

#[test]
fn a_server_that_cannot_start_is_an_error_naming_it() {
    let bin = vouch_standin::mcp::stdio_binary();
    let (summary, _p) = go(&format!(
        "    - {{Name: standin, Command: {}, Args: [--exit-at-start]}}",
        bin.display()
    ));
    let err = summary.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err.contains("the MCP server `standin` could not be used"),
        "{err}"
    );
}
