//! Scripted conversations with tools, served in a provider's wire format: each agent (known by
//! a phrase of its system prompt) answers its steps in order — text, tool calls, or both — the
//! way a model in a pipeline would.

use std::sync::Mutex;

use serde_json::{Value, json};

use crate::{Reply, Request};

/// Which provider's wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI chat completions: `tool_calls` on the message.
    OpenAi,
    /// Anthropic Messages: `tool_use` blocks.
    Anthropic,
}

/// One step of an agent: what it says and the tools it calls (name, arguments).
#[derive(Debug, Clone)]
pub struct Step {
    /// The text.
    pub text: String,
    /// The calls.
    pub calls: Vec<(String, Value)>,
}

impl Step {
    /// A step that says `text`.
    pub fn say(text: &str) -> Step {
        Step {
            text: text.to_owned(),
            calls: Vec::new(),
        }
    }

    /// A step that calls `tool` with `args`.
    pub fn call(tool: &str, args: Value) -> Step {
        Step {
            text: String::new(),
            calls: vec![(tool.to_owned(), args)],
        }
    }

    /// The step with one more call.
    #[must_use]
    pub fn and_call(mut self, tool: &str, args: Value) -> Step {
        self.calls.push((tool.to_owned(), args));
        self
    }
}

/// Returns a handler answering each agent's steps in order. An agent is the first whose
/// phrase its system prompt holds; a request of no agent, or past an agent's last step, is
/// answered 400.
pub fn conversation(
    wire: Wire,
    agents: Vec<(&str, Vec<Step>)>,
) -> impl Fn(&Request, usize) -> Reply + Send + Sync + 'static {
    let agents: Vec<(String, Vec<Step>)> = agents
        .into_iter()
        .map(|(phrase, steps)| (phrase.to_owned(), steps))
        .collect();
    let taken = Mutex::new(vec![0usize; agents.len()]);
    move |request, _| {
        let body = request.json();
        let system = match wire {
            Wire::Anthropic => body["system"].as_str().unwrap_or_default().to_owned(),
            Wire::OpenAi => body["messages"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["role"] == "system"))
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_owned(),
        };
        let Some(i) = agents
            .iter()
            .position(|(phrase, _)| system.contains(phrase))
        else {
            return Reply::text(400, "no scripted agent has this system prompt");
        };
        let n = {
            let mut taken = taken
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            taken[i] += 1;
            taken[i] - 1
        };
        let Some(step) = agents[i].1.get(n) else {
            return Reply::text(400, "the scripted agent has no more steps");
        };
        Reply::json(200, &render(wire, step, &format!("{i}-{n}")))
    }
}

/// Returns `step` as the provider's answer body.
fn render(wire: Wire, step: &Step, tag: &str) -> Value {
    match wire {
        Wire::OpenAi => {
            let calls: Vec<Value> = step
                .calls
                .iter()
                .enumerate()
                .map(|(k, (name, args))| {
                    json!({"id": format!("call_{tag}_{k}"), "type": "function",
                           "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            let mut message = json!({"role": "assistant", "content": step.text});
            if !calls.is_empty() {
                message["tool_calls"] = Value::Array(calls);
            }
            json!({
                "id": "chatcmpl-standin", "object": "chat.completion", "model": "standin-model",
                "choices": [{"index": 0, "message": message,
                             "finish_reason": if step.calls.is_empty() { "stop" } else { "tool_calls" }}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            })
        }
        Wire::Anthropic => {
            let mut content = Vec::new();
            if !step.text.is_empty() {
                content.push(json!({"type": "text", "text": step.text}));
            }
            for (k, (name, args)) in step.calls.iter().enumerate() {
                content.push(json!({"type": "tool_use", "id": format!("toolu_{tag}_{k}"), "name": name, "input": args}));
            }
            json!({
                "id": "msg_standin", "type": "message", "role": "assistant", "model": "standin-claude",
                "content": content,
                "stop_reason": if step.calls.is_empty() { "end_turn" } else { "tool_use" },
                "usage": {"input_tokens": 100, "output_tokens": 20}
            })
        }
    }
}
