//! Routing decisions on a long history, and linting a large configuration.
//!
//! `decide_on_10k_messages`: a four-agent history of 10,000 events (2,500 replies, each a user
//! message, a shell call, its result and a text), whose last reply is the Developer handing
//! off with a write and a build; the route runs two validators and a contract (a file list
//! read from the brief, a command pattern checked against the change log). The session is
//! built once; each iteration is one `Router::decide`, the gates' file reads included.
//!
//! `lint_500_routes`: `lint` (YAML parse included) on a generated configuration of 500 routes
//! over 500 declared agents, 50 contracts and a composite termination.
//!
//! Run: `cargo bench -p vouch-gate --bench router`.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::json;
use vouch_gate::{GateSet, History, Router, RouterState, lint, parse_config};
use vouch_session::{
    Actor, Args, EventKind, Message, Outcome, Output, Role, Session, ToolCall, ToolKind, ToolResult,
};

fn main() {
    divan::main();
}

const PIPELINE: &str = r#"
Contracts:
  - Name: Implemented
    Requires:
      - FilesWritten: {Source: brief.json, Field: files_to_change}
      - CommandSucceeded: {Pattern: "cargo build && cargo test"}
Selection:
  Type: keyword
  Routes:
    - {Keyword: "HANDOFF TO DEVELOPER", Agent: Developer, SourceAgents: [Planner], Validator: RequireBrief}
    - Keyword: "HANDOFF TO TESTER"
      Agent: Tester
      Validators: [RequireWriteFile, RequireShellPass]
      RequiredCommandPattern: "cargo build|cargo test"
      Contracts: [Implemented]
      SourceAgents: [Developer]
    - {Keyword: "BUGS FOUND", Agent: Developer, SourceAgents: [Tester]}
    - {Keyword: "HANDOFF TO REVIEWER", Agent: Reviewer, SourceAgents: [Tester], Validator: TestReportValid}
    - {Keyword: APPROVED, Agent: Reviewer, SourceAgents: [Reviewer], Validators: [RequireShellPass, RequireReviewJudgement]}
Termination:
  Type: composite
  Strategies:
    - {Type: regex, Pattern: '(?m)^\s*APPROVED\s*$', AgentNames: [Reviewer]}
    - {Type: maxiterations, MaxIterations: 100000}
"#;

struct Fixture {
    _dir: tempfile::TempDir,
    work: std::path::PathBuf,
    router: Router,
    session: Session,
}

fn actor(role: Role, name: Option<&str>) -> Actor {
    Actor {
        role,
        name: name.map(Into::into),
    }
}

fn say(session: &mut Session, role: Role, name: Option<&str>, text: String) {
    session.push(actor(role, name), EventKind::Message(Message { text }));
}

/// A call by `agent` and its successful result.
fn call(session: &mut Session, agent: &str, id: String, kind: ToolKind, args: serde_json::Value) {
    let name = if kind == ToolKind::Shell {
        "shell_run"
    } else {
        "write_file"
    };
    let call = ToolCall {
        call_id: id.clone(),
        name: name.into(),
        kind,
        args: Args::from_value(args),
    };
    session.push(
        actor(Role::Assistant, Some(agent)),
        EventKind::ToolCall(call),
    );
    let result = ToolResult {
        call_id: id,
        output: Output::inline("ok"),
        outcome: Outcome::Ok,
    };
    session.push(actor(Role::Tool, None), EventKind::ToolResult(result));
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let work = dir.path().to_owned();
        std::fs::write(
            work.join("brief.json"),
            r#"{"files_to_change": ["src/a.rs", "src/b.rs"]}"#,
        )
        .expect("the brief");
        let router = Router::new(GateSet::new(
            parse_config(Path::new("pipeline.yaml"), PIPELINE).expect("the bench pipeline"),
        ));
        let agents = ["Planner", "Developer", "Tester", "Reviewer"];
        let mut session = Session::default();
        for i in 0..2_499 {
            let agent = agents[i % 4];
            say(&mut session, Role::User, None, format!("step {i}"));
            let command = json!({"command": format!("cargo test case_{i}")});
            call(
                &mut session,
                agent,
                format!("c{i}"),
                ToolKind::Shell,
                command,
            );
            let text = format!("Reply {i}.\nNot done yet.");
            say(&mut session, Role::Assistant, Some(agent), text);
        }
        say(&mut session, Role::User, None, "Implement it.".into());
        for (id, path) in [("w1", "src/a.rs"), ("w2", "src/b.rs")] {
            let args = json!({"path": path, "content": "x"});
            call(
                &mut session,
                "Developer",
                id.into(),
                ToolKind::WriteFile,
                args,
            );
        }
        let build = json!({"command": "cargo build && cargo test"});
        call(
            &mut session,
            "Developer",
            "s1".into(),
            ToolKind::Shell,
            build,
        );
        let text = "Done.\nHANDOFF TO TESTER".to_owned();
        say(&mut session, Role::Assistant, Some("Developer"), text);
        Fixture {
            _dir: dir,
            work,
            router,
            session,
        }
    })
}

#[divan::bench]
fn decide_on_10k_messages(bencher: divan::Bencher<'_, '_>) {
    let f = fixture();
    assert!(f.session.events.len() >= 10_000);
    let state = RouterState::default();
    bencher.bench(|| {
        let routed = f
            .router
            .decide(&History::new(&f.session, &f.work), &state)
            .expect("a reply");
        assert_eq!(routed.decision.name(), "route", "{:?}", routed.decision);
        routed
    });
}

fn big_config() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut y = String::from("Orchestration:\n  Agents:\n");
        for i in 0..=500 {
            let _ = writeln!(y, "    - Name: Agent{i}");
        }
        y.push_str("  Contracts:\n");
        for c in 0..50 {
            let _ = writeln!(
                y,
                "    - Name: C{c}\n      Requires:\n        - CommandSucceeded: {{Pattern: \"make t{c} && make c{c}|ninja\"}}\n        - FileExists: {{Path: out/{c}.txt}}"
            );
        }
        y.push_str("  Selection:\n    Type: keyword\n    Routes:\n");
        for i in 0..500 {
            let _ = writeln!(
                y,
                "      - Keyword: \"HANDOFF TO AGENT{}\"\n        Agent: Agent{}\n        Validators: [RequireWriteFile, RequireShellPass]\n        RequiredCommandPattern: \"cargo test|go test\"\n        Contracts: [C{}]\n        SourceAgents: [Agent{i}]",
                i + 1,
                i + 1,
                i % 50
            );
        }
        y.push_str("  Termination:\n    Type: composite\n    Strategies:\n      - {Type: regex, Pattern: '(?m)^DONE$', AgentNames: [Agent500]}\n      - {Type: maxiterations, MaxIterations: 1000}\n");
        y
    })
}

#[divan::bench]
fn lint_500_routes(bencher: divan::Bencher<'_, '_>) {
    let text = big_config();
    bencher.bench(|| {
        let problems = lint(Path::new("big.yaml"), text);
        assert!(problems.errors.is_empty(), "{problems}");
        problems
    });
}
