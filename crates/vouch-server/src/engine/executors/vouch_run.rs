//! `vouch.run`: a pipeline run (`vouch run`) as a task, so runs are spread over the workers of a
//! shared store like any task. Each runs in a working folder of its own (`.vouch/work/<task
//! id>` unless `workdir` names one), into which `template` (a project folder) is copied first;
//! its summary — turns, verdicts, how it ended — is the task's result.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::vouch_child::{run_vouch, task_folder};
use super::{Executor, Job, failed, need_seconds, need_string, seconds, string};
use crate::store::Outcome;

/// `vouch.run`.
#[derive(Debug)]
pub(super) struct VouchRun;

impl Executor for VouchRun {
    fn method(&self) -> &'static str {
        "vouch.run"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "config", true, &mut out);
        for key in ["task", "workdir", "template", "model_endpoint"] {
            need_string(inputs, key, false, &mut out);
        }
        need_seconds(inputs, "timeout", &mut out);
        for key in ["max_turns", "max_tokens"] {
            if inputs
                .get(key)
                .is_some_and(|v| !v.is_null() && v.as_u64().is_none_or(|n| n == 0))
            {
                out.push((
                    format!("inputs.{key}"),
                    format!("`{key}` must be a positive whole number"),
                ));
            }
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let inputs = &job.task.inputs;
        let Some(config) = string(inputs, "config") else {
            return failed("inputs.config is required", Value::Null);
        };
        let workdir = match string(inputs, "workdir") {
            Some(w) => PathBuf::from(w),
            None => match task_folder(job) {
                Ok(d) => d,
                Err(e) => return failed(e, Value::Null),
            },
        };
        if let Some(template) = string(inputs, "template")
            && let Err(e) = vouch_process::copy_dir(std::path::Path::new(template), &workdir)
        {
            return failed(
                format!(
                    "cannot copy the template {template} into {}: {e}",
                    workdir.display()
                ),
                Value::Null,
            );
        }
        let mut args = vec![
            "run".to_owned(),
            config.to_owned(),
            "--workdir".to_owned(),
            workdir.to_string_lossy().into_owned(),
        ];
        if let Some(task) = string(inputs, "task") {
            args.extend(["--task".to_owned(), task.to_owned()]);
        }
        if let Some(url) = string(inputs, "model_endpoint") {
            args.extend(["--model-endpoint".to_owned(), url.to_owned()]);
        }
        for (key, flag) in [("max_turns", "--max-turns"), ("max_tokens", "--max-tokens")] {
            if let Some(n) = inputs.get(key).and_then(Value::as_u64) {
                args.extend([flag.to_owned(), n.to_string()]);
            }
        }
        run_vouch(job, &args, None, seconds(inputs, "timeout", 3600.0))
    }
}
