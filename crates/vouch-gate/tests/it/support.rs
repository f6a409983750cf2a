//! A session builder and a harness that evaluates one route's validators in a temporary
//! project.

use std::path::Path;

use serde_json::{Value, json};
use vouch_evidence::EvidenceView;
use vouch_gate::{GateSet, Verdict};
use vouch_session::{
    Actor, Args, EventKind, Message, Outcome, Output, Role, Session, ToolCall, ToolKind, ToolResult,
};

/// Builds a session event by event.
#[derive(Default)]
pub(crate) struct S {
    session: Session,
}

impl S {
    fn push(mut self, role: Role, kind: EventKind) -> S {
        self.session.push(Actor::new(role), kind);
        self
    }

    pub(crate) fn user(self, text: &str) -> S {
        self.push(
            Role::User,
            EventKind::Message(Message { text: text.into() }),
        )
    }

    pub(crate) fn say(self, text: &str) -> S {
        self.push(
            Role::Assistant,
            EventKind::Message(Message { text: text.into() }),
        )
    }

    pub(crate) fn call(self, id: &str, name: &str, kind: ToolKind, args: Value) -> S {
        let call = ToolCall {
            call_id: id.into(),
            name: name.to_owned().into(),
            kind,
            args: Args::from_value(args),
        };
        self.push(Role::Assistant, EventKind::ToolCall(call))
    }

    pub(crate) fn result(self, id: &str, outcome: Outcome, output: &str) -> S {
        let result = ToolResult {
            call_id: id.into(),
            output: Output::inline(output),
            outcome,
        };
        self.push(Role::Tool, EventKind::ToolResult(result))
    }

    /// A shell call and its result.
    pub(crate) fn shell(self, id: &str, command: &str, outcome: Outcome, output: &str) -> S {
        self.call(
            id,
            "shell_run",
            ToolKind::Shell,
            json!({ "command": command }),
        )
        .result(id, outcome, output)
    }

    /// A successful write of `path`.
    pub(crate) fn write(self, id: &str, path: &str) -> S {
        self.call(
            id,
            "write_file",
            ToolKind::WriteFile,
            json!({ "path": path, "content": "x" }),
        )
        .result(id, Outcome::Ok, "wrote")
    }

    pub(crate) fn session(self) -> Session {
        Session {
            id: "s".into(),
            ..self.session
        }
    }
}

pub(crate) fn failed(code: i32) -> Outcome {
    Outcome::Failed {
        exit_code: Some(code),
    }
}

/// A temporary project holding a pipeline configuration and artifacts.
pub(crate) struct Project {
    pub(crate) dir: tempfile::TempDir,
}

impl Project {
    /// A project whose configuration has one route of `keyword` with `route` (YAML of the
    /// route's other keys) and `extra` top-level sections.
    pub(crate) fn with_route(keyword: &str, route: &str, extra: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let route: String = route.lines().map(|l| format!("      {l}\n")).collect();
        let yaml = format!(
            "Selection:\n  Type: keyword\n  Routes:\n    - Keyword: \"{keyword}\"\n      Agent: Next\n{route}{extra}"
        );
        std::fs::write(dir.path().join("pipeline.yaml"), yaml).unwrap();
        Project { dir }
    }

    pub(crate) fn file(&self, rel: &str, content: &str) -> &Project {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
        self
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Evaluates the route of `keyword` on `session`.
    pub(crate) fn check(&self, keyword: &str, session: &Session) -> Verdict {
        let gates =
            GateSet::load(&self.dir.path().join("pipeline.yaml")).unwrap_or_else(|e| panic!("{e}"));
        let gate = gates.handoff(keyword, None).unwrap();
        let view = EvidenceView::new(
            session,
            self.dir.path(),
            gates.config().validation().paths.clone(),
        );
        gate.evaluate(&view)
    }
}

/// Returns the message of a block, or panics on a pass.
pub(crate) fn message(verdict: Verdict) -> String {
    match verdict {
        Verdict::Block(b) => format!("[{}]\n{}", b.validator, b.message),
        Verdict::Pass => panic!("expected a block, got a pass"),
    }
}

/// Asserts a pass.
pub(crate) fn passes(verdict: Verdict) {
    if let Verdict::Block(b) = verdict {
        panic!(
            "expected a pass, got a block by {}:\n{}",
            b.validator, b.message
        );
    }
}
