//! Anthropic's Messages API, with the reply forced into a tool call when a schema is given.

use serde_json::{Value, json};

use crate::chat::{ChatReply, ChatRequest};
use crate::client::{BoxFuture, ModelClient, Reply, Request, Usage};
use crate::error::Error;
use crate::http::Transport;

/// The API version sent as `anthropic-version`.
const API_VERSION: &str = "2023-06-01";

/// A client of `POST {base_url}/v1/messages`.
#[derive(Debug)]
pub struct Anthropic {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    transport: Transport,
}

impl Anthropic {
    /// Returns a client of the API at `base_url` (`https://api.anthropic.com`).
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        model: Option<String>,
        transport: Transport,
    ) -> Anthropic {
        Anthropic {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            model,
            transport,
        }
    }

    /// Returns the model to ask: the request's, else the client's; `missing` says what to give
    /// when there is neither.
    fn model_of<'a>(&'a self, requested: Option<&'a str>, missing: &str) -> Result<&'a str, Error> {
        requested
            .or(self.model.as_deref())
            .ok_or_else(|| Error::Config(format!("no model to ask Anthropic: {missing}")))
    }

    /// Returns the headers every request carries: the API version, and the key when there is
    /// one.
    fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = vec![("anthropic-version", API_VERSION.to_owned())];
        if let Some(key) = &self.api_key {
            headers.push(("x-api-key", key.clone()));
        }
        headers
    }

    async fn ask(&self, request: &Request) -> Result<Reply, Error> {
        let model = self.model_of(request.model.as_deref(), "give the grader a `model`")?;
        let mut body = json!({
            "model": model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": "user", "content": request.prompt}],
        });
        if let Some(system) = &request.system {
            body["system"] = json!(system);
        }
        if let Some(s) = &request.schema {
            body["tools"] =
                json!([{"name": s.name, "description": s.description, "input_schema": s.schema}]);
            body["tool_choice"] = json!({"type": "tool", "name": s.name});
        }
        let url = format!("{}/v1/messages", self.base_url);
        let answer = self
            .transport
            .post_json(&url, &self.headers(), &body)
            .await?;
        let blocks = answer
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| self.transport.decode("no `content` in the answer"))?;
        let usage = Usage::anthropic(answer.get("usage"));
        let answered = answer
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(model)
            .to_owned();
        if let Some(s) = &request.schema
            && let Some(input) = blocks.iter().find_map(|b| {
                (b.get("type").and_then(Value::as_str) == Some("tool_use")
                    && b.get("name").and_then(Value::as_str) == Some(s.name.as_str()))
                .then(|| b.get("input"))
                .flatten()
            })
        {
            return Ok(Reply {
                text: input.to_string(),
                model: answered,
                structured: true,
                usage,
            });
        }
        let text: String = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("");
        if text.trim().is_empty() {
            return Err(self
                .transport
                .decode("the answer has neither the forced tool call nor text"));
        }
        Ok(Reply {
            text,
            model: answered,
            structured: false,
            usage,
        })
    }
}

impl ModelClient for Anthropic {
    fn kind(&self) -> &'static str {
        "anthropic"
    }

    fn default_model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Reply, Error>> {
        Box::pin(self.ask(request))
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatReply, Error>> {
        Box::pin(async move {
            let model = self.model_of(request.model.as_deref(), "give it a `Model`")?;
            let url = format!("{}/v1/messages", self.base_url);
            let answer = self
                .transport
                .post_json(
                    &url,
                    &self.headers(),
                    &crate::anthropic_chat::body(request, model),
                )
                .await?;
            crate::anthropic_chat::read(&self.transport, &answer, model)
        })
    }
}
