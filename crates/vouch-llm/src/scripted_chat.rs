//! A scripted conversation partner: each agent's replies, in the order they are asked for —
//! what a pipeline's model would answer, with its tool calls, for tests and offline examples.
//!
//! ```yaml
//! model: demo
//! agents:
//!   Developer:
//!     - calls:                          # the first step: tool calls
//!         - {tool: write_file, args: {path: a.txt, content: "hi"}}
//!     - text: "Done.\nHANDOFF TO TESTER"  # the next step, after the tools answered
//! ```
//!
//! Usage is counted as a quarter of the characters read and written, so that token budgets
//! can be exercised offline.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use serde::Deserialize;

use crate::chat::{ChatMessage, ChatReply, ChatRequest, ToolCallRequest};
use crate::client::{BoxFuture, ModelClient, Reply, Request, Usage};
use crate::error::Error;
use crate::scripted::yaml_error;

/// One scripted step of an agent.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedStep {
    /// What the model says.
    #[serde(default)]
    pub text: String,
    /// The tools it calls.
    #[serde(default)]
    pub calls: Vec<ScriptedCall>,
}

/// One scripted tool call.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    /// The tool.
    pub tool: String,
    /// Its arguments.
    #[serde(default)]
    pub args: serde_json::Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default)]
    model: Option<String>,
    agents: BTreeMap<String, Vec<ScriptedStep>>,
}

/// A model that answers each agent from its script, step by step.
#[derive(Debug)]
pub struct ScriptedChat {
    model: String,
    steps: BTreeMap<String, Vec<ScriptedStep>>,
    /// How many steps of each agent were answered.
    taken: Mutex<BTreeMap<String, usize>>,
}

impl ScriptedChat {
    /// Returns the model answering each agent with its `steps`.
    pub fn new(
        model: impl Into<String>,
        steps: BTreeMap<String, Vec<ScriptedStep>>,
    ) -> ScriptedChat {
        ScriptedChat {
            model: model.into(),
            steps,
            taken: Mutex::new(BTreeMap::new()),
        }
    }

    /// Reads a script file (YAML or JSON); its errors say `path:line:column`.
    pub fn load(path: &Path) -> Result<ScriptedChat, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Config(format!("cannot read the script {}: {e}", path.display()))
        })?;
        let file: ScriptFile =
            serde_saphyr::from_str(&text).map_err(|e| Error::Config(yaml_error(path, &e)))?;
        Ok(ScriptedChat::new(
            file.model.unwrap_or_else(|| "scripted".to_owned()),
            file.agents,
        ))
    }

    /// Returns how many steps of `agent` were answered.
    pub fn taken(&self, agent: &str) -> usize {
        self.taken
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(agent)
            .copied()
            .unwrap_or(0)
    }

    fn step(&self, request: &ChatRequest) -> Result<ChatReply, Error> {
        let agent = request.agent.clone().unwrap_or_default();
        let index = {
            let mut taken = self
                .taken
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let n = taken.entry(agent.clone()).or_insert(0);
            *n += 1;
            *n - 1
        };
        let step = self
            .steps
            .get(&agent)
            .and_then(|steps| steps.get(index))
            .ok_or_else(|| {
                Error::Config(format!(
                    "the script has no step {} for agent `{agent}`",
                    index + 1
                ))
            })?;
        let read: usize = request
            .messages
            .iter()
            .map(|m| match m {
                ChatMessage::User { text } | ChatMessage::Assistant { text, .. } => text.len(),
                ChatMessage::Tool { content, .. } => content.len(),
            })
            .sum::<usize>()
            + request.system.as_ref().map_or(0, String::len);
        let written = step.text.len()
            + step
                .calls
                .iter()
                .map(|c| c.tool.len() + c.args.to_string().len())
                .sum::<usize>();
        Ok(ChatReply {
            text: step.text.clone(),
            calls: step
                .calls
                .iter()
                .enumerate()
                .map(|(i, c)| ToolCallRequest {
                    id: format!("call_{}_{}_{}", agent.to_lowercase(), index + 1, i + 1),
                    name: c.tool.clone(),
                    arguments: c.args.clone(),
                })
                .collect(),
            usage: Some(Usage {
                input: (read / 4) as u64,
                output: (written / 4) as u64,
            }),
            model: request.model.clone().unwrap_or_else(|| self.model.clone()),
        })
    }
}

impl ModelClient for ScriptedChat {
    fn kind(&self) -> &'static str {
        "scripted"
    }

    fn default_model(&self) -> Option<&str> {
        Some(&self.model)
    }

    fn complete<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Reply, Error>> {
        Box::pin(async {
            Err(Error::Config(
                "a scripted conversation answers conversations, not prompts".into(),
            ))
        })
    }

    fn chat<'a>(&'a self, request: &'a ChatRequest) -> BoxFuture<'a, Result<ChatReply, Error>> {
        Box::pin(async move { self.step(request) })
    }

    fn skip_steps(&self, agent: &str, steps: usize) {
        self.taken
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(agent.to_owned(), steps);
    }
}
