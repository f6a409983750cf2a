//! `vouch.gate`: a gate of a configuration, evaluated on a session log.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::{Executor, Job, failed, need_string, string};
use crate::store::Outcome;

/// `vouch.gate`: a gate of a configuration, evaluated on a session log.
#[derive(Debug)]
pub(super) struct GateCheck;

impl Executor for GateCheck {
    fn method(&self) -> &'static str {
        "vouch.gate"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "config", true, &mut out);
        need_string(inputs, "session", true, &mut out);
        for key in ["workdir", "keyword", "agent"] {
            need_string(inputs, key, false, &mut out);
        }
        if inputs
            .get("strict")
            .is_some_and(|v| !v.is_null() && !v.is_boolean())
        {
            out.push((
                "inputs.strict".into(),
                "`strict` must be true or false".into(),
            ));
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let inputs = &job.task.inputs;
        let (Some(config), Some(session)) = (string(inputs, "config"), string(inputs, "session"))
        else {
            return failed("inputs.config and inputs.session are required", Value::Null);
        };
        let strict = inputs
            .get("strict")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let gates = match vouch_gate::GateSet::load_with_strict(Path::new(config), strict) {
            Ok(g) => g,
            Err(errors) => {
                let problems: Vec<String> = errors
                    .errors
                    .iter()
                    .map(|e| format!("{}: {}", e.key_path, e.message))
                    .collect();
                return failed(
                    format!(
                        "the gate configuration {config} does not load: {}",
                        problems.join("; ")
                    ),
                    Value::Null,
                );
            }
        };
        let agent = string(inputs, "agent");
        let gate = match string(inputs, "keyword") {
            Some(k) => match gates.handoff(k, agent) {
                Some(g) => g,
                None => return failed(format!("no route takes `{k}` in {config}"), Value::Null),
            },
            None => gates.completion(agent),
        };
        let options = vouch_session::ReadOptions {
            last_turns: gate.turns_needed(),
            ..vouch_session::ReadOptions::default()
        };
        let read = match vouch_session::read_path(Path::new(session), &options) {
            Ok(r) => r,
            Err(e) => {
                return failed(
                    format!("cannot read the session {session}: {e}"),
                    Value::Null,
                );
            }
        };
        let workdir = string(inputs, "workdir").map_or_else(
            || {
                Path::new(config)
                    .parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            },
            PathBuf::from,
        );
        let view = vouch_evidence::EvidenceView::new(
            &read.session,
            workdir,
            gates.config().validation().paths.clone(),
        )
        .with_diagnostics(&read.diagnostics);
        match gate.evaluate(&view) {
            vouch_gate::Verdict::Pass => {
                Outcome::Completed(json!({"verdict": "pass", "validators": gate.names()}))
            }
            vouch_gate::Verdict::Block(b) => failed(
                b.message.clone(),
                json!({"verdict": "block", "validator": b.validator, "validators": gate.names()}),
            ),
        }
    }
}
