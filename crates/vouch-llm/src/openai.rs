//! OpenAI-compatible chat completions: OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::chat::{ChatReply, ChatRequest};
use crate::client::{BoxFuture, ModelClient, Reply, Request, Usage};
use crate::error::Error;
use crate::http::Transport;

/// How a reply's shape is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Structured {
    /// A JSON-schema response format, and plain prompting when the server refuses it (the
    /// refusal is remembered).
    #[default]
    Auto,
    /// Always a JSON-schema response format.
    JsonSchema,
    /// The older `{"type": "json_object"}` response format.
    JsonObject,
    /// Plain prompting: the prompt asks for JSON.
    Off,
}

/// A client of `POST {base_url}/chat/completions`.
#[derive(Debug)]
pub struct OpenAiCompatible {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    structured: Structured,
    transport: Transport,
    schema_refused: AtomicBool,
}

impl OpenAiCompatible {
    /// Returns a client of the server at `base_url` (`https://api.openai.com/v1`,
    /// `http://localhost:11434/v1`, …), with a bearer `api_key` when given.
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        model: Option<String>,
        structured: Structured,
        transport: Transport,
    ) -> OpenAiCompatible {
        OpenAiCompatible {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            model,
            structured,
            transport,
            schema_refused: AtomicBool::new(false),
        }
    }

    fn body(&self, request: &Request, model: &str, schema: bool) -> Value {
        let mut messages = Vec::new();
        if let Some(system) = &request.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.push(json!({"role": "user", "content": request.prompt}));
        let mut body = json!({"model": model, "messages": messages});
        if let Some(s) = &request.schema {
            let format = match self.structured {
                Structured::JsonObject => Some(json!({"type": "json_object"})),
                Structured::Auto | Structured::JsonSchema if schema => Some(json!({
                    "type": "json_schema",
                    "json_schema": {"name": s.name, "description": s.description, "schema": s.schema, "strict": true}
                })),
                Structured::Auto | Structured::JsonSchema | Structured::Off => None,
            };
            if let Some(format) = format {
                body["response_format"] = format;
            }
        }
        body
    }

    /// Returns the model to ask: the request's, else the client's; `missing` says what to give
    /// when there is neither.
    fn model_of<'a>(&'a self, requested: Option<&'a str>, missing: &str) -> Result<&'a str, Error> {
        requested.or(self.model.as_deref()).ok_or_else(|| {
            Error::Config(format!("no model to ask at {}: {missing}", self.base_url))
        })
    }

    /// Returns the headers every request carries: the key, when there is one.
    fn headers(&self) -> Vec<(&'static str, String)> {
        self.api_key
            .iter()
            .map(|k| ("authorization", format!("Bearer {k}")))
            .collect()
    }

    async fn ask(&self, request: &Request) -> Result<Reply, Error> {
        let model = self.model_of(request.model.as_deref(), "give the grader a `model`")?;
        let url = format!("{}/chat/completions", self.base_url);
        let headers = self.headers();
        let with_schema = request.schema.is_some()
            && match self.structured {
                Structured::JsonSchema => true,
                Structured::Auto => !self.schema_refused.load(Ordering::Relaxed),
                Structured::JsonObject | Structured::Off => false,
            };
        let answer = match self
            .transport
            .post_json(&url, &headers, &self.body(request, model, with_schema))
            .await
        {
            // A server without JSON-schema output refuses the format: ask again in plain
            // words, and remember.
            Err(Error::Status {
                status: 400 | 422,
                message,
                ..
            }) if with_schema
                && self.structured == Structured::Auto
                && refuses_format(&message) =>
            {
                tracing::debug!(url, %message, "no JSON-schema output here; asking in plain words");
                self.schema_refused.store(true, Ordering::Relaxed);
                return self.plain(request, model, &url, &headers).await;
            }
            other => other?,
        };
        self.read(&answer, model, with_schema)
    }

    async fn plain(
        &self,
        request: &Request,
        model: &str,
        url: &str,
        headers: &[(&str, String)],
    ) -> Result<Reply, Error> {
        let answer = self
            .transport
            .post_json(url, headers, &self.body(request, model, false))
            .await?;
        self.read(&answer, model, false)
    }

    fn read(&self, answer: &Value, model: &str, structured: bool) -> Result<Reply, Error> {
        let message = answer.pointer("/choices/0/message").ok_or_else(|| {
            self.transport
                .decode("no `choices[0].message` in the answer")
        })?;
        let text = match message.get("content") {
            Some(Value::String(s)) => s.clone(),
            // Content as parts: [{"type": "text", "text": …}].
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
            _ => String::new(),
        };
        if text.trim().is_empty() {
            let why = message.get("refusal").and_then(Value::as_str).map_or_else(
                || "an empty message".to_owned(),
                |r| format!("a refusal: {r}"),
            );
            return Err(self.transport.decode(format!("the model answered {why}")));
        }
        Ok(Reply {
            text,
            model: answer
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or(model)
                .to_owned(),
            structured,
            usage: Usage::read(
                answer.get("usage"),
                &["prompt_tokens"],
                &["completion_tokens"],
            ),
        })
    }
}

/// Returns true when an error message says the response format is not supported.
fn refuses_format(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("response_format") || m.contains("json_schema") || m.contains("schema")
}

impl ModelClient for OpenAiCompatible {
    fn kind(&self) -> &'static str {
        "openai"
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
            let url = format!("{}/chat/completions", self.base_url);
            let headers = self.headers();
            let answer = self
                .transport
                .post_json(&url, &headers, &crate::openai_chat::body(request, model))
                .await?;
            crate::openai_chat::read(&self.transport, &answer, model)
        })
    }
}
