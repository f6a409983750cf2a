//! Conversations with tools over OpenAI's chat completions (and every server that speaks
//! them): `tools` as functions, `tool_calls` on the assistant's message, results as `tool`
//! messages answering a `tool_call_id`.

use serde_json::{Value, json};

use crate::chat::{ChatMessage, ChatReply, ChatRequest, ToolCallRequest};
use crate::client::Usage;
use crate::error::Error;
use crate::http::Transport;

/// Returns the request body of one step.
pub(crate) fn body(request: &ChatRequest, model: &str) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for m in &request.messages {
        messages.push(match m {
            ChatMessage::User { text } => json!({"role": "user", "content": text}),
            ChatMessage::Assistant { text, calls } if calls.is_empty() => {
                json!({"role": "assistant", "content": text})
            }
            ChatMessage::Assistant { text, calls } => json!({
                "role": "assistant",
                "content": if text.is_empty() { Value::Null } else { Value::String(text.clone()) },
                "tool_calls": calls.iter().map(|c| json!({
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments.to_string()},
                })).collect::<Vec<_>>(),
            }),
            ChatMessage::Tool {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        });
    }
    let mut body = json!({"model": model, "messages": messages, "max_tokens": request.max_tokens});
    if !request.tools.is_empty() && request.tool_choice != crate::chat::ToolChoice::None {
        if request.tool_choice == crate::chat::ToolChoice::Required {
            body["tool_choice"] = json!("required");
        }
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(effort) = &request.reasoning_effort {
        body["reasoning_effort"] = json!(effort);
    }
    body
}

/// Reads the answer to one step.
pub(crate) fn read(transport: &Transport, answer: &Value, model: &str) -> Result<ChatReply, Error> {
    let message = answer
        .pointer("/choices/0/message")
        .ok_or_else(|| transport.decode("no `choices[0].message` in the answer"))?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    };
    let mut calls = Vec::new();
    for (i, call) in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = call
            .pointer("/function/name")
            .and_then(Value::as_str)
            .ok_or_else(|| transport.decode(format!("tool call {i} has no function name")))?;
        // Arguments come as JSON text; text that is not JSON is passed on as a string, for
        // the tool to refuse.
        let arguments = match call.pointer("/function/arguments") {
            Some(Value::String(s)) => {
                serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
            }
            Some(other) => other.clone(),
            None => json!({}),
        };
        calls.push(ToolCallRequest {
            id: call
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("call_{i}"), str::to_owned),
            name: name.to_owned(),
            arguments,
        });
    }
    Ok(ChatReply {
        text,
        calls,
        usage: Usage::read(
            answer.get("usage"),
            &["prompt_tokens"],
            &["completion_tokens"],
        ),
        model: answer
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(model)
            .to_owned(),
    })
}
