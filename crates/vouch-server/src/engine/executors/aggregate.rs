//! `aggregate_results`: the results of a task's dependencies, by id.

use serde_json::{Map, Value, json};

use super::{Executor, Job};
use crate::store::Outcome;

/// `aggregate_results`: the results of the task's dependencies, by id.
#[derive(Debug)]
pub(super) struct Aggregate;

impl Executor for Aggregate {
    fn method(&self) -> &'static str {
        "aggregate_results"
    }

    fn check(&self, _inputs: &Map<String, Value>) -> Vec<(String, String)> {
        Vec::new()
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let results: Map<String, Value> = job
            .dependencies
            .iter()
            .map(|(id, _, result)| (id.clone(), result.clone().unwrap_or(Value::Null)))
            .collect();
        Outcome::Completed(json!({"results": results, "count": results.len()}))
    }
}
