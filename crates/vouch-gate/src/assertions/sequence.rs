//! `sequence:`: tool calls that must happen in this order (other calls may come between).

use std::fmt::Write as _;

use crate::assertions::call::{Scope, ToolMatch, show};
use crate::predicate::{GateContext, Predicate, Verdict};

/// An ordered subsequence of calls.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SequenceAssertion {
    /// The steps, in order.
    pub steps: Vec<ToolMatch>,
    /// `agent:` / `subagent:`.
    pub scope: Scope,
}

impl SequenceAssertion {
    /// Returns the assertion that `steps` happen in order.
    pub fn new(steps: Vec<ToolMatch>, scope: Scope) -> SequenceAssertion {
        SequenceAssertion { steps, scope }
    }
}

impl Predicate for SequenceAssertion {
    fn name(&self) -> &'static str {
        "Sequence"
    }

    fn turns_needed(&self) -> Option<usize> {
        None
    }

    fn describe(&self) -> String {
        let steps: Vec<String> = self.steps.iter().map(ToolMatch::describe).collect();
        let mut out = format!("in order: {}", steps.join(" → "));
        if let Some(a) = &self.scope.agent {
            let _ = write!(out, " by agent {a}");
        }
        if let Some(s) = &self.scope.subagent {
            let _ = write!(out, " in subagent {s}");
        }
        out
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let calls = cx.view.all_calls();
        let index = cx.view.call_index();
        // Which tools each step names, looked up once per distinct tool.
        let tools: Vec<Vec<bool>> = self
            .steps
            .iter()
            .map(|s| s.tool.select(index, calls))
            .collect();
        let mut step = 0;
        let mut last = None;
        for (i, call) in calls.iter().enumerate() {
            if step == self.steps.len() {
                break;
            }
            if tools[step][index.tool_of[i]]
                && self.scope.includes(call)
                && self.steps[step].matches_args(call)
            {
                step += 1;
                last = Some(call);
            }
        }
        if step == self.steps.len() {
            return Verdict::Pass;
        }
        let missing = self.steps[step].describe();
        let message = match last {
            None => format!("the first step, {missing}, never happened"),
            Some(after) => format!(
                "{step} of {} steps happened; the next, {missing}, never came after {}",
                self.steps.len(),
                show(after)
            ),
        };
        Verdict::block(self.name(), message)
    }
}
