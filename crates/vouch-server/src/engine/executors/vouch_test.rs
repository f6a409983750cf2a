//! `vouch.test`: an agent-test suite (`vouch test`) as a task, so suites are spread over the
//! workers of a shared store like any task. Its report — each test with its assertions and
//! verdict — is the task's result; a failing test fails the task.

use std::path::Path;

use serde_json::{Map, Value};

use super::vouch_child::run_vouch;
use super::{Executor, Job, failed, need_seconds, need_string, seconds, string};
use crate::store::Outcome;

/// `vouch.test`.
#[derive(Debug)]
pub(super) struct VouchTest;

impl Executor for VouchTest {
    fn method(&self) -> &'static str {
        "vouch.test"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "path", true, &mut out);
        for key in ["filter", "cwd"] {
            need_string(inputs, key, false, &mut out);
        }
        need_seconds(inputs, "timeout", &mut out);
        if inputs
            .get("jobs")
            .is_some_and(|v| !v.is_null() && v.as_u64().is_none_or(|n| n == 0))
        {
            out.push((
                "inputs.jobs".into(),
                "`jobs` must be a positive whole number".into(),
            ));
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let inputs = &job.task.inputs;
        let Some(path) = string(inputs, "path") else {
            return failed("inputs.path is required", Value::Null);
        };
        let mut args = vec!["test".to_owned(), path.to_owned()];
        if let Some(filter) = string(inputs, "filter") {
            args.extend(["--filter".to_owned(), filter.to_owned()]);
        }
        if let Some(n) = inputs.get("jobs").and_then(Value::as_u64) {
            args.extend(["--jobs".to_owned(), n.to_string()]);
        }
        let cwd = string(inputs, "cwd").map(Path::new);
        run_vouch(job, &args, cwd, seconds(inputs, "timeout", 3600.0))
    }
}
