//! A person approves what the policy says (`Security.Approve`): a tool call whose subject — a
//! command, or a tool's name and arguments — matches one of the patterns waits for an answer on
//! the terminal (yes, no, or always for that pattern), or is decided by `vouch run --approve` /
//! `--deny` for an unattended run. With neither and no terminal, it is denied: failing closed.
//! Every decision is journaled, and the tool's answer says it.

use std::io::{BufRead, Write};

use regex::Regex;
use serde_json::Value;
use vouch_llm::ToolCallRequest;

/// How calls that need approval are decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApprovalMode {
    /// A person on the terminal answers (denied when there is none).
    #[default]
    Ask,
    /// Approved, unattended (`--approve`).
    Approve,
    /// Denied, unattended (`--deny`).
    Deny,
}

/// A decision on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decided {
    pub(crate) approved: bool,
    /// Who decided: `terminal`, `terminal (always)`, `--approve`, `--deny`, `no terminal`.
    pub(crate) by: String,
}

/// The patterns and what is remembered of the answers.
#[derive(Debug)]
pub(crate) struct Approver {
    patterns: Vec<Regex>,
    mode: ApprovalMode,
    always: Vec<bool>,
}

impl Approver {
    pub(crate) fn new(patterns: Vec<Regex>, mode: ApprovalMode) -> Approver {
        let always = vec![false; patterns.len()];
        Approver {
            patterns,
            mode,
            always,
        }
    }

    /// Returns what `call` is about, as the patterns are matched against it.
    pub(crate) fn subject(call: &ToolCallRequest) -> String {
        match call.arguments.get("command").and_then(Value::as_str) {
            Some(command) if call.name == "shell_run" => command.to_owned(),
            _ => format!("{} {}", call.name, call.arguments),
        }
    }

    /// Decides `call` of `agent` when a pattern says it needs approval; `None` when none does.
    pub(crate) fn decide(&mut self, agent: &str, call: &ToolCallRequest) -> Option<Decided> {
        let subject = Approver::subject(call);
        let i = self.patterns.iter().position(|p| p.is_match(&subject))?;
        if self.always[i] {
            return Some(Decided {
                approved: true,
                by: "terminal (always)".to_owned(),
            });
        }
        Some(match self.mode {
            ApprovalMode::Approve => Decided {
                approved: true,
                by: "--approve".to_owned(),
            },
            ApprovalMode::Deny => Decided {
                approved: false,
                by: "--deny".to_owned(),
            },
            ApprovalMode::Ask => match ask(agent, &call.name, &subject) {
                Some(Answer::Yes) => Decided {
                    approved: true,
                    by: "terminal".to_owned(),
                },
                Some(Answer::Always) => {
                    self.always[i] = true;
                    Decided {
                        approved: true,
                        by: "terminal (always)".to_owned(),
                    }
                }
                Some(Answer::No) => Decided {
                    approved: false,
                    by: "terminal".to_owned(),
                },
                None => Decided {
                    approved: false,
                    by: "no terminal (pass --approve or --deny)".to_owned(),
                },
            },
        })
    }
}

enum Answer {
    Yes,
    No,
    Always,
}

/// Asks on the terminal; `None` when there is none.
fn ask(agent: &str, tool: &str, subject: &str) -> Option<Answer> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let mut out = tty.try_clone().ok()?;
    let mut input = std::io::BufReader::new(tty);
    loop {
        write!(
            out,
            "vouch: {agent} wants to call {tool}: {subject}\nApprove? [y]es / [n]o / [a]lways: "
        )
        .ok()?;
        out.flush().ok()?;
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Some(Answer::Yes),
            "n" | "no" => return Some(Answer::No),
            "a" | "always" => return Some(Answer::Always),
            _ => {}
        }
    }
}
