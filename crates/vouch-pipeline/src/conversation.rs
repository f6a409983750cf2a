//! The run so far, as the runner holds it: the session (what is recorded), the conversation
//! (who said what, to build each agent's view of it), the change-log entries the runner wrote
//! (what gates decide on), and the journal every step goes to before the run acts on it.

use std::path::Path;

use vouch_evidence::OwnEntries;
use vouch_llm::{ChatMessage, ToolCallRequest};
use vouch_session::{
    Actor, Args, EventKind, Format, Message, Outcome, Output, Role, Session, ToolCall, ToolResult,
};

use crate::error::RunError;
use crate::journal::{Journal, Record};

/// The run so far.
#[derive(Debug)]
pub(crate) struct RunState {
    pub(crate) session: Session,
    pub(crate) transcript: Vec<(Option<String>, ChatMessage)>,
    pub(crate) run_id: String,
    /// The change-log entries of the run, as the runner wrote them.
    pub(crate) own: OwnEntries,
    /// The session's log, and how many of its events are in it: each turn appends its own.
    log: Option<(std::fs::File, usize)>,
    /// How many of the session's subagents the log holds.
    subagents_written: usize,
    /// The journal, once the run's past is rebuilt.
    pub(crate) journal: Option<Journal>,
    /// Tokens the sub-agents of the current turn used (added to the turn's).
    pub(crate) sub_usage: vouch_llm::Usage,
    /// The CLI session of each CLI agent, by agent name.
    pub(crate) cli_sessions: std::collections::BTreeMap<String, String>,
}

impl RunState {
    /// Returns the empty state of a run in `workdir`.
    pub(crate) fn new(workdir: &Path) -> RunState {
        RunState {
            session: Session {
                agent: vouch_session::Agent::Orchestrator,
                cwd: Some(workdir.display().to_string()),
                ..Session::default()
            },
            transcript: Vec::new(),
            run_id: String::new(),
            own: OwnEntries::empty(String::new()),
            log: None,
            subagents_written: 0,
            journal: None,
            sub_usage: vouch_llm::Usage::default(),
            cli_sessions: std::collections::BTreeMap::new(),
        }
    }

    /// Appends `record` to the journal.
    pub(crate) fn journal(&mut self, record: &Record) -> Result<(), RunError> {
        match &mut self.journal {
            Some(journal) => journal.write(record),
            None => Ok(()),
        }
    }

    /// Adds a user message to the session and the conversation.
    pub(crate) fn apply_user(&mut self, text: &str) {
        self.session.push(
            Actor::new(Role::User),
            EventKind::Message(Message {
                text: text.to_owned(),
            }),
        );
        self.transcript.push((
            None,
            ChatMessage::User {
                text: text.to_owned(),
            },
        ));
    }

    /// Adds a model reply of `agent` to the session and the conversation.
    pub(crate) fn apply_step(&mut self, agent: &str, text: &str, calls: &[ToolCallRequest]) {
        if !text.trim().is_empty() {
            self.session.push(
                Actor::named(Role::Assistant, agent),
                EventKind::Message(Message {
                    text: text.to_owned(),
                }),
            );
        }
        self.transcript.push((
            Some(agent.to_owned()),
            ChatMessage::Assistant {
                text: text.to_owned(),
                calls: calls.to_vec(),
            },
        ));
    }

    /// Adds an answered call of `agent` to the session and the conversation; returns the call
    /// and its result as the session holds them.
    pub(crate) fn apply_result(
        &mut self,
        agent: &str,
        call: &ToolCallRequest,
        text: &str,
        outcome: Outcome,
    ) -> (ToolCall, ToolResult) {
        let recorded = ToolCall {
            call_id: call.id.clone(),
            name: call.name.clone().into(),
            kind: vouch_session::tool_kind(Format::Chat, &call.name),
            args: Args::from_value(call.arguments.clone()),
        };
        let result = ToolResult {
            call_id: call.id.clone(),
            output: Output::inline(text),
            outcome,
        };
        self.session.push(
            Actor::named(Role::Assistant, agent),
            EventKind::ToolCall(recorded.clone()),
        );
        self.session.push(
            Actor::named(Role::Tool, agent),
            EventKind::ToolResult(result.clone()),
        );
        self.transcript.push((
            Some(agent.to_owned()),
            ChatMessage::Tool {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: text.to_owned(),
            },
        ));
        (recorded, result)
    }

    /// Adds the sub-agent call `call_id` of `agent` started to the session, as a subagent.
    pub(crate) fn apply_subagent(
        &mut self,
        agent: &str,
        call_id: &str,
        messages: &[vouch_llm::ChatMessage],
    ) {
        self.session
            .subagents
            .push(crate::subagent::session_of(agent, call_id, messages));
    }

    /// Adds a CLI agent's turn to the session and the conversation: a call named after the
    /// CLI, answered with its reply, the turn's part of its session as that call's subagent,
    /// and the reply as the agent's message.
    pub(crate) fn apply_cli(&mut self, a: &CliApplied<'_>, mut sub: Session) {
        let call = ToolCall {
            call_id: a.call_id.to_owned(),
            name: a.kind.name().to_owned().into(),
            kind: vouch_session::ToolKind::Subagent,
            args: Args::from_value(serde_json::json!({
                "prompt": a.prompt,
                "session_id": a.session_id,
            })),
        };
        self.session.push(
            Actor::named(Role::Assistant, a.agent),
            EventKind::ToolCall(call),
        );
        self.session.push(
            Actor::named(Role::Tool, a.agent),
            EventKind::ToolResult(ToolResult {
                call_id: a.call_id.to_owned(),
                output: Output::inline(a.text),
                outcome: a.outcome,
            }),
        );
        sub.spawned_by = Some(a.call_id.to_owned());
        sub.name = Some(a.agent.to_owned());
        self.session.subagents.push(sub);
        if !a.text.trim().is_empty() {
            self.session.push(
                Actor::named(Role::Assistant, a.agent),
                EventKind::Message(Message {
                    text: a.text.to_owned(),
                }),
            );
        }
        self.transcript.push((
            Some(a.agent.to_owned()),
            vouch_llm::ChatMessage::Assistant {
                text: a.text.to_owned(),
                calls: Vec::new(),
            },
        ));
        if let Some(id) = a.session_id {
            self.cli_sessions.insert(a.agent.to_owned(), id.to_owned());
        }
    }

    /// Returns the conversation as `agent` sees it (`view.rs`), with the run's compaction
    /// `window`.
    pub(crate) fn view(
        &self,
        agent: &crate::config::AgentConfig,
        window: Option<crate::config::Compaction>,
    ) -> Vec<ChatMessage> {
        crate::view::view(&self.transcript, agent, window)
    }

    /// Appends the events not yet written to the session's log (written first with its
    /// header line): whole lines, so a reader of a run cut short sees every turn before it.
    pub(crate) fn save(&mut self, path: &Path) -> Result<(), RunError> {
        use std::io::Write;
        let fail = |e: &dyn std::fmt::Display| {
            RunError::Io(format!(
                "cannot write the run's session {}: {e}",
                path.display()
            ))
        };
        let mut bytes = Vec::new();
        if self.log.is_none() {
            vouch_session::write_jsonl_header(&self.session, &mut bytes).map_err(|e| fail(&e))?;
            let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
            self.log = Some((file, 0));
        }
        let Some((file, written)) = &mut self.log else {
            return Ok(());
        };
        vouch_session::write_jsonl_events(
            &self.session,
            &self.session.events[*written..],
            &mut bytes,
        )
        .map_err(|e| fail(&e))?;
        *written = self.session.events.len();
        // New subagents follow, each under a header naming its parent; the parent's own
        // header then reopens it for the events still to come.
        let new = &self.session.subagents[self.subagents_written..];
        if !new.is_empty() {
            for (i, sub) in new.iter().enumerate() {
                let key = format!("0.{}", self.subagents_written + i);
                vouch_session::write_jsonl_subagent(sub, &key, "0", &mut bytes)
                    .map_err(|e| fail(&e))?;
            }
            vouch_session::write_jsonl_reopen(&self.session, "0", &mut bytes)
                .map_err(|e| fail(&e))?;
            self.subagents_written = self.session.subagents.len();
        }
        file.write_all(&bytes).map_err(|e| fail(&e))?;
        Ok(())
    }
}

/// A CLI turn as it is added to the run's session.
pub(crate) struct CliApplied<'a> {
    pub(crate) agent: &'a str,
    pub(crate) kind: crate::config::CliKind,
    pub(crate) call_id: &'a str,
    pub(crate) session_id: Option<&'a str>,
    pub(crate) prompt: &'a str,
    pub(crate) text: &'a str,
    pub(crate) outcome: Outcome,
}
