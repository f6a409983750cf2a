//! The router, played through the scripted conversations of `tests/router/scenarios/` (see
//! `tests/router/README.md`), plus the properties every history must keep: no panic, and the
//! same decision for the same inputs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};
use vouch_evidence::{NewCommand, NewTurn};
use vouch_gate::{Decision, GateSet, History, Router, RouterState, parse_config};
use vouch_session::{
    Actor, Args, EventKind, Message, ReadOptions, Role, Session, ToolCall, ToolKind,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    description: String,
    config: PathBuf,
    #[serde(default)]
    project: bool,
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    user: Option<String>,
    agent: Option<String>,
    #[serde(default)]
    tools: Vec<Tool>,
    says: Option<String>,
    expect: Option<Expect>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Tool {
    WriteFile {
        path: String,
        content: String,
    },
    ShellRun {
        command: String,
        #[serde(default)]
        exit: i64,
        #[serde(default)]
        output: String,
    },
    Handoff {
        route_keyword: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    decision: String,
    to: Option<String>,
    keyword: Option<String>,
    kind: Option<String>,
    validator: Option<String>,
    message_starts: Option<String>,
    message_contains: Option<String>,
    consecutive: Option<u32>,
    failures: Option<u32>,
    reason_contains: Option<String>,
    #[serde(default)]
    repeat: bool,
}

fn router_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/router")
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Plays one scenario; returns the transcript of its decisions, or the first mismatch.
fn play(file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file).unwrap();
    let scenario: Scenario =
        serde_saphyr::from_str(&text).map_err(|e| format!("bad scenario: {e}"))?;
    let config = file.parent().unwrap().join(&scenario.config);
    let router = Router::load(&config).map_err(|e| format!("{e}"))?;
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    if scenario.project {
        copy_dir(&router_dir().join("project"), &work);
    }
    let changes = work.join(&router.gates().config().validation().paths.change_log);
    let history_path = dir.path().join("history.json");
    let mut messages: Vec<Value> = Vec::new();
    let mut state = RouterState::default();
    let mut transcript = format!("# {}\n", scenario.description);
    for (n, step) in scenario.steps.iter().enumerate() {
        if let Some(text) = &step.user {
            messages.push(json!({"role": "user", "content": text}));
            continue;
        }
        let agent = step
            .agent
            .as_deref()
            .ok_or(format!("step {n}: neither user nor agent"))?;
        let mut calls = Vec::new();
        let mut results = Vec::new();
        let mut turn = NewTurn::default();
        agent.clone_into(&mut turn.agent);
        turn.activate = true;
        for (i, tool) in step.tools.iter().enumerate() {
            let id = format!("call_{n}_{i}");
            let (name, args, output) = match tool {
                Tool::WriteFile { path, content } => {
                    let target = work.join(path);
                    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                    std::fs::write(&target, content).unwrap();
                    turn.files_written.push(path.clone());
                    (
                        "write_file",
                        json!({"path": path, "content": content}),
                        format!("wrote {} bytes", content.len()),
                    )
                }
                Tool::ShellRun {
                    command,
                    exit,
                    output,
                } => {
                    turn.commands
                        .push(NewCommand::new(command, Some(*exit), output));
                    let shown = if *exit == 0 {
                        output.clone()
                    } else {
                        format!("[EXIT {exit}] {output}")
                    };
                    ("shell_run", json!({"command": command}), shown)
                }
                Tool::Handoff { route_keyword } => (
                    "handoff",
                    json!({"route_keyword": route_keyword}),
                    "ok".to_owned(),
                ),
            };
            calls.push(json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}));
            results.push(json!({"role": "tool", "tool_call_id": id, "content": output}));
        }
        if !calls.is_empty() {
            messages.push(
                json!({"role": "assistant", "name": agent, "content": null, "tool_calls": calls}),
            );
            messages.extend(results);
            vouch_evidence::append(&changes, &turn).unwrap();
        }
        if let Some(says) = &step.says {
            messages.push(json!({"role": "assistant", "name": agent, "content": says}));
        }
        let Some(expect) = &step.expect else { continue };
        std::fs::write(
            &history_path,
            serde_json::to_string_pretty(&messages).unwrap(),
        )
        .unwrap();
        let session = vouch_session::read_path(&history_path, &ReadOptions::default())
            .unwrap()
            .session;
        let history = History::new(&session, &work);
        let routed = router
            .decide(&history, &state)
            .map_err(|e| format!("step {n}: {e}"))?;
        let _ = writeln!(
            transcript,
            "\n## step {n}: {agent} (reply {})\n{}",
            routed.iteration,
            serde_json::to_string_pretty(&routed.decision).unwrap()
        );
        check(&routed.decision, expect)
            .map_err(|e| format!("step {n} ({agent}): {e}\ndecision: {:#?}", routed.decision))?;
        if expect.repeat {
            let again = router.decide(&history, &routed.state).unwrap();
            if !again.repeated || again.decision != routed.decision || again.state != routed.state {
                return Err(format!(
                    "step {n}: deciding the same reply again changed something: {again:#?}"
                ));
            }
        }
        // The state survives its JSON file.
        state = RouterState::from_json(&routed.state.to_json()).unwrap();
        assert_eq!(state, routed.state);
        if let Decision::Correct { message, .. } = &routed.decision {
            messages.push(json!({"role": "user", "content": message}));
        }
    }
    Ok(transcript)
}

fn check(decision: &Decision, e: &Expect) -> Result<(), String> {
    let mismatch = |what: &str, want: &dyn std::fmt::Debug, got: &dyn std::fmt::Debug| {
        Err(format!("{what}: expected {want:?}, got {got:?}"))
    };
    if decision.name() != e.decision {
        return mismatch("decision", &e.decision, &decision.name());
    }
    let starts = |m: &str| match &e.message_starts {
        Some(s) if !m.starts_with(s.as_str()) => mismatch("message start", s, &m),
        _ => Ok(()),
    };
    let contains = |m: &str| match &e.message_contains {
        Some(s) if !m.contains(s.as_str()) => mismatch("message", s, &m),
        _ => Ok(()),
    };
    match decision {
        Decision::Route { to, keyword, .. } => {
            if e.to.is_some() && &e.to != to {
                return mismatch("to", &e.to, to);
            }
            if let Some(k) = &e.keyword
                && k != keyword
            {
                return mismatch("keyword", k, keyword);
            }
        }
        Decision::Correct {
            kind,
            validator,
            message,
            consecutive,
            ..
        } => {
            let kind = serde_json::to_value(kind).unwrap();
            if let Some(k) = &e.kind
                && kind != json!(k)
            {
                return mismatch("kind", k, &kind);
            }
            if e.validator.is_some() && &e.validator != validator {
                return mismatch("validator", &e.validator, validator);
            }
            if let Some(c) = e.consecutive
                && c != *consecutive
            {
                return mismatch("consecutive", &c, consecutive);
            }
            starts(message)?;
            contains(message)?;
        }
        Decision::Terminate { reason } => {
            if let Some(r) = &e.reason_contains
                && !reason.contains(r.as_str())
            {
                return mismatch("reason", r, reason);
            }
        }
        Decision::Stuck {
            validator,
            failures,
            last_message,
            ..
        } => {
            if let Some(v) = &e.validator
                && v != validator
            {
                return mismatch("validator", v, validator);
            }
            if let Some(f) = e.failures
                && f != *failures
            {
                return mismatch("failures", &f, failures);
            }
            starts(last_message)?;
            contains(last_message)?;
        }
    }
    Ok(())
}

#[test]
fn scripted_conversations() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(router_dir().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the scenarios are missing: {files:?}");
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        match play(file) {
            Ok(transcript) => insta::assert_snapshot!(format!("router_{name}"), transcript),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A config every random history is routed with.
const CONFIG: &str = r#"
Contracts:
  - Name: Ran
    Requires: [{CommandSucceeded: {Pattern: "make"}}]
Selection:
  Type: keyword
  StuckThreshold: 2
  Routes:
    - {Keyword: "GO B", Agent: B, SourceAgents: [A], Validator: RequireShellPass}
    - {Keyword: "GO A", Agent: A, SourceAgents: [B], Contracts: [Ran]}
    - {Keyword: "DONE", Agent: A}
Termination:
  Type: composite
  Strategies:
    - {Type: regex, Pattern: "(?m)^FIN$", AgentNames: [B], Validator: RequireWriteFile}
    - {Type: maxiterations, MaxIterations: 6}
"#;

fn arb_event() -> impl Strategy<Value = (u8, u8, String)> {
    let text = prop_oneof![
        Just("GO B".to_owned()),
        Just("**go a**".to_owned()),
        Just("DONE\nGO B".to_owned()),
        Just("FIN".to_owned()),
        Just("```\nGO A\n```".to_owned()),
        "[ -~\n]{0,20}",
    ];
    (0u8..5, 0u8..3, text)
}

fn history(items: &[(u8, u8, String)]) -> Session {
    let names = [None, Some("A"), Some("B")];
    let mut session = Session::default();
    for (i, (what, who, text)) in items.iter().enumerate() {
        let name = names[usize::from(*who)].map(str::to_owned);
        let call = |name: &str, args: Value| {
            EventKind::ToolCall(ToolCall {
                call_id: format!("c{i}"),
                name: name.to_owned().into(),
                kind: if name == "handoff" {
                    ToolKind::Other
                } else {
                    ToolKind::Shell
                },
                args: Args::from_value(args),
            })
        };
        let (role, kind) = match what {
            0 => (
                Role::User,
                EventKind::Message(Message { text: text.clone() }),
            ),
            1 | 2 => (
                Role::Assistant,
                EventKind::Message(Message { text: text.clone() }),
            ),
            3 => (Role::Assistant, call("shell_run", json!({"command": text}))),
            _ => (
                Role::Assistant,
                call("handoff", json!({"route_keyword": text})),
            ),
        };
        session.push(
            Actor {
                role,
                name: name.map(String::into_boxed_str),
            },
            kind,
        );
    }
    session
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_histories_never_panic_and_decide_deterministically(
        items in proptest::collection::vec(arb_event(), 0..24),
        counters in proptest::collection::btree_map("[AB]?", 0u32..3, 0..3),
    ) {
        let router = Router::new(GateSet::new(parse_config(Path::new("p.yaml"), CONFIG).unwrap()));
        let dir = tempfile::tempdir().unwrap();
        let session = history(&items);
        let mut state = RouterState::default();
        let counters: BTreeMap<String, u32> = counters;
        for (agent, n) in counters {
            let mut c = vouch_gate::StuckCounter::default();
            for _ in 0..n {
                c.correct("x", "m", 10);
            }
            state.counters.insert(agent, c);
        }
        let first = router.decide(&History::new(&session, dir.path()), &state);
        let second = router.decide(&History::new(&session, dir.path()), &state);
        prop_assert_eq!(&first, &second);
        if let Ok(routed) = first {
            // Deciding the decided reply again changes nothing.
            let again = router.decide(&History::new(&session, dir.path()), &routed.state).unwrap();
            prop_assert!(again.repeated);
            prop_assert_eq!(again.decision, routed.decision);
            prop_assert_eq!(again.state, routed.state);
        }
    }
}
