//! After the router's decision, what the runner settles itself: a model-driven selection's
//! pick, the note the next agent gets (with a transition's `HandoffContext`), the agent a
//! correction goes to (a `RecoveryAgent`), and the termination strategies that need the run's
//! tokens (`tokenbudget`) or a model (`llm`).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use vouch_gate::{Decision, RouterState, SelectionKind, TerminationKind};
use vouch_llm::Usage;

use crate::config::{AgentConfig, RunConfig};
use crate::conversation::RunState;
use crate::models::Models;
use crate::selector::{self, Asker, Pick};

/// The runner's models for steering, and what it remembers between turns.
pub(crate) struct Steering<'a> {
    models: &'a Models,
    runtime: &'a tokio::runtime::Runtime,
    /// The agent the verifier spoke before, who goes on after it.
    pub(crate) after_verifier: Option<String>,
}

impl<'a> Steering<'a> {
    pub(crate) fn new(
        _config: &RunConfig,
        models: &'a Models,
        runtime: &'a tokio::runtime::Runtime,
    ) -> Steering<'a> {
        Steering {
            models,
            runtime,
            after_verifier: None,
        }
    }

    /// Asks the selection's model (`llm`, `magentic`) who speaks next.
    pub(crate) fn pick(
        &self,
        config: &RunConfig,
        state: &RunState,
        task: &str,
        router: &mut RouterState,
        tokens: &mut BTreeMap<String, Usage>,
    ) -> Pick {
        let selection = config.gates().config().selection();
        let Some(alias) = config.selector_model.as_deref() else {
            return Pick::Stuck("the selection has no model".to_owned());
        };
        let Some(client) = self.models.get(alias) else {
            return Pick::Stuck(format!("no model `{alias}`"));
        };
        let role = if selection.kind == SelectionKind::Magentic {
            "manager"
        } else {
            "selector"
        };
        let asker = Asker {
            client: client.as_ref(),
            model: config.model(alias),
            runtime: self.runtime,
            role,
        };
        let usage = tokens.entry(format!("({role})")).or_default();
        match (&selection.magentic, selection.kind) {
            (Some(settings), SelectionKind::Magentic) => selector::magentic(
                &asker,
                settings,
                task,
                &config.agents,
                &state.transcript,
                &mut router.selector,
                usage,
            ),
            _ => selector::llm(
                &asker,
                selection.prompt.as_deref(),
                &config.agents,
                &state.transcript,
                usage,
            ),
        }
    }

    /// Settles `decision` of `current`'s reply: the next agent and the note it gets, a model's
    /// pick, and the terminations the router cannot decide.
    #[expect(
        clippy::too_many_arguments,
        reason = "the run loop's state, passed as it is"
    )]
    pub(crate) fn settle(
        &self,
        config: &'a RunConfig,
        decision: &mut Decision,
        state: &RunState,
        task: &str,
        router: &mut RouterState,
        tokens: &mut BTreeMap<String, Usage>,
        next: &mut &'a AgentConfig,
        message: &mut Option<String>,
        workdir: &Path,
        spent: u64,
    ) {
        let current = *next;
        match decision.clone() {
            Decision::Route {
                to: None,
                keyword,
                from,
            } if config.gates().config().selection().kind.is_model_driven() => {
                match self.pick(config, state, task, router, tokens) {
                    Pick::Next { agent, note } => {
                        *next = config.agent(&agent).unwrap_or(current);
                        *message = Some(note);
                        *decision = Decision::Route {
                            to: Some(next.name.clone()),
                            keyword,
                            from,
                        };
                    }
                    Pick::Done(reason) => *decision = Decision::Terminate { reason },
                    Pick::Stuck(reason) => {
                        *decision = Decision::Stuck {
                            agent: None,
                            validator: "selector".to_owned(),
                            failures: 1,
                            last_message: reason,
                        };
                    }
                }
            }
            Decision::Route { to, keyword, from } => {
                *next = to
                    .as_deref()
                    .and_then(|to| config.agent(to))
                    .unwrap_or(current);
                let who = from.as_deref().unwrap_or(&current.name);
                let mut note = if keyword.is_empty() {
                    format!(
                        "[routing] {who} finished: {} takes the next turn.",
                        next.name
                    )
                } else {
                    format!(
                        "[routing] {who} wrote {keyword}: {} takes the next turn.",
                        next.name
                    )
                };
                note.push_str(&handoff_context(config, &keyword, router, workdir));
                *message = Some(note);
            }
            Decision::Correct {
                message: m, agent, ..
            } => {
                *next = agent
                    .as_deref()
                    .and_then(|a| config.agent(a))
                    .unwrap_or(current);
                *message = Some(m);
            }
            Decision::Terminate { .. } | Decision::Stuck { .. } => return,
        }
        if matches!(
            decision,
            Decision::Terminate { .. } | Decision::Stuck { .. }
        ) {
            return;
        }
        let strategies = config
            .gates()
            .config()
            .termination()
            .map(vouch_gate::Termination::all)
            .unwrap_or_default();
        for s in &strategies {
            if s.kind == TerminationKind::TokenBudget
                && let Some(max) = s.max_tokens
                && spent >= max
            {
                *decision = Decision::Terminate {
                    reason: format!(
                        "the agents have used {spent} tokens, and the `tokenbudget` termination ends the run at {max}."
                    ),
                };
                return;
            }
        }
        let applies = |s: &&&vouch_gate::Termination| {
            s.kind == TerminationKind::Llm
                && (s.agent_names.is_empty()
                    || s.agent_names
                        .iter()
                        .any(|n| n.eq_ignore_ascii_case(&current.name)))
        };
        if let Some(llm) = strategies.iter().find(applies)
            && matches!(decision, Decision::Route { .. })
        {
            let Some(alias) = config.termination_model.as_deref() else {
                return;
            };
            let Some(client) = self.models.get(alias) else {
                return;
            };
            let asker = Asker {
                client: client.as_ref(),
                model: config.model(alias),
                runtime: self.runtime,
                role: "terminator",
            };
            let usage = tokens.entry("(terminator)".to_owned()).or_default();
            match selector::done(&asker, llm.prompt.as_deref(), &state.transcript, usage) {
                Ok(Some(reason)) => *decision = Decision::Terminate { reason },
                Ok(None) => {}
                Err(e) => {
                    *decision = Decision::Stuck {
                        agent: None,
                        validator: "llm termination".to_owned(),
                        failures: 1,
                        last_message: e,
                    };
                }
            }
        }
    }
}

/// Returns the text a transition's `HandoffContext` hands over with it: each file, read from
/// the working directory (its absence said).
fn handoff_context(
    config: &RunConfig,
    keyword: &str,
    router: &RouterState,
    workdir: &Path,
) -> String {
    let Some(to) = router.state.as_deref() else {
        return String::new();
    };
    let mut out = String::new();
    for route in config.gates().config().routes() {
        let Some(link) = &route.transition else {
            continue;
        };
        if !link.to.eq_ignore_ascii_case(to) || !route.keyword.eq_ignore_ascii_case(keyword) {
            continue;
        }
        for file in &route.handoff_context {
            let text = std::fs::read_to_string(workdir.join(file))
                .unwrap_or_else(|e| format!("(cannot be read: {e})"));
            let cut: String = text.chars().take(20_000).collect();
            let _ = write!(out, "\n\n[handoff context] {file}:\n{cut}");
        }
    }
    out
}
