//! Loading a pipeline configuration: the spec's YAML (decision G2: an optional `Orchestration`
//! root, keys matched case-insensitively, `Validators` winning over `Validator`), with every
//! unknown key, unknown name and invalid pattern reported at once with its place (G3).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_saphyr::Spanned;

use crate::config::error::{ConfigError, ConfigErrors, did_you_mean};
use crate::config::model::{
    Contract, ContractRef, DeclaredAgent, Hooks, PipelineConfig, PredicateRef, Route, StateLink,
    Termination, TerminationKind, TestSelector, Validation, ValidatorRef, Verifier,
};
use crate::config::node::{Location, Node};
use crate::config::reader::{Map, Reader, join, parse_yaml};
use crate::validators::ValidatorKind;

/// Sections the gates read; other top-level sections (an orchestrator's agents, models, ...)
/// are left alone unless their name is a near miss of one of these.
pub const SECTIONS: &[&str] = &[
    "Selection",
    "Verifier",
    "FailureHandling",
    "Termination",
    "Validation",
    "TestSelector",
    "ChangeTracking",
    "Hooks",
    "Contracts",
];

/// Loads the configuration at `path`.
pub fn load(path: &Path) -> Result<PipelineConfig, ConfigErrors> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigErrors {
        path: path.to_owned(),
        source_text: String::new(),
        errors: vec![ConfigError {
            location: Location::default(),
            key_path: String::new(),
            message: format!("failed to read the file: {e}"),
            hint: None,
        }],
    })?;
    parse(path, &text)
}

/// Parses a configuration's text; `path` names it in errors and anchors its relative paths.
pub fn parse(path: &Path, text: &str) -> Result<PipelineConfig, ConfigErrors> {
    match parse_partial(path, text) {
        (Some(config), errors) if errors.errors.is_empty() => Ok(config),
        (_, errors) => Err(errors),
    }
}

/// Parses a configuration's text as far as it can: the configuration without the parts that
/// are wrong (`None` when the text is not YAML), and every problem found.
pub fn parse_partial(path: &Path, text: &str) -> (Option<PipelineConfig>, ConfigErrors) {
    let mut cx = Cx {
        r: Reader::default(),
        contracts: Vec::new(),
    };
    let config = match parse_yaml(text) {
        Ok(root) => Some(cx.config(path, &root)),
        Err(e) => {
            cx.errors.push(e);
            None
        }
    };
    cx.errors
        .sort_by_key(|e| (e.location.line, e.location.column));
    let errors = ConfigErrors {
        path: path.to_owned(),
        source_text: text.to_owned(),
        errors: cx.r.errors,
    };
    (config, errors)
}

/// The loading context: the reader, and the names of the declared contracts.
pub(crate) struct Cx {
    r: Reader,
    contracts: Vec<String>,
}

impl std::ops::Deref for Cx {
    type Target = Reader;
    fn deref(&self) -> &Reader {
        &self.r
    }
}

impl std::ops::DerefMut for Cx {
    fn deref_mut(&mut self) -> &mut Reader {
        &mut self.r
    }
}

impl Cx {
    fn validators(&mut self, node: &Spanned<Node>, path: &str) -> Vec<ValidatorRef> {
        self.strings(node, path)
            .into_iter()
            .enumerate()
            .filter_map(|(i, (name, location))| {
                let kind = ValidatorKind::from_name(&name);
                if kind.is_none() {
                    let hint = did_you_mean(&name, ValidatorKind::ALL.iter().map(|k| k.name()))
                        .map(|k| format!("did you mean `{k}`?"))
                        .or_else(|| {
                            Some(format!(
                                "known validators: {}",
                                ValidatorKind::ALL.map(ValidatorKind::name).join(", ")
                            ))
                        });
                    let key_path = if matches!(node.value, Node::Seq(_)) {
                        format!("{path}[{i}]")
                    } else {
                        path.to_owned()
                    };
                    self.error(
                        location,
                        &key_path,
                        format!("unknown validator `{name}`"),
                        hint,
                    );
                }
                Some(ValidatorRef {
                    kind: kind?,
                    location,
                })
            })
            .collect()
    }

    /// Reads `Validator` and `Validators` of a mapping (`Validators` wins, decision G2).
    fn validator_keys(&mut self, map: &mut Map<'_>) -> Vec<ValidatorRef> {
        let many = map.get("Validators");
        let one = map.get("Validator");
        match many.or(one) {
            Some((node, path)) => self.validators(node, &path),
            None => Vec::new(),
        }
    }

    fn config(&mut self, path: &Path, root: &Spanned<Node>) -> PipelineConfig {
        let mut config = PipelineConfig::empty(path);
        let Some(mut top) = self.map(root, "") else {
            return config;
        };
        // Decision G2: the sections may sit under an `Orchestration` root.
        if let Some((node, p)) = top.get("Orchestration")
            && let Some(inner) = self.map(node, &p)
        {
            top = inner;
        }
        // Contracts first: routes and strategies name them.
        if let Some((node, p)) = top.get("Contracts") {
            config.contracts = self.contracts(node, &p);
        }
        if let Some((node, p)) = top.get("Selection") {
            let read = self.selection(node, &p);
            config.routes = read.routes;
            config.states = read.states;
            config.selection = read.selection;
            if let Some(t) = read.stuck_threshold {
                config.stuck_threshold = t;
            }
        }
        if let Some((node, p)) = top.get("Verifier") {
            config.verifier = self.verifier(node, &p);
        }
        if let Some((node, p)) = top.get("FailureHandling") {
            // fuseraft's thresholds of corrections are the stuck threshold (unless `Selection`
            // names one).
            if let Some(t) = self.failure_handling(node, &p)
                && !config_has_threshold(&top)
            {
                config.stuck_threshold = t;
            }
        }
        if let Some((node, p)) = top.get("Agents") {
            config.agents = agent_names(node, &p);
        }
        if let Some((node, p)) = top.get("Termination") {
            config.termination = self.termination(node, &p);
        }
        let mut change_tracking = None;
        if let Some((node, p)) = top.get("ChangeTracking")
            && let Some(mut m) = self.map(node, &p)
        {
            if let Some((n, p)) = m.get("Path") {
                change_tracking = self.string(n, &p);
            }
            let _ = m.get("Enabled");
            // vouch keeps a run's intents in its sealed journal, out of the agents' reach.
            if let Some((n, p)) = m.get("IntentLogPath") {
                let _ = self.string(n, &p);
            }
            self.unknown_keys(&m, &["Path", "Enabled", "IntentLogPath"]);
        }
        let mut change_log_set = false;
        if let Some((node, p)) = top.get("Validation") {
            (config.validation, change_log_set) = self.validation(node, &p);
        }
        // The change log is `Validation.ChangeLogPath`, else `ChangeTracking.Path`, else G1's.
        if let (Some(tracked), false) = (change_tracking, change_log_set) {
            config.validation.paths.change_log = PathBuf::from(tracked);
        }
        if let Some((node, p)) = top.get("TestSelector") {
            config.test_selector = self.test_selector(node, &p);
        }
        if let Some((node, p)) = top.get("Hooks") {
            config.hooks = self.hooks(node, &p);
        }
        // Other top-level sections belong to the orchestrator; a near miss of ours is a typo.
        for (i, (key, _)) in top.entries.iter().enumerate() {
            if top.used[i] {
                continue;
            }
            if let Some(section) = did_you_mean(&key.value, SECTIONS.iter().copied()) {
                let hint = Some(format!("did you mean `{section}`?"));
                self.error(
                    Location::of(key),
                    &join(&top.path, &key.value),
                    format!("unknown section `{}`", key.value),
                    hint,
                );
            }
        }
        config
    }

    /// Reads the gate keys a route and a transition share: validators, source agents,
    /// command patterns, contracts and requirements.
    pub(crate) fn gate_keys(&mut self, m: &mut Map<'_>) -> GateKeys {
        let validators = self.validator_keys(m);
        let source_agents = m
            .get("SourceAgents")
            .map(|(n, p)| self.strings(n, &p))
            .unwrap_or_default()
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        let (required, fallback) = self.patterns(m);
        let contracts = self.contract_refs(m);
        let requires = self.requires_key(m);
        GateKeys {
            validators,
            source_agents,
            required,
            fallback,
            contracts,
            requires,
        }
    }

    pub(crate) fn route(&mut self, node: &Spanned<Node>, path: &str) -> Option<Route> {
        let mut m = self.map(node, path)?;
        let keyword = match m.get("Keyword") {
            Some((n, p)) => self.string(n, &p).filter(|k| !k.trim().is_empty()),
            None => None,
        };
        if keyword.is_none() {
            self.error(m.location, path, "a route needs a `Keyword`", None);
        }
        let agent = m.get("Agent").and_then(|(n, p)| self.string(n, &p));
        let gates = self.gate_keys(&mut m);
        self.unknown_keys(
            &m,
            &[
                "Keyword",
                "Agent",
                "Validator",
                "Validators",
                "SourceAgents",
                "RequiredCommandPattern",
                "ShellFallbackPattern",
                "Contracts",
                "Requires",
            ],
        );
        Some(gates.route(keyword?.trim().to_owned(), agent, m.location, path, None))
    }

    fn termination(&mut self, node: &Spanned<Node>, path: &str) -> Option<Termination> {
        let mut m = self.map(node, path)?;
        let kind = match m.get("Type") {
            Some((n, p)) => match self
                .string(n, &p)
                .map(|s| s.to_ascii_lowercase())
                .as_deref()
            {
                Some("composite") => Some(TerminationKind::Composite),
                Some("regex") => Some(TerminationKind::Regex),
                Some("maxiterations") => Some(TerminationKind::MaxIterations),
                Some("tokenbudget") => Some(TerminationKind::TokenBudget),
                Some("llm") => Some(TerminationKind::Llm),
                Some(other) => {
                    let hint = did_you_mean(
                        other,
                        ["composite", "regex", "maxiterations", "tokenbudget", "llm"],
                    )
                    .map(|k| format!("did you mean `{k}`?"));
                    self.error(
                        Location::of(n),
                        &p,
                        format!("unknown termination type `{other}`"),
                        hint,
                    );
                    None
                }
                None => None,
            },
            None => {
                self.error(
                    m.location,
                    path,
                    "a termination strategy needs a `Type`",
                    Some("`composite`, `regex`, `maxiterations`, `tokenbudget` or `llm`".into()),
                );
                None
            }
        };
        let max_iterations = m
            .get("MaxIterations")
            .and_then(|(n, p)| self.positive(n, &p));
        let pattern = match m.get("Pattern") {
            Some((n, p)) => self
                .string(n, &p)
                .and_then(|s| self.regex(&s, Location::of(n), &p)),
            None => None,
        };
        let agent_names = m
            .get("AgentNames")
            .map(|(n, p)| self.strings(n, &p))
            .unwrap_or_default();
        let validators = self.validator_keys(&mut m);
        let mut strategies = Vec::new();
        if let Some((n, p)) = m.get("Strategies") {
            match &n.value {
                Node::Seq(items) => {
                    for (i, item) in items.iter().enumerate() {
                        strategies.extend(self.termination(item, &format!("{p}[{i}]")));
                    }
                }
                Node::Null => {}
                other => self.error(
                    Location::of(n),
                    &p,
                    format!("expected a list of strategies, found {}", other.kind()),
                    None,
                ),
            }
        }
        let contracts = self.contract_refs(&mut m);
        let requires = self.requires_key(&mut m);
        let max_tokens = m
            .get("MaxTokens")
            .and_then(|(n, p)| self.positive(n, &p))
            .map(u64::from);
        let prompt = m.get("Prompt").and_then(|(n, p)| self.string(n, &p));
        // An `llm` strategy's model is the runner's to read.
        let _ = m.get("Model");
        self.unknown_keys(
            &m,
            &[
                "Type",
                "MaxTokens",
                "Model",
                "Prompt",
                "MaxIterations",
                "Pattern",
                "AgentNames",
                "Validator",
                "Validators",
                "Strategies",
                "Contracts",
                "Requires",
            ],
        );
        match kind {
            Some(TerminationKind::Regex)
                if pattern.is_none()
                    && !self.errors.iter().any(|e| e.key_path.starts_with(path)) =>
            {
                self.error(
                    m.location,
                    path,
                    "a `regex` strategy needs a `Pattern`",
                    None,
                );
            }
            Some(TerminationKind::TokenBudget) if max_tokens.is_none() => {
                self.error(
                    m.location,
                    path,
                    "a `tokenbudget` strategy needs `MaxTokens`",
                    None,
                );
            }
            Some(TerminationKind::MaxIterations) if max_iterations.is_none() => {
                self.error(
                    m.location,
                    path,
                    "a `maxiterations` strategy needs `MaxIterations`",
                    None,
                );
            }
            _ => {}
        }
        Some(Termination {
            kind: kind?,
            max_iterations,
            pattern,
            agent_names: agent_names.into_iter().map(|(s, _)| s).collect(),
            validators,
            contracts,
            requires,
            strategies,
            max_tokens,
            prompt,
            location: m.location,
            key_path: path.to_owned(),
        })
    }

    /// Reads `Verifier`: the auditing agent and when it speaks.
    fn verifier(&mut self, node: &Spanned<Node>, path: &str) -> Option<Verifier> {
        let mut m = self.map(node, path)?;
        let agent = m.get("AgentName").and_then(|(n, p)| self.string(n, &p));
        let every = m
            .get("EveryNTurns")
            .and_then(|(n, p)| self.positive(n, &p))
            .unwrap_or(5);
        let on_suspicious = m
            .get("TriggerOnSuspiciousTransition")
            .and_then(|(n, p)| self.boolean(n, &p))
            .unwrap_or(false);
        let findings_keyword = m
            .get("FindingsKeyword")
            .and_then(|(n, p)| self.string(n, &p))
            .unwrap_or_else(|| "INCONSISTENCY".to_owned());
        self.unknown_keys(
            &m,
            &[
                "AgentName",
                "EveryNTurns",
                "TriggerOnSuspiciousTransition",
                "FindingsKeyword",
            ],
        );
        let Some(agent) = agent else {
            self.error(m.location, path, "a `Verifier` needs an `AgentName`", None);
            return None;
        };
        Some(Verifier {
            agent,
            every,
            on_suspicious,
            findings_keyword,
            location: m.location,
        })
    }

    /// Reads fuseraft's `FailureHandling`: each entry an `Action` (`Reinstruct`: correct the
    /// agent; `Abort`: end the run) and a `Threshold`. vouch has one counter of corrections in
    /// a row per agent; the smallest threshold becomes it. Returns that threshold.
    fn failure_handling(&mut self, node: &Spanned<Node>, path: &str) -> Option<u32> {
        let mut m = self.map(node, path)?;
        let mut smallest: Option<u32> = None;
        for key in ["MissingEvidence", "ConflictingEvidence", "NoProgress"] {
            let Some((n, p)) = m.get(key) else {
                continue;
            };
            let Some(mut e) = self.map(n, &p) else {
                continue;
            };
            if let Some((an, ap)) = e.get("Action")
                && let Some(action) = self.string(an, &ap)
                && !["reinstruct", "abort"].contains(&action.to_ascii_lowercase().as_str())
            {
                self.error(
                    Location::of(an),
                    &ap,
                    format!("unknown action `{action}`"),
                    Some("`Reinstruct` (correct the agent) or `Abort` (end the run)".into()),
                );
            }
            if let Some(t) = e
                .get("Threshold")
                .and_then(|(tn, tp)| self.positive(tn, &tp))
            {
                smallest = Some(smallest.map_or(t, |s| s.min(t)));
            }
            self.unknown_keys(&e, &["Action", "Threshold"]);
        }
        // Retries of an agent whose model fails: vouch's model clients retry on their own.
        if let Some((n, p)) = m.get("RetryCount") {
            let _ = self.number(n, &p);
        }
        if let Some((n, p)) = m.get("OnAgentFailure") {
            for (step, at) in self.strings(n, &p) {
                if !["checkpoint", "compact", "retry", "escalate"]
                    .contains(&step.to_ascii_lowercase().as_str())
                {
                    self.error(at, &p, format!("unknown failure step `{step}`"), None);
                }
            }
        }
        self.unknown_keys(
            &m,
            &[
                "MissingEvidence",
                "ConflictingEvidence",
                "NoProgress",
                "RetryCount",
                "OnAgentFailure",
            ],
        );
        smallest
    }

    /// Reads the `Validation` section; also says whether it names the change log.
    fn validation(&mut self, node: &Spanned<Node>, path: &str) -> (Validation, bool) {
        let mut v = Validation::default();
        let Some(mut m) = self.map(node, path) else {
            return (v, false);
        };
        if let Some(p) = m.get("BriefPath").and_then(|(n, p)| self.string(n, &p)) {
            v.paths.brief = PathBuf::from(p);
        }
        if let Some(p) = m
            .get("TestReportPath")
            .and_then(|(n, p)| self.string(n, &p))
        {
            v.paths.test_report = PathBuf::from(p);
        }
        let change_log = m.get("ChangeLogPath").and_then(|(n, p)| self.string(n, &p));
        let change_log_set = change_log.is_some();
        if let Some(p) = change_log {
            v.paths.change_log = PathBuf::from(p);
        }
        if let Some((n, p)) = m.get("TestAssertionPatterns") {
            let patterns = self.strings(n, &p);
            v.test_assertion_patterns = patterns
                .iter()
                .enumerate()
                .filter_map(|(i, (s, loc))| self.regex(s, *loc, &format!("{p}[{i}]")))
                .collect();
        }
        if let Some((n, p)) = m.get("Strict") {
            v.strict = self.boolean(n, &p);
        }
        self.unknown_keys(
            &m,
            &[
                "BriefPath",
                "TestReportPath",
                "ChangeLogPath",
                "TestAssertionPatterns",
                "Strict",
            ],
        );
        (v, change_log_set)
    }

    fn test_selector(&mut self, node: &Spanned<Node>, path: &str) -> TestSelector {
        let mut t = TestSelector::default();
        let Some(mut m) = self.map(node, path) else {
            return t;
        };
        t.find_related_command = m
            .get("FindRelatedCommand")
            .and_then(|(n, p)| self.string(n, &p));
        t.full_suite_command = m
            .get("FullSuiteCommand")
            .and_then(|(n, p)| self.string(n, &p));
        if let Some(secs) = m
            .get("TimeoutSeconds")
            .and_then(|(n, p)| self.positive(n, &p))
        {
            t.timeout = Duration::from_secs(u64::from(secs));
        }
        self.unknown_keys(
            &m,
            &["FindRelatedCommand", "FullSuiteCommand", "TimeoutSeconds"],
        );
        t
    }

    fn hooks(&mut self, node: &Spanned<Node>, path: &str) -> Hooks {
        let mut h = Hooks::default();
        let Some(mut m) = self.map(node, path) else {
            return h;
        };
        if let Some((n, p)) = m.get("Stop") {
            h.stop = self.validators(n, &p);
        }
        if let Some((n, p)) = m.get("SubagentStop") {
            h.subagent_stop = Some(self.validators(n, &p));
        }
        if let Some(t) = m
            .get("StuckThreshold")
            .and_then(|(n, p)| self.positive(n, &p))
        {
            h.stuck_threshold = t;
        }
        if let Some(k) = m.get("Keyword").and_then(|(n, p)| self.string(n, &p)) {
            h.keyword = k;
        }
        if let Some(d) = m.get("StateDir").and_then(|(n, p)| self.string(n, &p)) {
            h.state_dir = PathBuf::from(d);
        }
        (h.required_command_pattern, h.shell_fallback_pattern) = self.patterns(&mut m);
        self.unknown_keys(
            &m,
            &[
                "Stop",
                "SubagentStop",
                "StuckThreshold",
                "Keyword",
                "StateDir",
                "RequiredCommandPattern",
                "ShellFallbackPattern",
            ],
        );
        h
    }
}

/// Returns true when `Selection` names its own `StuckThreshold`.
fn config_has_threshold(top: &Map<'_>) -> bool {
    top.entries().iter().any(|(k, v)| {
        k.value.eq_ignore_ascii_case("Selection")
            && matches!(&v.value, Node::Map(entries) if entries
                .iter()
                .any(|(k, _)| k.value.eq_ignore_ascii_case("StuckThreshold")))
    })
}

/// Returns the names an orchestrator's `Agents` section lists: strings, or mappings with a
/// `Name`. Anything else in it is the orchestrator's business.
fn agent_names(node: &Spanned<Node>, path: &str) -> Vec<DeclaredAgent> {
    let Node::Seq(items) = &node.value else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let name = match &item.value {
                Node::Str(name) => Some(name.clone()),
                Node::Map(entries) => entries
                    .iter()
                    .find(|(k, _)| k.value.eq_ignore_ascii_case("Name"))
                    .and_then(|(_, v)| v.value.scalar()),
                _ => None,
            }?;
            Some(DeclaredAgent {
                name,
                location: Location::of(item),
                key_path: format!("{path}[{i}]"),
            })
        })
        .collect()
}

/// Evidence contracts: the `Contracts` section, and the `Contracts` and `Requires` keys of
/// routes and strategies.
impl Cx {
    fn contracts(&mut self, node: &Spanned<Node>, path: &str) -> Vec<Contract> {
        let items = match &node.value {
            Node::Seq(items) => items.as_slice(),
            Node::Null => &[],
            other => {
                self.error(
                    Location::of(node),
                    path,
                    format!("expected a list of contracts, found {}", other.kind()),
                    None,
                );
                &[]
            }
        };
        let mut contracts: Vec<Contract> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{path}[{i}]");
            let Some(mut m) = self.map(item, &path) else {
                continue;
            };
            let name = m
                .get("Name")
                .and_then(|(n, p)| self.string(n, &p))
                .map(|n| n.trim().to_owned())
                .filter(|n| !n.is_empty());
            let requires = self.requires_key(&mut m);
            self.unknown_keys(&m, &["Name", "Requires"]);
            let Some(name) = name else {
                self.error(m.location, &path, "a contract needs a `Name`", None);
                continue;
            };
            if let Some(first) = contracts
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(&name))
            {
                let hint = Some(format!("the first is at line {}", first.location.line));
                self.error(
                    m.location,
                    &path,
                    format!("contract `{name}` is declared twice"),
                    hint,
                );
                continue;
            }
            contracts.push(Contract {
                name,
                requires,
                location: m.location,
                key_path: path.clone(),
            });
        }
        self.contracts = contracts.iter().map(|c| c.name.clone()).collect();
        contracts
    }

    /// Reads the `Contracts` key of a route or strategy: names of declared contracts (G3).
    fn contract_refs(&mut self, m: &mut Map<'_>) -> Vec<ContractRef> {
        let Some((node, path)) = m.get("Contracts") else {
            return Vec::new();
        };
        self.contract_names(node, &path)
    }

    /// Resolves the contract names of `node` (one, or a list) to the declared contracts.
    pub(crate) fn contract_names(&mut self, node: &Spanned<Node>, path: &str) -> Vec<ContractRef> {
        let path = path.to_owned();
        let names = self.strings(node, &path);
        let mut refs = Vec::new();
        for (name, location) in names {
            let name = name.trim();
            match self
                .contracts
                .iter()
                .position(|c| c.eq_ignore_ascii_case(name))
            {
                Some(index) => refs.push(ContractRef { index, location }),
                None => {
                    let hint = did_you_mean(name, self.contracts.iter().map(String::as_str))
                        .map(|c| format!("did you mean `{c}`?"))
                        .or_else(|| {
                            Some(if self.contracts.is_empty() {
                                "declare it under `Contracts:` with a `Name` and `Requires`".into()
                            } else {
                                format!("declared contracts: {}", self.contracts.join(", "))
                            })
                        });
                    self.error(
                        location,
                        &path,
                        format!("contract `{name}` is not declared"),
                        hint,
                    );
                }
            }
        }
        refs
    }

    /// Reads the `Requires` key of a mapping: a list of predicates.
    fn requires_key(&mut self, m: &mut Map<'_>) -> Vec<PredicateRef> {
        let Some((node, path)) = m.get("Requires") else {
            return Vec::new();
        };
        match &node.value {
            Node::Seq(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| self.predicate(item, &format!("{path}[{i}]")))
                .collect(),
            Node::Null => Vec::new(),
            _ => self.predicate(node, &path).into_iter().collect(),
        }
    }
}

/// The gate keys a route and a transition share, as read.
pub(crate) struct GateKeys {
    validators: Vec<ValidatorRef>,
    pub(crate) source_agents: Vec<String>,
    required: Option<crate::alternatives::Alternatives>,
    fallback: Option<crate::alternatives::Alternatives>,
    pub(crate) contracts: Vec<ContractRef>,
    requires: Vec<PredicateRef>,
}

impl GateKeys {
    /// Returns the route of `keyword` to `agent` with these gates.
    pub(crate) fn route(
        self,
        keyword: String,
        agent: Option<String>,
        location: Location,
        path: &str,
        transition: Option<StateLink>,
    ) -> Route {
        Route {
            keyword,
            agent,
            validators: self.validators,
            source_agents: self.source_agents,
            required_command_pattern: self.required,
            shell_fallback_pattern: self.fallback,
            contracts: self.contracts,
            requires: self.requires,
            location,
            key_path: path.to_owned(),
            transition,
            condition: None,
            recovery_agent: None,
            handoff_context: Vec::new(),
        }
    }
}
