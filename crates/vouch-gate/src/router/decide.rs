//! The router: one pure decision per reply — route, correct, terminate or stuck.

use std::path::{Path, PathBuf};

use regex::Regex;
use vouch_evidence::{ChangeLog, EvidenceView};
use vouch_session::{Diagnostic, Session};

use crate::config::{ConfigErrors, Location, SelectionKind, Termination, TerminationKind};
use crate::gate::GateSet;
use crate::predicate::Verdict;
use crate::router::keywords::Keywords;
use crate::router::reply::{Reply, count_replies, last_reply};
use crate::router::select::{Selected, select};
use crate::router::state::{Acted, RouterState};
use crate::router::{CorrectionKind, Decision, messages};
use crate::stuck::Correction;

/// A configuration ready to route: its gates, its keywords and its termination strategies.
#[derive(Debug)]
pub struct Router {
    gates: GateSet,
    keywords: Keywords,
    /// The smallest `MaxIterations` of the termination, when there is one.
    cap: Option<u32>,
    /// The `regex` strategies: pattern, `AgentNames`, and where each was written.
    patterns: Vec<(Regex, Vec<String>, Location)>,
}

/// The history a decision is taken on.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct History<'s> {
    /// The conversation, up to and including the reply to decide.
    pub session: &'s Session,
    /// The folder artifact paths are relative to, and where commands run.
    pub workdir: PathBuf,
    /// The agent that wrote the reply, when the log does not name it (or to override it).
    pub agent: Option<&'s str>,
    /// The lines the read of the log skipped (its diagnostics): with any, the router lets
    /// nothing through (decisions G4 and D20).
    pub diagnostics: &'s [Diagnostic],
    /// The change log to decide on instead of the file the configuration names: a runner's
    /// own record, which its agents cannot write.
    pub change_log: Option<&'s ChangeLog>,
}

impl<'s> History<'s> {
    /// Returns the history of `session`, with artifacts under `workdir`.
    pub fn new(session: &'s Session, workdir: impl Into<PathBuf>) -> History<'s> {
        History {
            session,
            workdir: workdir.into(),
            agent: None,
            diagnostics: &[],
            change_log: None,
        }
    }

    /// Decides on `log` instead of the change log file.
    #[must_use]
    pub fn change_log(mut self, log: &'s ChangeLog) -> History<'s> {
        self.change_log = Some(log);
        self
    }

    /// Names the agent that wrote the reply.
    #[must_use]
    pub fn agent(mut self, agent: Option<&'s str>) -> History<'s> {
        self.agent = agent;
        self
    }

    /// Records the lines the read of the log skipped.
    #[must_use]
    pub fn diagnostics(mut self, diagnostics: &'s [Diagnostic]) -> History<'s> {
        self.diagnostics = diagnostics;
        self
    }
}

/// A decision, the state to keep for the next one, and what it was taken on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Routed {
    /// The decision.
    pub decision: Decision,
    /// The state after it: save it and pass it to the next decision.
    pub state: RouterState,
    /// The number of replies in the history, the decided one included.
    pub iteration: u32,
    /// The agent whose reply was decided.
    pub agent: Option<String>,
    /// True when the reply had been decided already: the decision is the one taken then, and
    /// the state is unchanged.
    pub repeated: bool,
}

/// Why no decision could be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// The history has no reply after its last user message.
    #[error(
        "nothing to route: the session ends with a user message (or holds no agent reply); route after the agent replies"
    )]
    NoReply,
}

impl Router {
    /// Loads the configuration at `path` and builds its router.
    pub fn load(path: &Path) -> Result<Router, ConfigErrors> {
        GateSet::load(path).map(Router::new)
    }

    /// Builds the router of a configuration's gates.
    pub fn new(gates: GateSet) -> Router {
        let config = gates.config();
        let keywords = Keywords::new(&config.routes);
        let strategies: Vec<&Termination> = config
            .termination
            .iter()
            .flat_map(Termination::all)
            .collect();
        let cap = strategies
            .iter()
            .filter(|t| {
                matches!(
                    t.kind,
                    TerminationKind::MaxIterations | TerminationKind::Composite
                )
            })
            .filter_map(|t| t.max_iterations)
            .min();
        let patterns = strategies
            .iter()
            .filter(|t| t.kind == TerminationKind::Regex)
            .filter_map(|t| Some((t.pattern.clone()?, t.agent_names.clone(), t.location)))
            .collect();
        Router {
            gates,
            keywords,
            cap,
            patterns,
        }
    }

    /// Returns the gates.
    pub fn gates(&self) -> &GateSet {
        &self.gates
    }

    /// Decides what follows the reply that ends `history`, given the state the previous
    /// decision returned. Pure: the same history, artifacts and state give the same result.
    pub fn decide(&self, history: &History<'_>, state: &RouterState) -> Result<Routed, RouteError> {
        let session = history.session;
        let reply = last_reply(session).ok_or(RouteError::NoReply)?;
        let iteration = count_replies(session);
        let agent = history.agent.or(reply.agent);
        if let Some(acted) = &state.last
            && acted.seq == reply.last_seq
        {
            return Ok(Routed {
                decision: acted.decision.clone(),
                state: state.clone(),
                iteration,
                agent: agent.map(str::to_owned),
                repeated: true,
            });
        }
        let mut state = state.clone();
        let current = self.current_state(&state).map(str::to_owned);
        let step = match self.special(&mut state, agent, iteration, current.as_deref()) {
            Some(step) => step,
            None => self.verdict(history, &reply, agent, iteration, current.as_deref()),
        };
        let decision = match step {
            Step::Done(decision) => {
                state.counters.remove(agent.unwrap_or(""));
                self.enter(decision, current.as_deref(), agent, &mut state)
            }
            Step::Correct {
                kind,
                validator,
                message,
                recovery,
            } => {
                let counter = state
                    .counters
                    .entry(agent.unwrap_or("").to_owned())
                    .or_default();
                let label = validator.as_deref().unwrap_or(kind.label());
                match counter.correct(label, &message, self.gates.config().stuck_threshold) {
                    // A transition with a `RecoveryAgent`, blocked twice in a row: that agent
                    // takes a turn on the block before the state's agent tries again.
                    Correction::Correct { consecutive }
                        if consecutive >= 2
                            && recovery.as_deref().is_some_and(|r| {
                                !agent.is_some_and(|a| a.eq_ignore_ascii_case(r))
                            }) =>
                    {
                        let recovery = recovery.unwrap_or_default();
                        state.recovering = Some(recovery.clone());
                        Decision::Correct {
                            message: format!(
                                "{message}\n\n[recovery] {} was blocked {consecutive} times in a row here. {recovery}: fix what blocks it; then {} tries again.",
                                agent.unwrap_or("The agent"),
                                agent.unwrap_or("the agent"),
                            ),
                            agent: Some(recovery),
                            kind,
                            validator,
                            consecutive,
                        }
                    }
                    Correction::Correct { consecutive } => Decision::Correct {
                        agent: agent.map(str::to_owned),
                        kind,
                        validator,
                        message,
                        consecutive,
                    },
                    Correction::Stuck { failures } => Decision::Stuck {
                        agent: agent.map(str::to_owned),
                        validator: label.to_owned(),
                        failures,
                        last_message: message,
                    },
                }
            }
        };
        state.last = Some(Acted {
            seq: reply.last_seq,
            decision: decision.clone(),
        });
        Ok(Routed {
            decision,
            state,
            iteration,
            agent: agent.map(str::to_owned),
            repeated: false,
        })
    }

    /// Decides what no reply's content decides: the cap, a reply in a terminal state (the run
    /// ends after it), and a recovery agent's reply (back to the state's own agent).
    fn special(
        &self,
        state: &mut RouterState,
        agent: Option<&str>,
        iteration: u32,
        current: Option<&str>,
    ) -> Option<Step> {
        if self.cap.is_some_and(|cap| iteration >= cap) {
            return None;
        }
        let who = agent.unwrap_or("the agent");
        if let Some(recovering) = state.recovering.clone()
            && agent.is_some_and(|a| a.eq_ignore_ascii_case(&recovering))
        {
            state.recovering = None;
            let back = current
                .and_then(|c| self.gates.config().state(c))
                .and_then(|s| s.agent.clone());
            return Some(Step::Done(Decision::Route {
                to: back,
                keyword: "recovered".to_owned(),
                from: agent.map(str::to_owned),
            }));
        }
        let terminal = current
            .and_then(|c| self.gates.config().state(c))
            .filter(|s| s.terminal)?;
        Some(Step::Done(Decision::Terminate {
            reason: format!(
                "{who} took its turn in `{}`, a terminal state: the run ends after it.",
                terminal.name
            ),
        }))
    }

    /// Returns the current state of a state machine (its first state before any transition);
    /// `None` for keyword selection.
    fn current_state<'a>(&'a self, state: &'a RouterState) -> Option<&'a str> {
        let first = self.gates.config().states().first()?;
        Some(state.state.as_deref().unwrap_or(&first.name))
    }

    /// Follows a state machine's transition that `decision` takes: the state becomes its
    /// target, and a terminal target ends the run. Keyword selection passes it through.
    fn enter(
        &self,
        decision: Decision,
        current: Option<&str>,
        agent: Option<&str>,
        state: &mut RouterState,
    ) -> Decision {
        let (Decision::Route { keyword, .. }, Some(from)) = (&decision, current) else {
            return decision;
        };
        let Some(link) = self
            .gates
            .transition(keyword, from)
            .and_then(|g| g.routes.first().and_then(|r| r.transition.clone()))
        else {
            return decision;
        };
        let terminal = self
            .gates
            .config()
            .state(&link.to)
            .is_some_and(|s| s.terminal);
        state.state = Some(link.to.clone());
        let speaker = self
            .gates
            .config()
            .state(&link.to)
            .and_then(|s| s.agent.as_deref());
        // A terminal state spoken by another agent gives that agent the last turn.
        let last_turn = speaker.is_some_and(|s| !agent.is_some_and(|a| a.eq_ignore_ascii_case(s)));
        if terminal && !last_turn {
            Decision::Terminate {
                reason: format!(
                    "{} wrote `{keyword}` in state `{from}`, its transition's gates passed, and `{}` is a terminal state.",
                    agent.unwrap_or("the agent"),
                    link.to
                ),
            }
        } else {
            decision
        }
    }

    /// Decides on the reply, before the stuck counter has its say.
    fn verdict(
        &self,
        history: &History<'_>,
        reply: &Reply<'_>,
        agent: Option<&str>,
        iteration: u32,
        current: Option<&str>,
    ) -> Step {
        if let Some(cap) = self.cap
            && iteration >= cap
        {
            return Step::Done(Decision::Terminate {
                reason: format!(
                    "MaxIterations reached: {iteration} replies, and the cap is {cap}. The cap ends the run whatever the gates say."
                ),
            });
        }
        let kind = self.gates.config().selection().kind;
        let keyed = matches!(kind, SelectionKind::Keyword | SelectionKind::StateMachine);
        let found = match reply.handoff.filter(|_| keyed) {
            Some(keyword) => match self.keywords.lookup(keyword) {
                Some(i) => vec![i],
                None => {
                    return Step::correct(
                        CorrectionKind::UnknownKeyword,
                        messages::unknown_keyword(keyword, agent, &self.allowed(agent, current)),
                    );
                }
            },
            None => self.keywords.find(&reply.text),
        };
        let mut view = EvidenceView::new(
            history.session,
            &history.workdir,
            self.gates.config().validation.paths.clone(),
        )
        .with_turn_start(reply.start)
        .with_diagnostics(history.diagnostics);
        if let Some(log) = history.change_log {
            view = view.with_change_log(log);
        }
        let matched = self.termination_matches(&reply.text, agent);
        let (keyword, gate) = match found.as_slice() {
            [] if matched.is_empty() && !keyed => return self.selected(&view, agent, &reply.text),
            [] if matched.is_empty() => {
                // A transition without a signal fires on any other reply of its state's agent.
                if let Some(from) = current
                    && let Some(gate) = self.gates.transition("", from)
                {
                    (None, gate)
                } else {
                    return Step::correct(
                        CorrectionKind::NoKeyword,
                        messages::no_keyword(agent, &self.allowed(agent, current)),
                    );
                }
            }
            [] => {
                let gate = self.gates.completion_where(agent, |t| {
                    t.kind == TerminationKind::Composite
                        || matched.iter().any(|(_, at)| *at == t.location)
                });
                (None, gate)
            }
            [one] => {
                let keyword = self.keywords.get(*one);
                let gate = match current {
                    Some(from) => self.gates.transition(keyword, from),
                    None => self.gates.handoff(keyword, agent),
                };
                match gate {
                    Some(gate) => (Some(keyword), gate),
                    None => {
                        let owners = self.owners(keyword);
                        return Step::correct(
                            CorrectionKind::ForeignKeyword,
                            messages::foreign(
                                keyword,
                                &owners,
                                agent,
                                &self.allowed(agent, current),
                            ),
                        );
                    }
                }
            }
            several => {
                let names: Vec<&str> = several.iter().map(|&i| self.keywords.get(i)).collect();
                return Step::correct(CorrectionKind::Ambiguous, messages::ambiguous(&names));
            }
        };
        if let Verdict::Block(block) = gate.evaluate(&view) {
            return Step::Correct {
                kind: CorrectionKind::Blocked,
                validator: Some(block.validator),
                message: block.message,
                recovery: gate.routes.iter().find_map(|r| r.recovery_agent.clone()),
            };
        }
        // A transition without a signal: routed on no keyword.
        let keyword = keyword.or_else(|| {
            gate.routes
                .first()
                .filter(|r| r.keyword.is_empty() && r.transition.is_some())
                .map(|_| "")
        });
        let who = agent.unwrap_or("the agent");
        let pattern = matched.first().map(|(p, _)| *p);
        let decision = match (keyword, pattern) {
            // A route that passed is the authoritative gate: a termination pattern that also
            // matches ends the run without evaluating its own validators again (validator spec).
            (Some(keyword), Some(pattern)) => Decision::Terminate {
                reason: format!(
                    "{who} wrote `{keyword}`, its route's gates passed, and it matches the termination pattern `{pattern}`."
                ),
            },
            (Some(keyword), None) => Decision::Route {
                to: gate.routes.first().and_then(|r| r.agent.clone()),
                keyword: keyword.to_owned(),
                from: agent.map(str::to_owned),
            },
            (None, pattern) => Decision::Terminate {
                reason: format!(
                    "{who}'s reply matches the termination pattern `{}`, and the termination's gates passed.",
                    pattern.unwrap_or_default()
                ),
            },
        };
        Step::Done(decision)
    }

    /// Applies a selection without keywords to a reply that ended nothing.
    fn selected(&self, view: &EvidenceView<'_>, agent: Option<&str>, text: &str) -> Step {
        let config = self.gates.config();
        let kind = config.selection().kind;
        match select(config, agent, text) {
            Selected::Next { to, why } => Step::Done(Decision::Route {
                to: Some(to),
                keyword: why,
                from: agent.map(str::to_owned),
            }),
            Selected::Structured(route) => {
                let gate = self.gates.structured(route);
                if let Verdict::Block(block) = gate.evaluate(view) {
                    return Step::Correct {
                        kind: CorrectionKind::Blocked,
                        validator: Some(block.validator),
                        message: block.message,
                        recovery: None,
                    };
                }
                Step::Done(Decision::Route {
                    to: route.agent.clone(),
                    keyword: format!("structured: {}", route.keyword),
                    from: agent.map(str::to_owned),
                })
            }
            Selected::ByModel => Step::Done(Decision::Route {
                to: None,
                keyword: kind.name().to_owned(),
                from: agent.map(str::to_owned),
            }),
            Selected::Done(reason) => Step::Done(Decision::Terminate { reason }),
            Selected::NotJson(message) => Step::correct(CorrectionKind::NotJson, message),
            Selected::NoRoute(message) => Step::correct(CorrectionKind::NoRoute, message),
        }
    }

    /// Returns the `regex` strategies that apply to `agent` and match `text`: each pattern and
    /// where it was written.
    fn termination_matches(&self, text: &str, agent: Option<&str>) -> Vec<(&str, Location)> {
        self.patterns
            .iter()
            .filter(|(_, names, _)| {
                names.is_empty()
                    || agent.is_some_and(|a| names.iter().any(|n| n.eq_ignore_ascii_case(a)))
            })
            .filter(|(re, _, _)| re.is_match(text))
            .map(|(re, _, at)| (re.as_str(), *at))
            .collect()
    }

    /// Returns the keywords `agent` may use — in a state machine, the signals of the current
    /// state's transitions — each once, in the order of the routes.
    fn allowed(&self, agent: Option<&str>, current: Option<&str>) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for route in self.gates.config().routes.iter().filter(|r| match current {
            Some(from) => r
                .transition
                .as_ref()
                .is_some_and(|t| t.from.eq_ignore_ascii_case(from)),
            None => r.allows(agent),
        }) {
            if !out.iter().any(|k| k.eq_ignore_ascii_case(&route.keyword)) {
                out.push(&route.keyword);
            }
        }
        out
    }

    /// Returns the agents whose routes use `keyword`.
    fn owners(&self, keyword: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for route in &self.gates.config().routes {
            if route.keyword.eq_ignore_ascii_case(keyword) {
                for a in &route.source_agents {
                    if !out.contains(&a.as_str()) {
                        out.push(a);
                    }
                }
            }
        }
        out
    }
}

/// A decision before stuck detection.
enum Step {
    /// Route or terminate: a clean turn.
    Done(Decision),
    /// Correct the agent.
    Correct {
        kind: CorrectionKind,
        validator: Option<String>,
        message: String,
        /// The `RecoveryAgent` of the transition that blocked.
        recovery: Option<String>,
    },
}

impl Step {
    fn correct(kind: CorrectionKind, message: String) -> Step {
        Step::Correct {
            kind,
            validator: None,
            message,
            recovery: None,
        }
    }
}
