//! Conversations with tools over Anthropic's Messages API: `tools` with an `input_schema`,
//! `tool_use` blocks in the assistant's content, results as `tool_result` blocks of the next
//! user message. Roles must alternate, so consecutive messages of one role are merged.

use serde_json::{Value, json};

use crate::chat::{ChatMessage, ChatReply, ChatRequest, ToolCallRequest};
use crate::client::Usage;
use crate::error::Error;
use crate::http::Transport;

/// Returns the request body of one step.
pub(crate) fn body(request: &ChatRequest, model: &str) -> Value {
    let mut messages: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in &request.messages {
        let (role, blocks) = match m {
            ChatMessage::User { text } => ("user", vec![json!({"type": "text", "text": text})]),
            ChatMessage::Assistant { text, calls } => {
                let mut blocks = Vec::new();
                if !text.trim().is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                blocks.extend(calls.iter().map(|c| {
                    json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments})
                }));
                ("assistant", blocks)
            }
            ChatMessage::Tool {
                call_id, content, ..
            } => (
                "user",
                vec![json!({"type": "tool_result", "tool_use_id": call_id, "content": content})],
            ),
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    let mut body = json!({
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": messages
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect::<Vec<_>>(),
    });
    if let Some(system) = &request.system {
        body["system"] = json!(system);
    }
    if !request.tools.is_empty() && request.tool_choice != crate::chat::ToolChoice::None {
        if request.tool_choice == crate::chat::ToolChoice::Required {
            body["tool_choice"] = json!({"type": "any"});
        }
        body["tools"] = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    body
}

/// Reads the answer to one step.
pub(crate) fn read(transport: &Transport, answer: &Value, model: &str) -> Result<ChatReply, Error> {
    let blocks = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| transport.decode("no `content` in the answer"))?;
    let mut reply = ChatReply {
        usage: Usage::anthropic(answer.get("usage")),
        model: answer
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(model)
            .to_owned(),
        ..ChatReply::default()
    };
    for (i, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                reply.text.push_str(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                );
            }
            Some("tool_use") => reply.calls.push(ToolCallRequest {
                id: block
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("toolu_{i}"), str::to_owned),
                name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| transport.decode(format!("tool_use block {i} has no name")))?
                    .to_owned(),
                arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            // Thinking and other blocks carry nothing the run acts on.
            _ => {}
        }
    }
    Ok(reply)
}
