//! vouch's own JSONL format: writing, reading and writing again gives the same bytes, for
//! every reader's sessions and for arbitrary ones.

use proptest::prelude::*;
use serde_json::json;
use vouch_session::{
    Actor, Agent, Args, Event, EventKind, Message, Outcome, Output, ReadOptions, Role, Session,
    ToolCall, ToolKind, ToolResult, read_path, write_jsonl,
};

use crate::support::fixture;

/// Writes, reads and writes again; the returned folder holds the file the session was read
/// from, so keep it while loading outputs.
fn round_trip(session: &Session) -> (Vec<u8>, Session, Vec<u8>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.vouch.jsonl");
    let mut first = Vec::new();
    write_jsonl(session, &mut first).unwrap();
    std::fs::write(&path, &first).unwrap();
    let report = read_path(&path, &ReadOptions::default()).unwrap();
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let mut second = Vec::new();
    write_jsonl(&report.session, &mut second).unwrap();
    (first, report.session, second, dir)
}

#[test]
fn every_fixture_round_trips() {
    for rel in [
        "claude/tool-errors.jsonl",
        "claude/nested/n-1.jsonl",
        "claude/stream-json.jsonl",
        "codex/exec-end.jsonl",
        "codex/spawn/rollout-2026-01-03T04-05-06-22222222-2222-4222-8222-222222222222.jsonl",
        "chat/pipeline.json",
    ] {
        let original = read_path(&fixture(rel), &ReadOptions::default())
            .unwrap()
            .session;
        let (first, back, second, _dir) = round_trip(&original);
        assert_eq!(first, second, "{rel}");
        assert_eq!(back.walk().len(), original.walk().len(), "{rel}");
        for ((_, a), (_, b)) in original.walk().iter().zip(back.walk()) {
            assert_eq!(a.events.len(), b.events.len(), "{rel}");
            assert_eq!(
                (&a.id, &a.spawned_by, &a.name),
                (&b.id, &b.spawned_by, &b.name),
                "{rel}"
            );
        }
    }
}

#[test]
fn the_format_is_stable() {
    let session = Session {
        id: "s1".into(),
        agent: Agent::ClaudeCode,
        cwd: Some("/proj".into()),
        events: vec![
            Event {
                seq: 0,
                timestamp: Some("2026-01-01T00:00:00Z".parse().unwrap()),
                actor: Actor::new(Role::User),
                kind: EventKind::Message(Message {
                    text: "run it".into(),
                }),
                line: vouch_session::line_at(1),
            },
            Event {
                seq: 1,
                timestamp: None,
                actor: Actor::named(Role::Assistant, "Developer"),
                kind: EventKind::ToolCall(ToolCall {
                    call_id: "c1".into(),
                    name: "Bash".into(),
                    kind: ToolKind::Shell,
                    args: json!({"command": "cargo test"}).into(),
                }),
                line: vouch_session::line_at(2),
            },
            Event {
                seq: 2,
                timestamp: None,
                actor: Actor::new(Role::Tool),
                kind: EventKind::ToolResult(ToolResult {
                    call_id: "c1".into(),
                    output: Output::inline("1 failed"),
                    outcome: Outcome::Failed {
                        exit_code: Some(101),
                    },
                }),
                line: vouch_session::line_at(3),
            },
        ],
        subagents: vec![Session {
            id: "sub".into(),
            spawned_by: Some("c1".into()),
            ..Session::default()
        }],
        ..Session::default()
    };
    let mut out = Vec::new();
    write_jsonl(&session, &mut out).unwrap();
    insta::assert_snapshot!(String::from_utf8(out).unwrap());
}

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,20}",
        "\\PC{0,40}",
        "[\"\\\\\n\t]{0,10}",
        ".{600,700}"
    ]
}

fn arb_event() -> impl Strategy<Value = (u8, String, String, Option<i32>)> {
    (
        0u8..3,
        arb_text(),
        arb_text(),
        proptest::option::of(-5i32..300),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn arbitrary_sessions_round_trip(events in proptest::collection::vec(arb_event(), 0..12), name in proptest::option::of("[A-Za-z]{1,8}")) {
        let events: Vec<Event> = events
            .into_iter()
            .enumerate()
            .map(|(i, (kind, a, b, code))| {
                let kind = match kind {
                    0 => EventKind::Message(Message { text: a }),
                    1 => EventKind::ToolCall(ToolCall {
                        call_id: format!("c{i}"),
                        name: b.clone().into(),
                        kind: ToolKind::Other,
                        args: Args::from_value(json!({"text": a, "n": i})),
                    }),
                    _ => EventKind::ToolResult(ToolResult {
                        call_id: b,
                        output: Output::inline(a),
                        outcome: code.map_or(Outcome::Denied, |c| Outcome::Failed { exit_code: Some(c) }),
                    }),
                };
                Event { seq: u32::try_from(i).unwrap(), timestamp: None, actor: Actor { role: Role::Assistant, name: name.clone().map(String::into_boxed_str) }, kind, line: None }
            })
            .collect();
        let session = Session { id: "p".into(), agent: Agent::Codex, events, ..Session::default() };
        let (first, back, second, _dir) = round_trip(&session);
        prop_assert_eq!(first, second);
        prop_assert_eq!(back.events.len(), session.events.len());
        for (a, b) in session.events.iter().zip(&back.events) {
            match (&a.kind, &b.kind) {
                (EventKind::ToolResult(x), EventKind::ToolResult(y)) => {
                    prop_assert_eq!(x.outcome, y.outcome);
                    prop_assert_eq!(back.output_text(&y.output).unwrap(), x.output.text().unwrap());
                }
                (x, y) => prop_assert_eq!(x, y),
            }
        }
    }
}
