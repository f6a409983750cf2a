//! Scripted replies, read from a file: a grader for tests and offline demos.
//!
//! ```yaml
//! model: demo                 # optional: the model name replies are filed under
//! replies:
//!   - match: "Names both keys"  # the first reply whose `match` is in the prompt answers it
//!     reply: '{"score": 9, "reasoning": "Both keys are named."}'
//!   - reply: '{"score": 5, "reasoning": "Default.", "nonce": "{{nonce}}"}'  # no `match`: answers anything
//!     delay_ms: 10            # optional: how long to take
//! ```
//!
//! `{{nonce}}` in a reply becomes the request's nonce, so that scripted grades are signed as a
//! model's are.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Deserialize;

use crate::client::{BoxFuture, ModelClient, Reply, Request};
use crate::error::Error;

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedReply {
    /// Text the prompt must contain for this reply to answer it; any prompt when absent.
    #[serde(default, rename = "match")]
    pub matches: Option<String>,
    /// The reply.
    pub reply: String,
    /// How long to take, in milliseconds.
    #[serde(default)]
    pub delay_ms: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default)]
    model: Option<String>,
    replies: Vec<ScriptedReply>,
}

/// A client that answers from a script.
#[derive(Debug)]
pub struct Scripted {
    model: String,
    replies: Vec<ScriptedReply>,
    calls: AtomicUsize,
}

impl Scripted {
    /// Returns a client answering with `replies`, as model `model`.
    pub fn new(model: impl Into<String>, replies: Vec<ScriptedReply>) -> Scripted {
        Scripted {
            model: model.into(),
            replies,
            calls: AtomicUsize::new(0),
        }
    }

    /// Reads a script file (YAML or JSON).
    pub fn load(path: &Path) -> Result<Scripted, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Config(format!(
                "cannot read the scripted replies {}: {e}",
                path.display()
            ))
        })?;
        let file: ScriptFile =
            serde_saphyr::from_str(&text).map_err(|e| Error::Config(yaml_error(path, &e)))?;
        Ok(Scripted::new(
            file.model.unwrap_or_else(|| "scripted".to_owned()),
            file.replies,
        ))
    }

    /// Returns how many requests it answered.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    async fn ask(&self, request: &Request) -> Result<Reply, Error> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let full = match &request.system {
            Some(system) => format!("{system}\n{}", request.prompt),
            None => request.prompt.clone(),
        };
        let reply = self
            .replies
            .iter()
            .find(|r| r.matches.as_deref().is_none_or(|m| full.contains(m)))
            .ok_or_else(|| Error::Config("no scripted reply matches this prompt".into()))?;
        if reply.delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(reply.delay_ms)).await;
        }
        let text = match &request.nonce {
            Some(nonce) => reply.reply.replace("{{nonce}}", nonce),
            None => reply.reply.clone(),
        };
        Ok(Reply {
            text,
            model: request.model.clone().unwrap_or_else(|| self.model.clone()),
            structured: false,
            usage: None,
        })
    }
}

impl ModelClient for Scripted {
    fn kind(&self) -> &'static str {
        "scripted"
    }

    fn default_model(&self) -> Option<&str> {
        Some(&self.model)
    }

    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Reply, Error>> {
        Box::pin(self.ask(request))
    }
}

/// A YAML file's error as one line: `path:line:column: what`.
pub fn yaml_error(path: &Path, error: &serde_saphyr::Error) -> String {
    let text = error.to_string();
    let first = text.lines().next().unwrap_or("not valid YAML");
    // serde-saphyr says `error: line L column C: what`; the place goes after the path instead.
    let what = first
        .split_once(": ")
        .filter(|(head, _)| head.starts_with("error"))
        .map_or(first, |(_, rest)| rest);
    let what = what
        .split_once(": ")
        .filter(|(place, _)| place.starts_with("line "))
        .map_or(what, |(_, rest)| rest);
    match error.location() {
        Some(l) => format!("{}:{}:{}: {what}", path.display(), l.line(), l.column()),
        None => format!("{}: {what}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_script_says_where() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("replies.yaml");
        let write = |text: &str| std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        write("replies:\n  - reply: x\n    delay: 3\n");
        let e = Scripted::load(&path).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            e.replace(&*dir.path().to_string_lossy(), "<dir>"),
            "<dir>/replies.yaml:3:5: unknown field `delay`, expected one of match, reply, delay_ms"
        );
        write("replies: [\n");
        let e = Scripted::load(&path).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("replies.yaml:"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
