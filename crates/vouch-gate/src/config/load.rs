//! Loading a pipeline configuration: the spec's YAML (decision G2: an optional `Orchestration`
//! root, keys matched case-insensitively, `Validators` winning over `Validator`), with every
//! unknown key, unknown name and invalid pattern reported at once with its place (G3).

use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde_saphyr::Spanned;

use crate::alternatives::Alternatives;
use crate::config::error::{ConfigError, ConfigErrors, did_you_mean};
use crate::config::model::{
    Hooks, PipelineConfig, Route, Termination, TerminationKind, TestSelector, Validation,
    ValidatorRef,
};
use crate::config::node::{Location, Node};
use crate::validators::ValidatorKind;

/// Sections vouch reads; other top-level sections (an orchestrator's agents, models, ...) are
/// left alone unless their name is a near miss of one of these.
const SECTIONS: &[&str] = &[
    "Selection",
    "Termination",
    "Validation",
    "TestSelector",
    "ChangeTracking",
    "Hooks",
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
    let mut cx = Cx { errors: Vec::new() };
    let config = match serde_saphyr::from_str::<Spanned<Node>>(text) {
        Ok(root) => Some(cx.config(path, &root)),
        Err(e) => {
            let location = e.location().map_or(Location::default(), |l| Location {
                line: l.line(),
                column: l.column(),
                offset: l.span().byte_offset().and_then(|o| usize::try_from(o).ok()),
                len: None,
            });
            let message = e.to_string();
            let message = message
                .lines()
                .next()
                .unwrap_or("not valid YAML")
                .to_owned();
            cx.errors.push(ConfigError {
                location,
                key_path: String::new(),
                message: format!("not valid YAML: {message}"),
                hint: None,
            });
            None
        }
    };
    match config {
        Some(config) if cx.errors.is_empty() => Ok(config),
        _ => {
            cx.errors
                .sort_by_key(|e| (e.location.line, e.location.column));
            Err(ConfigErrors {
                path: path.to_owned(),
                source_text: text.to_owned(),
                errors: cx.errors,
            })
        }
    }
}

/// The loading context: the errors found so far.
struct Cx {
    errors: Vec<ConfigError>,
}

/// A mapping being read, with the keys already used.
struct Map<'a> {
    entries: &'a [(Spanned<String>, Spanned<Node>)],
    used: Vec<bool>,
    path: String,
    location: Location,
}

impl<'a> Map<'a> {
    /// Returns the value of `key` (matched case-insensitively) and its key path.
    fn get(&mut self, key: &str) -> Option<(&'a Spanned<Node>, String)> {
        let i = self
            .entries
            .iter()
            .position(|(k, _)| k.value.eq_ignore_ascii_case(key))?;
        self.used[i] = true;
        Some((&self.entries[i].1, join(&self.path, key)))
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

impl Cx {
    fn error(
        &mut self,
        location: Location,
        key_path: &str,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.errors.push(ConfigError {
            location,
            key_path: key_path.to_owned(),
            message: message.into(),
            hint,
        });
    }

    /// Reads `node` as a mapping; reports anything else.
    fn map<'a>(&mut self, node: &'a Spanned<Node>, path: &str) -> Option<Map<'a>> {
        match &node.value {
            Node::Map(entries) => Some(Map {
                entries,
                used: vec![false; entries.len()],
                path: path.to_owned(),
                location: Location::of(node),
            }),
            Node::Null => Some(Map {
                entries: &[],
                used: Vec::new(),
                path: path.to_owned(),
                location: Location::of(node),
            }),
            other => {
                self.error(
                    Location::of(node),
                    path,
                    format!("expected a mapping, found {}", other.kind()),
                    None,
                );
                None
            }
        }
    }

    /// Reports the keys of `map` that were not read.
    fn unknown_keys(&mut self, map: &Map<'_>, known: &[&str]) {
        for (i, (key, _)) in map.entries.iter().enumerate() {
            if !map.used[i] {
                let hint = did_you_mean(&key.value, known.iter().copied())
                    .map(|k| format!("did you mean `{k}`?"));
                let message = format!("unknown key `{}`", key.value);
                self.error(
                    Location::of(key),
                    &join(&map.path, &key.value),
                    message,
                    hint,
                );
            }
        }
    }

    fn string(&mut self, node: &Spanned<Node>, path: &str) -> Option<String> {
        match node.value.scalar() {
            Some(s) => Some(s),
            None if matches!(node.value, Node::Null) => None,
            None => {
                self.error(
                    Location::of(node),
                    path,
                    format!("expected a string, found {}", node.value.kind()),
                    None,
                );
                None
            }
        }
    }

    /// Reads a list of strings; a single string is a list of one.
    fn strings(&mut self, node: &Spanned<Node>, path: &str) -> Vec<(String, Location)> {
        match &node.value {
            Node::Seq(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| {
                    Some((
                        self.string(item, &format!("{path}[{i}]"))?,
                        Location::of(item),
                    ))
                })
                .collect(),
            Node::Null => Vec::new(),
            _ => self
                .string(node, path)
                .map(|s| vec![(s, Location::of(node))])
                .unwrap_or_default(),
        }
    }

    fn number(&mut self, node: &Spanned<Node>, path: &str) -> Option<u32> {
        let value = match &node.value {
            Node::Int(i) => u32::try_from(*i).ok(),
            Node::Str(s) => s.trim().parse().ok(),
            _ => None,
        };
        if value.is_none() {
            self.error(
                Location::of(node),
                path,
                format!("expected a whole number, found {}", node.value.kind()),
                None,
            );
        }
        value
    }

    fn regex(&mut self, pattern: &str, location: Location, path: &str) -> Option<Regex> {
        match Regex::new(pattern) {
            Ok(re) => Some(re),
            Err(e) => {
                let detail = e.to_string();
                let last = detail.lines().last().unwrap_or("").trim().to_owned();
                self.error(
                    location,
                    path,
                    format!("invalid regex `{pattern}`: {last}"),
                    None,
                );
                None
            }
        }
    }

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

    /// Reads `RequiredCommandPattern` and `ShellFallbackPattern` of a mapping.
    fn patterns(&mut self, m: &mut Map<'_>) -> (Option<Alternatives>, Option<Alternatives>) {
        let mut pattern = |key: &str| {
            m.get(key)
                .and_then(|(n, p)| self.string(n, &p))
                .map(|s| Alternatives::new(&s))
                .filter(|a| !a.is_empty())
        };
        (
            pattern("RequiredCommandPattern"),
            pattern("ShellFallbackPattern"),
        )
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
        let mut config = PipelineConfig {
            path: path.to_owned(),
            routes: Vec::new(),
            termination: None,
            validation: Validation::default(),
            test_selector: TestSelector::default(),
            hooks: Hooks::default(),
        };
        let Some(mut top) = self.map(root, "") else {
            return config;
        };
        // Decision G2: the sections may sit under an `Orchestration` root.
        if let Some((node, p)) = top.get("Orchestration")
            && let Some(inner) = self.map(node, &p)
        {
            top = inner;
        }
        if let Some((node, p)) = top.get("Selection") {
            config.routes = self.selection(node, &p);
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
            self.unknown_keys(&m, &["Path", "Enabled"]);
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
            if top.used[i] || key.value.eq_ignore_ascii_case("Contracts") {
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

    fn selection(&mut self, node: &Spanned<Node>, path: &str) -> Vec<Route> {
        let Some(mut m) = self.map(node, path) else {
            return Vec::new();
        };
        if let Some((n, p)) = m.get("Type")
            && let Some(kind) = self.string(n, &p)
            && !kind.eq_ignore_ascii_case("keyword")
        {
            self.error(
                Location::of(n),
                &p,
                format!("unsupported selection type `{kind}`"),
                Some("vouch routes by `keyword`".into()),
            );
        }
        let mut routes = Vec::new();
        if let Some((n, p)) = m.get("Routes") {
            match &n.value {
                Node::Seq(items) => {
                    for (i, item) in items.iter().enumerate() {
                        if let Some(route) = self.route(item, &format!("{p}[{i}]")) {
                            routes.push(route);
                        }
                    }
                }
                Node::Null => {}
                other => self.error(
                    Location::of(n),
                    &p,
                    format!("expected a list of routes, found {}", other.kind()),
                    None,
                ),
            }
        }
        self.unknown_keys(&m, &["Type", "Routes"]);
        routes
    }

    fn route(&mut self, node: &Spanned<Node>, path: &str) -> Option<Route> {
        let mut m = self.map(node, path)?;
        let keyword = match m.get("Keyword") {
            Some((n, p)) => self.string(n, &p).filter(|k| !k.trim().is_empty()),
            None => None,
        };
        if keyword.is_none() {
            self.error(m.location, path, "a route needs a `Keyword`", None);
        }
        let agent = m.get("Agent").and_then(|(n, p)| self.string(n, &p));
        let validators = self.validator_keys(&mut m);
        let source_agents = m
            .get("SourceAgents")
            .map(|(n, p)| self.strings(n, &p))
            .unwrap_or_default();
        let (required_command_pattern, shell_fallback_pattern) = self.patterns(&mut m);
        let _ = m.get("Contracts");
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
            ],
        );
        Some(Route {
            keyword: keyword?.trim().to_owned(),
            agent,
            validators,
            source_agents: source_agents.into_iter().map(|(s, _)| s).collect(),
            required_command_pattern,
            shell_fallback_pattern,
            location: m.location,
        })
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
                Some(other) => {
                    let hint = did_you_mean(other, ["composite", "regex", "maxiterations"])
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
                    Some("`composite`, `regex` or `maxiterations`".into()),
                );
                None
            }
        };
        let max_iterations = m.get("MaxIterations").and_then(|(n, p)| self.number(n, &p));
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
        let _ = m.get("Contracts");
        self.unknown_keys(
            &m,
            &[
                "Type",
                "MaxIterations",
                "Pattern",
                "AgentNames",
                "Validator",
                "Validators",
                "Strategies",
                "Contracts",
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
            strategies,
            location: m.location,
        })
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
        self.unknown_keys(
            &m,
            &[
                "BriefPath",
                "TestReportPath",
                "ChangeLogPath",
                "TestAssertionPatterns",
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
            .and_then(|(n, p)| self.number(n, &p))
        {
            t.timeout = Duration::from_secs(u64::from(secs.max(1)));
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
            .and_then(|(n, p)| self.number(n, &p))
        {
            h.stuck_threshold = t.max(1);
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
