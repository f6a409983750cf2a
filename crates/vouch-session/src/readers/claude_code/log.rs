//! A Claude Code log being read: parsed lines applied in order — split assistant records
//! merged, sidechains and `parent_tool_use_id` runs grouped as subagents.

use std::collections::HashMap;
use std::io::Read;

use super::parse::{Body, ClaudeParser, Item, Line, Place, Sidechain};
use crate::driver::drive_parallel;
use crate::error::Error;
use crate::event::{Actor, Role};
use crate::readers::common::Events;
use crate::session::{Agent, Format, Session, Usage};
use crate::source::{Input, ReadOptions};

/// A run of records that belongs to a subagent: a sidechain inline in an older log, or the
/// messages of one `parent_tool_use_id` in `stream-json` output.
#[derive(Debug, Default)]
pub(super) struct Group {
    pub(super) events: Events,
    pub(super) spawned_by: Option<String>,
    pub(super) agent_id: Option<String>,
    pub(super) usage: Tokens,
}

/// Token usage of one session being read: per message id, the last usage its lines report (the
/// split lines of one message repeat it), plus that of messages without an id. The lines of one
/// message are written together, so only the latest messages are kept apart; an older one's
/// usage is final and goes into the total.
#[derive(Debug, Default)]
pub(super) struct Tokens {
    recent: std::collections::VecDeque<(u64, Usage)>,
    total: Usage,
    seen: bool,
}

impl Tokens {
    /// How many of the latest messages are kept apart.
    const WINDOW: usize = 64;

    fn add(&mut self, message: Option<u64>, usage: Usage) {
        self.seen = true;
        let Some(id) = message else {
            self.total += usage;
            return;
        };
        if let Some((_, last)) = self.recent.iter_mut().rev().find(|(m, _)| *m == id) {
            *last = usage;
            return;
        }
        if self.recent.len() == Self::WINDOW
            && let Some((_, done)) = self.recent.pop_front()
        {
            self.total += done;
        }
        self.recent.push_back((id, usage));
    }

    fn total(self) -> Option<Usage> {
        self.seen.then(|| {
            let mut total = self.total;
            for (_, usage) in self.recent {
                total += usage;
            }
            total
        })
    }
}

/// The state of a Claude Code log being read: parsed lines are applied to it in order.
#[derive(Default)]
pub(super) struct ClaudeLog {
    pub(super) main: Events,
    pub(super) usage: Tokens,
    pub(super) groups: Vec<Group>,
    pub(super) group_of_call: HashMap<String, usize>,
    pub(super) group_of_uuid: HashMap<String, usize>,
    /// Block keys already seen of the latest assistant messages, to merge split records.
    pub(super) seen: SeenBlocks,
    /// `(agent id, call id)` pairs that link subagents to the calls that started them.
    pub(super) links: Vec<(String, String)>,
    pub(super) session_id: Option<String>,
    pub(super) agent_id: Option<String>,
    pub(super) cwd: Option<String>,
    pub(super) model: Option<String>,
    /// Set at the first message record: true when the whole file is one subagent's log.
    pub(super) sidechain_file: Option<bool>,
}

/// A log read on its own, before its subagents are attached.
pub(super) struct Parsed {
    pub(super) session: Session,
    pub(super) subagents: Vec<Session>,
    pub(super) links: Vec<(String, String)>,
}

/// Reads one Claude Code log file (or stream) on its own.
pub(super) fn read_log(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<(Parsed, Vec<crate::Diagnostic>), Error> {
    let parser = ClaudeParser { input };
    let mut log = ClaudeLog::default();
    let diagnostics = drive_parallel(reader, input, options, &parser, |line, number| {
        log.apply(line, number);
        Ok(())
    })?;
    Ok((log.finish(input), diagnostics))
}

impl ClaudeLog {
    pub(super) fn apply(&mut self, line: Line, number: u64) {
        if let Some(meta) = line.meta {
            self.session_id = self.session_id.take().or(meta.session_id);
            self.agent_id = self.agent_id.take().or(meta.agent_id);
            self.cwd = self.cwd.take().or(meta.cwd);
        }
        if self.model.is_none() {
            self.model = line.model;
        }
        match line.body {
            Body::Nothing => {}
            Body::Link(agent, call) => {
                if !self.links.iter().any(|(a, c)| *a == agent && *c == call) {
                    self.links.push((agent, call));
                }
            }
            Body::Message {
                role,
                message,
                items,
                link,
            } => {
                let group = self.group_for(line.place);
                let ts = line.timestamp;
                if let Some((message, usage)) = line.usage {
                    match group {
                        Some(i) => self.groups[i].usage.add(message, usage),
                        None => self.usage.add(message, usage),
                    }
                }
                for (key, item) in items {
                    if let Some(message) = message
                        && !self.seen.first_time(message, key)
                    {
                        continue;
                    }
                    let events = match group {
                        Some(i) => &mut self.groups[i].events,
                        None => &mut self.main,
                    };
                    match item {
                        Item::Text(text) => {
                            events.message(Actor::new(role), ts, Some(number), text);
                        }
                        Item::Call(call) => {
                            events.call(Actor::new(Role::Assistant), ts, Some(number), call);
                        }
                        Item::Result(result) => {
                            events.result(Actor::new(Role::Tool), ts, Some(number), result);
                        }
                    }
                }
                self.links.extend(link.map(|l| *l));
            }
        }
    }

    /// Returns the index of the group a record belongs to, or `None` for the main session.
    pub(super) fn group_for(&mut self, place: Place) -> Option<usize> {
        let sidechain = match &place {
            Place::Call(_) => None,
            Place::Main { sidechain } => Some(sidechain.unwrap_or(false)),
            Place::Sidechain(_) => Some(true),
        };
        if let Some(sidechain) = sidechain {
            let sidechain_file = *self.sidechain_file.get_or_insert(sidechain);
            if !sidechain || sidechain_file {
                return None;
            }
        }
        match place {
            Place::Call(call) => {
                let next = self.groups.len();
                let i = *self.group_of_call.entry(call.clone()).or_insert(next);
                if i == next {
                    self.groups.push(Group {
                        spawned_by: Some(call),
                        ..Group::default()
                    });
                }
                Some(i)
            }
            Place::Sidechain(sidechain) => {
                let Sidechain {
                    uuid,
                    parent,
                    agent_id,
                } = *sidechain;
                let parent = parent
                    .as_deref()
                    .and_then(|p| self.group_of_uuid.get(p))
                    .copied();
                let i = parent.unwrap_or_else(|| {
                    // A sidechain without an agent id is named after its first record.
                    let agent_id = agent_id.or_else(|| uuid.clone());
                    self.groups.push(Group {
                        agent_id,
                        ..Group::default()
                    });
                    self.groups.len() - 1
                });
                if let Some(uuid) = uuid {
                    self.group_of_uuid.insert(uuid, i);
                }
                Some(i)
            }
            Place::Main { .. } => None,
        }
    }

    pub(super) fn finish(self, input: &Input<'_>) -> Parsed {
        let source = input.source(Format::ClaudeCode);
        let session = Session {
            id: self
                .agent_id
                .clone()
                .or(self.session_id.clone())
                .unwrap_or_default(),
            agent: Agent::ClaudeCode,
            cwd: self.cwd.clone(),
            model: self.model.clone(),
            usage: self.usage.total(),
            source: Some(source.clone()),
            events: self.main.events,
            ..Session::default()
        };
        let subagents = self
            .groups
            .into_iter()
            .map(|g| Session {
                id: g
                    .agent_id
                    .or_else(|| g.spawned_by.clone())
                    .unwrap_or_default(),
                agent: Agent::ClaudeCode,
                spawned_by: g.spawned_by,
                cwd: self.cwd.clone(),
                usage: g.usage.total(),
                source: Some(source.clone()),
                events: g.events.events,
                ..Session::default()
            })
            .collect();
        Parsed {
            session,
            subagents,
            links: self.links,
        }
    }
}

/// The content blocks already taken from the latest assistant messages. The records of one
/// message are written together, so a short window of messages is enough to merge them.
#[derive(Default)]
pub(super) struct SeenBlocks {
    pub(super) messages: std::collections::VecDeque<(u64, Vec<u64>)>,
}

impl SeenBlocks {
    pub(super) const WINDOW: usize = 64;

    /// Records block `key` of message `message`; returns false when it was already recorded.
    pub(super) fn first_time(&mut self, message: u64, key: u64) -> bool {
        if let Some((_, blocks)) = self.messages.iter_mut().rev().find(|(m, _)| *m == message) {
            if blocks.contains(&key) {
                return false;
            }
            blocks.push(key);
            return true;
        }
        if self.messages.len() == Self::WINDOW {
            self.messages.pop_front();
        }
        self.messages.push_back((message, vec![key]));
        true
    }
}
