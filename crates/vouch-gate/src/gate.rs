//! Gates built from a configuration: the validators of each route, of the termination
//! strategies and of the stop hook, ready to evaluate on evidence.

use std::path::Path;

use vouch_evidence::EvidenceView;

use crate::config::{
    CommandPatterns, ConfigErrors, ContractRef, PipelineConfig, PredicateRef, Route, Termination,
    TerminationKind, ValidatorRef,
};
use crate::contracts::Contract;
use crate::predicate::{GateContext, Predicate, Verdict, evaluate_gate};

/// A configuration with its predicates built. Loading checks everything once; a `GateSet`
/// cannot hold an unknown validator, an undeclared contract or a broken pattern.
#[derive(Debug)]
pub struct GateSet {
    config: PipelineConfig,
    contracts: Vec<Contract>,
    routes: Vec<Built>,
    /// The gates of a structured selection's routes, in order.
    structured: Vec<Built>,
    strategies: Vec<(Termination, Built)>,
    stop: Vec<Box<dyn Predicate>>,
    subagent_stop: Option<Vec<Box<dyn Predicate>>>,
}

/// The predicates of one route or strategy: its validators, then its contracts (shared, by
/// index), then the predicates it requires itself.
#[derive(Debug)]
struct Built {
    validators: Vec<Box<dyn Predicate>>,
    contracts: Vec<usize>,
    requires: Vec<Box<dyn Predicate>>,
}

impl Built {
    fn predicates<'g>(
        &'g self,
        contracts: &'g [Contract],
    ) -> impl Iterator<Item = &'g dyn Predicate> {
        self.validators
            .iter()
            .map(AsRef::as_ref)
            .chain(
                // Built from a loaded configuration, whose contract references all point at a
                // declared contract, and `contracts` is built from that same list.
                self.contracts
                    .iter()
                    .map(|&i| &contracts[i] as &dyn Predicate),
            )
            .chain(self.requires.iter().map(AsRef::as_ref))
    }

    fn is_empty(&self) -> bool {
        self.validators.is_empty() && self.contracts.is_empty() && self.requires.is_empty()
    }
}

/// The predicates one decision runs, in order, and the keyword their messages name.
#[derive(Debug)]
pub struct Gate<'g> {
    /// The keyword messages name (`HANDOFF TO TESTER`, `APPROVED`, `Completion`).
    pub keyword: String,
    /// The routes the keyword takes (empty for completion gates).
    pub routes: Vec<&'g Route>,
    predicates: Vec<&'g dyn Predicate>,
}

impl GateSet {
    /// Loads the configuration at `path` and builds its gates.
    pub fn load(path: &Path) -> Result<GateSet, ConfigErrors> {
        crate::config::load(path).map(GateSet::new)
    }

    /// Loads the configuration at `path` and builds its gates, with strict evidence on when
    /// `strict` is true (`--strict`) whatever the configuration says.
    pub fn load_with_strict(path: &Path, strict: bool) -> Result<GateSet, ConfigErrors> {
        crate::config::load(path)
            .map(|c| if strict { c.strict() } else { c })
            .map(GateSet::new)
    }

    /// Builds the gates of a loaded configuration.
    pub fn new(config: PipelineConfig) -> GateSet {
        let validators =
            |refs: &[ValidatorRef], patterns: CommandPatterns<'_>| -> Vec<Box<dyn Predicate>> {
                refs.iter()
                    .map(|r| r.kind.build(patterns, &config))
                    .collect()
            };
        let requires = |refs: &[PredicateRef], owner: &str| -> Vec<Box<dyn Predicate>> {
            refs.iter().map(|r| r.kind.build(owner, &config)).collect()
        };
        let indexes = |refs: &[ContractRef]| refs.iter().map(|r| r.index).collect();
        let contracts = config
            .contracts
            .iter()
            .map(|c| {
                Contract::new(
                    c.name.clone(),
                    requires(&c.requires, &format!("contract {}", c.name)),
                )
            })
            .collect();
        let route = |r: &Route| Built {
            validators: validators(&r.validators, r.patterns()),
            contracts: indexes(&r.contracts),
            requires: requires(&r.requires, &format!("route `{}`", r.keyword)),
        };
        let routes = config.routes.iter().map(route).collect();
        let structured = config.selection.structured.iter().map(route).collect();
        let strategies = config
            .termination
            .iter()
            .flat_map(Termination::all)
            .map(|t| {
                let built = Built {
                    validators: validators(&t.validators, CommandPatterns::default()),
                    contracts: indexes(&t.contracts),
                    requires: requires(&t.requires, "the termination"),
                };
                (t.clone(), built)
            })
            .filter(|(_, built)| !built.is_empty())
            .collect();
        let stop = validators(&config.hooks.stop, config.hooks.patterns());
        let subagent_stop = config
            .hooks
            .subagent_stop
            .as_deref()
            .map(|v| validators(v, config.hooks.patterns()));
        GateSet {
            config,
            contracts,
            routes,
            structured,
            strategies,
            stop,
            subagent_stop,
        }
    }

    /// Returns the configuration.
    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// Returns the gate of a state machine's transition: the validators and contracts of every
    /// transition of `keyword` (matched case-insensitively) out of state `from`; `None` when
    /// that state has no such transition.
    pub fn transition(&self, keyword: &str, from: &str) -> Option<Gate<'_>> {
        let keyword = keyword.trim();
        self.gate_of(|r| {
            r.keyword.eq_ignore_ascii_case(keyword)
                && r.transition
                    .as_ref()
                    .is_some_and(|t| t.from.eq_ignore_ascii_case(from))
        })
    }

    /// Returns the gate of one of a structured selection's routes (the route must be one of
    /// [`crate::config::Selection::structured`] of this configuration; another has no gate).
    pub fn structured(&self, route: &Route) -> Gate<'_> {
        let i = self
            .config
            .selection
            .structured
            .iter()
            .position(|r| std::ptr::eq(r, route));
        Gate {
            keyword: route.keyword.clone(),
            routes: i
                .map(|i| &self.config.selection.structured[i])
                .into_iter()
                .collect(),
            predicates: i
                .and_then(|i| self.structured.get(i))
                .map(|b| b.predicates(&self.contracts).collect())
                .unwrap_or_default(),
        }
    }

    /// Returns the gate of a handoff: the validators of every route of `keyword` (matched
    /// case-insensitively) that `agent` may use, in the order of the routes; `None` when no
    /// route takes the keyword from that agent.
    pub fn handoff(&self, keyword: &str, agent: Option<&str>) -> Option<Gate<'_>> {
        let keyword = keyword.trim();
        self.gate_of(|r| r.keyword.eq_ignore_ascii_case(keyword) && r.allows(agent))
    }

    /// Returns the gate of the routes `take` selects, in order; `None` when it selects none.
    fn gate_of(&self, take: impl Fn(&Route) -> bool) -> Option<Gate<'_>> {
        let matching: Vec<usize> = (0..self.config.routes.len())
            .filter(|&i| take(&self.config.routes[i]))
            .collect();
        let first = *matching.first()?;
        Some(Gate {
            keyword: self.config.routes[first].keyword.clone(),
            routes: matching.iter().map(|&i| &self.config.routes[i]).collect(),
            predicates: matching
                .iter()
                .flat_map(|&i| self.routes[i].predicates(&self.contracts))
                .collect(),
        })
    }

    /// Returns the gate of a completion: the validators of the termination strategies that
    /// look at `agent`'s messages (all strategies when no agent is given). A `maxiterations`
    /// strategy is a hard cap that no validator holds back, so its validators never run here.
    pub fn completion(&self, agent: Option<&str>) -> Gate<'_> {
        self.completion_where(agent, |_| true)
    }

    /// Returns the gate of a completion by the strategies `keep` selects among those
    /// [`GateSet::completion`] would run.
    pub fn completion_where(
        &self,
        agent: Option<&str>,
        keep: impl Fn(&Termination) -> bool,
    ) -> Gate<'_> {
        let applicable: Vec<&(Termination, Built)> = self
            .strategies
            .iter()
            .filter(|(t, _)| t.kind != TerminationKind::MaxIterations && keep(t))
            .filter(|(t, _)| match agent {
                Some(a) => {
                    t.agent_names.is_empty()
                        || t.agent_names.iter().any(|n| n.eq_ignore_ascii_case(a))
                }
                None => true,
            })
            .collect();
        let keyword = applicable
            .iter()
            .find_map(|(t, _)| t.pattern.as_ref().and_then(|p| literal_keyword(p.as_str())))
            .unwrap_or_else(|| "Completion".to_owned());
        Gate {
            keyword,
            routes: Vec::new(),
            predicates: applicable
                .iter()
                .flat_map(|(_, built)| built.predicates(&self.contracts))
                .collect(),
        }
    }

    /// Returns the gate of an agent product's stop hook (`Hooks.Stop`, or `Hooks.SubagentStop`
    /// for a subagent when configured); when `Hooks` names no validator, the completion gate.
    pub fn stop(&self, subagent: bool) -> Gate<'_> {
        let list = match (&self.subagent_stop, subagent) {
            (Some(list), true) => list,
            _ => &self.stop,
        };
        if list.is_empty() && self.config.hooks.stop.is_empty() {
            return self.completion(None);
        }
        Gate {
            keyword: self.config.hooks.keyword.clone(),
            routes: Vec::new(),
            predicates: list.iter().map(AsRef::as_ref).collect(),
        }
    }
}

impl Gate<'_> {
    /// Returns true when the gate runs no predicate (and so always passes).
    pub fn is_empty(&self) -> bool {
        self.predicates.is_empty()
    }

    /// Returns the names of the predicates, in order.
    pub fn names(&self) -> Vec<&str> {
        self.predicates.iter().map(|p| p.name()).collect()
    }

    /// Returns how many of the session's last turns the gate needs, or `None` for all of it.
    pub fn turns_needed(&self) -> Option<usize> {
        self.predicates
            .iter()
            .map(|p| p.turns_needed())
            .try_fold(1, |acc, n| n.map(|n| acc.max(n)))
    }

    /// Runs the predicates in order on `view`; the first block wins, and a pass over a log with
    /// unreadable lines blocks ([`evaluate_gate`]).
    pub fn evaluate(&self, view: &EvidenceView<'_>) -> Verdict {
        let cx = GateContext {
            view,
            keyword: &self.keyword,
        };
        evaluate_gate(self.predicates.iter().copied(), &cx)
    }
}

/// Returns the keyword a termination pattern like `(?m)^\s*APPROVED\s*$` matches, when the
/// pattern is a literal word or phrase between anchors.
fn literal_keyword(pattern: &str) -> Option<String> {
    let mut p = pattern.trim();
    for prefix in ["(?m)", "(?mi)", "(?im)", "(?i)", "^", r"\s*", r"\s+"] {
        p = p.strip_prefix(prefix).unwrap_or(p);
    }
    for suffix in ["$", r"\s*", r"\s+"] {
        p = p.strip_suffix(suffix).unwrap_or(p);
    }
    p = p.strip_suffix(r"\s*").unwrap_or(p);
    (!p.is_empty()
        && p.chars()
            .all(|c| c.is_alphanumeric() || c == ' ' || c == '_'))
    .then(|| p.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn termination_patterns_name_their_keyword() {
        assert_eq!(
            literal_keyword(r"(?m)^\s*APPROVED\s*$").as_deref(),
            Some("APPROVED")
        );
        assert_eq!(literal_keyword("DONE").as_deref(), Some("DONE"));
        assert_eq!(literal_keyword(r"(?m)^(APPROVED|DONE)$"), None);
    }
}
