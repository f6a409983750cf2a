//! The one trait every model client implements, and what goes in and out of it.

use std::future::Future;
use std::pin::Pin;

use crate::error::Error;

/// A boxed future, so that clients can be chosen at run time (`Arc<dyn ModelClient>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The shape a reply must have, for clients that can enforce it.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// A name for it (a tool's or a response format's name).
    pub name: String,
    /// What it is for, in words.
    pub description: String,
    /// The JSON Schema of the reply: an object.
    pub schema: serde_json::Value,
}

/// One question to a model.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The system prompt, when there is one.
    pub system: Option<String>,
    /// The user prompt.
    pub prompt: String,
    /// The model; the client's own when `None`.
    pub model: Option<String>,
    /// The shape of the reply, for structured output.
    pub schema: Option<Schema>,
    /// The most tokens the reply may take.
    pub max_tokens: u32,
    /// A value the reply must carry back (a grader signs its grade with it); models read it in
    /// the prompt, a [`crate::Scripted`] reply gets it in place of `{{nonce}}`.
    pub nonce: Option<String>,
}

impl Request {
    /// A request of `prompt`, with no system prompt, schema or model of its own.
    pub fn new(prompt: impl Into<String>) -> Request {
        Request {
            system: None,
            prompt: prompt.into(),
            model: None,
            schema: None,
            max_tokens: 1024,
            nonce: None,
        }
    }
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The text of the reply; for a structured reply, its JSON.
    pub text: String,
    /// The model that answered, as the provider names it (or as asked, when it does not say).
    pub model: String,
    /// True when the provider enforced the schema (a forced tool call, a JSON-schema response
    /// format).
    pub structured: bool,
    /// The tokens it cost, when the provider said.
    pub usage: Option<Usage>,
}

/// Tokens a reply cost, as the provider counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Tokens read: the prompt (cached prompt tokens included).
    pub input: u64,
    /// Tokens written: the reply.
    pub output: u64,
}

impl Usage {
    /// Reads the usage object `value` holds under `input` and `output` (each a key, or several
    /// keys to add up); `None` when it holds neither.
    pub fn read(
        value: Option<&serde_json::Value>,
        input: &[&str],
        output: &[&str],
    ) -> Option<Usage> {
        let value = value?;
        let sum = |keys: &[&str]| -> Option<u64> {
            keys.iter()
                .filter_map(|k| value.get(*k).and_then(serde_json::Value::as_u64))
                .reduce(u64::saturating_add)
        };
        match (sum(input), sum(output)) {
            (None, None) => None,
            (i, o) => Some(Usage {
                input: i.unwrap_or(0),
                output: o.unwrap_or(0),
            }),
        }
    }
}

impl Usage {
    /// Reads an Anthropic `usage` object (the Messages API's, and Claude Code's result's):
    /// prompt tokens written to and read from the prompt cache count as read.
    pub fn anthropic(value: Option<&serde_json::Value>) -> Option<Usage> {
        Usage::read(
            value,
            &[
                "input_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            ],
            &["output_tokens"],
        )
    }
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
        }
    }
}

/// A model that answers prompts.
pub trait ModelClient: Send + Sync + std::fmt::Debug {
    /// Returns the kind of client, as messages and the cache name it (`openai`, `anthropic`,
    /// `claude`, `codex`, `scripted`).
    fn kind(&self) -> &'static str;

    /// Returns the model used when a request names none.
    fn default_model(&self) -> Option<&str>;

    /// Asks the model.
    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Reply, Error>>;

    /// Tells the client that `agent` already took `steps` steps of its conversation (a run
    /// resumed from its journal): a scripted model goes on from there; others need nothing.
    fn skip_steps(&self, agent: &str, steps: usize) {
        let _ = (agent, steps);
    }

    /// Takes one step of a conversation with tools. Clients that cannot hold one (the agent
    /// CLIs) answer that they cannot.
    fn chat<'a>(
        &'a self,
        request: &'a crate::chat::ChatRequest,
    ) -> BoxFuture<'a, Result<crate::chat::ChatReply, Error>> {
        let _ = request;
        let kind = self.kind();
        Box::pin(async move {
            Err(Error::Config(format!(
                "a `{kind}` model cannot hold a conversation with tools; use openai, anthropic or scripted"
            )))
        })
    }
}
