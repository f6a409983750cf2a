//! A pipeline configuration as the runner reads it: the gates' sections (routes, termination,
//! contracts, validation — read by `vouch-gate`) and the runner's own — `Models`, the
//! `Agents`' instructions, models and tools, `Security`, `Budget`, and fuseraft's other
//! top-level keys — every problem of all of them reported at once, at its line and column.
//! fuseraft's spelling is the canonical one (`ModelId`, `ApiKeyEnvVar`, `Plugins`); vouch's
//! earlier spellings (`Model`, `ApiKeyEnv`, `Tools`) keep loading.
//!
//! ```yaml
//! Models:
//!   demo: {Provider: scripted, Script: replies.yaml}
//!   fast: {ModelId: grok-4.3, ApiKeyEnvVar: XAI_API_KEY}
//! Agents:
//!   - Name: Developer
//!     Description: Fixes the bug.
//!     Instructions: "Fix the bug, run the tests, then write HANDOFF TO TESTER."
//!     Model: {ModelId: demo, MaxTokens: 4096}
//!     Plugins: [FileSystem, Shell, Handoff]
//!     MaxToolCallsPerTurn: 20
//! Security:
//!   ShellDeny: ['\brm\s+-rf\s+/']
//!   FileDeny: ["**/.env"]
//!   CommandTimeoutSeconds: 120
//! Budget: {MaxTurns: 30, MaxTotalTokens: 200000}
//! ```

mod agents;
mod cli;
mod models;
mod sections;
mod security;

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;
use vouch_gate::yaml::{Location, Node, Reader, parse_yaml};
use vouch_gate::{
    ConfigError, ConfigErrors, GateSet, PipelineConfig, Router, SelectionKind, TerminationKind,
};

pub use agents::{AgentConfig, ContextWindow, Isolation, SubAgent};
pub use cli::{CliAgent, CliKind};
pub use models::{ModelConfig, Provider};
pub use sections::{Brownfield, Compaction};

use crate::tools::ShellPolicy;

/// `Security.Sandbox`: whether the kernel confines what agents run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Confined, or the run does not start (the default).
    #[default]
    On,
    /// Confined as far as the kernel can; what it cannot is recorded.
    BestEffort,
    /// Not confined by the kernel; recorded.
    Off,
}

impl SandboxMode {
    /// Returns the name a configuration writes.
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::On => "on",
            SandboxMode::BestEffort => "best-effort",
            SandboxMode::Off => "off",
        }
    }
}

/// The confinement the configuration asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxPolicy {
    /// `Security.Sandbox`.
    pub mode: SandboxMode,
    /// `Security.WritePaths`: writable beside the working directory (relative to it, or
    /// absolute).
    pub write: Vec<PathBuf>,
    /// `Security.ReadPaths`: readable beside the system's folders.
    pub read: Vec<PathBuf>,
    /// `Security.Network: allow`.
    pub network: bool,
}

/// `Budget`: what ends a run that does not end itself.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct Budget {
    /// `MaxTurns`: agent turns in all.
    pub max_turns: Option<u32>,
    /// `MaxTotalTokens`: tokens read and written, all agents together.
    pub max_total_tokens: Option<u64>,
}

/// A loaded pipeline: its gates and what the runner needs. Loading checks everything once.
#[derive(Debug)]
#[non_exhaustive]
pub struct RunConfig {
    /// The file.
    pub path: PathBuf,
    /// The router, with the gates: routes, termination, contracts, validation.
    pub router: Router,
    /// `Models` and the agents' own models, in the file's order.
    pub models: Vec<ModelConfig>,
    /// `Agents`, in the file's order.
    pub agents: Vec<AgentConfig>,
    /// `Security`'s shell rules.
    pub shell: ShellPolicy,
    /// `Security.FileDeny`: globs of files no tool reads or writes.
    pub file_deny: Vec<String>,
    /// `Security.ChangeEnvelope`: globs of the files agents may write (anywhere when empty).
    pub envelope: Vec<String>,
    /// `Security.ReadFileSizeLimit`: characters of a file a read shows.
    pub read_limit: Option<usize>,
    /// `Budget`.
    pub budget: Budget,
    /// `SystemPrompt`/`SystemPromptPath`: text before every agent's instructions.
    pub system_prompt: Option<String>,
    /// `Compaction`.
    pub compaction: Option<Compaction>,
    /// `ContextBudget.CutoverAt`: past this many prompt tokens, the compaction window applies.
    pub cutover_tokens: Option<u64>,
    /// `Brownfield`.
    pub brownfield: Option<Brownfield>,
    /// The model of an `llm` or `magentic` selection (`Selection.Model`, `Magentic.Model`).
    pub selector_model: Option<String>,
    /// The model of an `llm` termination strategy.
    pub termination_model: Option<String>,
    /// `Security.Approve`: calls a person approves (a command, or a tool and its arguments,
    /// matched by these patterns).
    pub approve: Vec<regex::Regex>,
    /// `Security.Sandbox`, `WritePaths`, `ReadPaths`, `Network`: the kernel's confinement.
    pub sandbox: SandboxPolicy,
    /// `Security.HttpAllowedHosts` and `AllowPrivateHosts`: what `Http` may reach.
    pub http: crate::tools::HttpRules,
    /// `McpServers`: the MCP servers agents name in their `Plugins`.
    pub mcp_servers: Vec<crate::mcp::McpServer>,
    /// The warnings of the file: keys read and not used.
    pub warnings: Vec<ConfigError>,
}

impl RunConfig {
    /// Loads the pipeline at `path`: it must cap its turns itself.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigErrors> {
        RunConfig::load_with(path, false)
    }

    /// Loads the pipeline at `path`; `capped` says the run has a turn cap from elsewhere
    /// (`vouch run --max-turns`), so the file need not name one.
    pub fn load_with(path: &Path, capped: bool) -> Result<RunConfig, ConfigErrors> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigErrors::whole(path, format!("failed to read the file: {e}")))?;
        // Strict evidence is the runner's default (decision D69); `Validation.Strict: false`
        // turns it off.
        let (partial, gate_errors) = vouch_gate::parse_config_partial(path, &text);
        let partial = partial.map(|c| c.strict_unless_configured(true));
        let (config, runner_errors, warnings) = run_sections(path, &text, partial.as_ref(), capped);
        let mut errors = gate_errors.errors;
        merge(&mut errors, runner_errors);
        match partial {
            Some(gates) if errors.is_empty() => Ok(RunConfig {
                path: path.to_owned(),
                router: Router::new(GateSet::new(gates)),
                shell: {
                    let mut shell = config.shell;
                    // No agent's command sees a key of the models it runs beside.
                    shell
                        .env
                        .hidden
                        .extend(config.models.iter().filter_map(|m| m.api_key_env.clone()));
                    shell
                },
                models: config.models,
                agents: config.agents,
                file_deny: config.file_deny,
                envelope: config.envelope,
                read_limit: config.read_limit,
                budget: config.budget,
                system_prompt: config.system_prompt,
                compaction: config.compaction,
                cutover_tokens: config.cutover_tokens,
                brownfield: config.brownfield,
                selector_model: config.selector_model,
                termination_model: config.termination_model,
                mcp_servers: config.mcp_servers,
                http: config.http,
                sandbox: config.sandbox,
                approve: config.approve,
                warnings,
            }),
            _ => Err(ConfigErrors::new(path, &text, errors)),
        }
    }

    /// Points every model reached over HTTP at `url` (`vouch run --model-endpoint`).
    pub fn point_models_at(&mut self, url: &str) {
        for m in &mut self.models {
            if m.provider != Provider::Scripted {
                m.endpoint = Some(url.trim_end_matches('/').to_owned());
            }
        }
    }

    /// Returns the gates.
    pub fn gates(&self) -> &GateSet {
        self.router.gates()
    }

    /// Returns the agent named `name` (case-insensitively).
    pub fn agent(&self, name: &str) -> Option<&AgentConfig> {
        self.agents
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(name))
    }

    /// Returns the model aliased `alias`.
    pub fn model(&self, alias: &str) -> Option<&ModelConfig> {
        self.models.iter().find(|m| m.alias == alias)
    }

    /// Returns the agent that takes the first turn: the initial state's agent of a state
    /// machine, a structured selection's `DefaultAgent`, else the first of `Agents`.
    pub fn first_agent(&self) -> Option<&AgentConfig> {
        let config = self.gates().config();
        let named = match config.states().first() {
            Some(state) => state.agent.as_deref(),
            None => config.selection().default_agent.as_deref(),
        };
        named
            .and_then(|n| self.agent(n))
            .or_else(|| self.agents.first())
    }
}

/// Returns every problem of the pipeline in `text`: the gates' lint, and — when it declares
/// `Agents`, so that it is meant to run — the runner's sections too; then the warnings.
pub fn lint(path: &Path, text: &str) -> (ConfigErrors, Vec<ConfigError>) {
    let mut report = vouch_gate::lint(path, text);
    let runnable = parse_yaml(text).ok().is_some_and(|root| {
        let top = match &root.value {
            Node::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.value.eq_ignore_ascii_case("Orchestration"))
                .map_or(&root, |(_, v)| v),
            _ => &root,
        };
        // Meant to run: it declares `Models`, or an agent names its model (fuseraft's inline
        // models); a gates-only file lists its agents by name.
        let Node::Map(entries) = &top.value else {
            return false;
        };
        entries.iter().any(|(k, v)| {
            k.value.eq_ignore_ascii_case("Models")
                || (k.value.eq_ignore_ascii_case("Agents")
                    && matches!(&v.value, Node::Seq(items) if items.iter().any(|a| find(a, "Model").is_some())))
        })
    });
    let mut warnings = Vec::new();
    if runnable {
        let (partial, _) = vouch_gate::parse_config_partial(path, text);
        let (_, problems, warned) = run_sections(path, text, partial.as_ref(), false);
        merge(&mut report.errors, problems);
        warnings = warned;
    }
    (report, warnings)
}

/// Adds `more` to `errors`, each problem once (both readers report the YAML's own syntax
/// error), in the order of the file.
fn merge(errors: &mut Vec<ConfigError>, more: Vec<ConfigError>) {
    for e in more {
        if !errors
            .iter()
            .any(|x| x.location == e.location && x.message == e.message)
        {
            errors.push(e);
        }
    }
    errors.sort_by_key(|e| (e.location.line, e.location.column));
}

/// Reads the runner's sections of `text` and checks them against the gates' configuration
/// (as far as it loaded): the sections, their problems and their warnings.
fn run_sections(
    path: &Path,
    text: &str,
    gates: Option<&PipelineConfig>,
    capped: bool,
) -> (RunSections, Vec<ConfigError>, Vec<ConfigError>) {
    let mut r = Reader::default();
    let mut config = RunSections::default();
    match parse_yaml(text) {
        Ok(root) => read(&mut r, &root, path, &mut config),
        Err(e) => r.errors.push(e),
    }
    if let Some(gates) = gates {
        check_against_gates(&mut r, gates, &config, capped);
    }
    r.warnings
        .sort_by_key(|e| (e.location.line, e.location.column));
    (config, r.errors, r.warnings)
}

/// The runner's sections as read, before they meet the gates.
#[derive(Debug, Default)]
pub(crate) struct RunSections {
    models: Vec<ModelConfig>,
    agents: Vec<AgentConfig>,
    agent_places: Vec<(Location, String)>,
    pub(crate) shell: ShellPolicy,
    pub(crate) file_deny: Vec<String>,
    pub(crate) envelope: Vec<String>,
    pub(crate) read_limit: Option<usize>,
    pub(crate) budget: Budget,
    budget_place: Option<(Location, String)>,
    top: Option<Location>,
    pub(crate) system_prompt: Option<String>,
    pub(crate) compaction: Option<Compaction>,
    pub(crate) cutover_tokens: Option<u64>,
    pub(crate) brownfield: Option<Brownfield>,
    selector_model: Option<String>,
    termination_model: Option<String>,
    /// Models named outside `Models` and `Agents` (selectors, sub-agents), and where.
    named_models: Vec<(String, Location, String)>,
    pub(crate) mcp_servers: Vec<crate::mcp::McpServer>,
    pub(crate) http: crate::tools::HttpRules,
    pub(crate) sandbox: SandboxPolicy,
    pub(crate) approve: Vec<regex::Regex>,
}

/// The runner's own sections, beside the gates' ([`vouch_gate::yaml::SECTIONS`]).
const RUNNER_SECTIONS: &[&str] = &["Models", "Agents", "Security", "Budget", "McpServers"];

fn read(r: &mut Reader, root: &Spanned<Node>, path: &Path, out: &mut RunSections) {
    let Some(mut top) = r.map(root, "") else {
        return;
    };
    if let Some((node, p)) = top.get("Orchestration")
        && let Some(inner) = r.map(node, &p)
    {
        // Decision G2: the sections sit under `Orchestration` or at the top, not both: a
        // section beside `Orchestration` would be dropped without a word.
        for (key, _) in top.entries() {
            if !key.value.eq_ignore_ascii_case("Orchestration") {
                r.error(
                    Location::of(key),
                    &key.value,
                    format!(
                        "`{}` sits beside `Orchestration`, and only the sections inside it are read",
                        key.value
                    ),
                    Some(format!("move `{}` inside `Orchestration`", key.value)),
                );
            }
        }
        top = inner;
    }
    out.top = Some(top.location);
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    // The gates' sections are the gates' to read; the runner reads the models they name.
    for section in vouch_gate::yaml::SECTIONS {
        let _ = top.get(section);
    }
    if let Some((node, p)) = top.get("Models") {
        out.models = models::models(r, node, &p, &dir);
    }
    if let Some((node, p)) = top.get("McpServers") {
        out.mcp_servers = crate::mcp::servers(r, node, &p);
    }
    match top.get("Agents") {
        Some((node, p)) => {
            let mcp: Vec<String> = out.mcp_servers.iter().map(|s| s.name.clone()).collect();
            for (agent, at, ap) in agents::agents(r, node, &p, &dir, &mut out.models, &mcp) {
                out.agents.push(agent);
                out.agent_places.push((at, ap));
            }
        }
        None => r.error(
            top.location,
            "Agents",
            "a pipeline to run needs `Agents`: each with a `Name`, `Instructions` and a `Model`",
            None,
        ),
    }
    selector_models(r, &top, &dir, out);
    if let Some((node, p)) = top.get("Security") {
        security::security(r, node, &p, out);
    }
    if let Some((node, p)) = top.get("Budget") {
        if let Some(mut m) = r.map(node, &p) {
            if let Some((n, p)) = m.get("MaxTurns") {
                out.budget.max_turns = r.positive(n, &p);
            }
            if let Some((n, p)) = m.get("MaxTotalTokens") {
                out.budget.max_total_tokens = r.positive(n, &p).map(u64::from);
            }
            r.unknown_keys(&m, &["MaxTurns", "MaxTotalTokens"]);
        }
        out.budget_place = Some((Location::of(node), p));
    }
    sections::read(r, &mut top, &dir, out);
    let known: Vec<&str> = vouch_gate::yaml::SECTIONS
        .iter()
        .chain(RUNNER_SECTIONS)
        .chain(sections::KEYS)
        .copied()
        .collect();
    r.unknown_keys(&top, &known);
}

/// Returns the value of `key` in the mapping `node`.
fn find<'a>(node: &'a Spanned<Node>, key: &str) -> Option<&'a Spanned<Node>> {
    match &node.value {
        Node::Map(entries) => entries
            .iter()
            .find(|(k, _)| k.value.eq_ignore_ascii_case(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

/// Reads the models the gates' sections name: `Selection.Model`, `Selection.Magentic.Model`
/// and an `llm` strategy's `Model` (the gates read the rest of those sections).
fn selector_models(
    r: &mut Reader,
    top: &vouch_gate::yaml::Map<'_>,
    dir: &Path,
    out: &mut RunSections,
) {
    let section = |key: &str| {
        top.entries()
            .iter()
            .find(|(k, _)| k.value.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    };
    let named =
        |r: &mut Reader, node: &Spanned<Node>, path: &str, who: &str, out: &mut RunSections| {
            let alias =
                models::agent_model(r, node, path, who, &out.models, dir).map(|(alias, own)| {
                    if let Some(own) = own {
                        out.models.push(own);
                    }
                    alias
                });
            if let Some(alias) = &alias {
                out.named_models
                    .push((alias.clone(), Location::of(node), path.to_owned()));
            }
            alias
        };
    if let Some(selection) = section("Selection") {
        if let Some(model) = find(selection, "Model") {
            out.selector_model = named(r, model, "Selection.Model", "selector", out);
        }
        if let Some(model) = find(selection, "Magentic").and_then(|m| find(m, "Model")) {
            out.selector_model = named(r, model, "Selection.Magentic.Model", "manager", out);
        }
    }
    if let Some(termination) = section("Termination") {
        let mut strategies = vec![termination];
        if let Some(Node::Seq(items)) = find(termination, "Strategies").map(|s| &s.value) {
            strategies.extend(items.iter());
        }
        for s in strategies {
            if let Some(model) = find(s, "Model") {
                out.termination_model = named(r, model, "Termination.Model", "terminator", out);
            }
        }
    }
    for agent in &out.agents.clone() {
        if let Some(model) = &agent.sub_agent.model {
            out.named_models.push((
                model.clone(),
                Location::default(),
                format!("{}.SubAgentModel", agent.name),
            ));
        }
    }
}

/// What only the whole configuration can tell: models agents name, routes' agents, a cap.
fn check_against_gates(r: &mut Reader, gates: &PipelineConfig, config: &RunSections, capped: bool) {
    for (agent, (at, p)) in config.agents.iter().zip(&config.agent_places) {
        // A CLI agent (even one whose `Cli` is wrong, reported already) has no model alias.
        if !agent.model.is_empty() && !config.models.iter().any(|m| m.alias == agent.model) {
            let known: Vec<&str> = config.models.iter().map(|m| m.alias.as_str()).collect();
            r.error(
                *at,
                &format!("{p}.Model"),
                format!(
                    "agent `{}` names the model `{}`, which `Models` does not declare",
                    agent.name, agent.model
                ),
                Some(format!(
                    "models: {}",
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                )),
            );
        }
    }
    for state in gates.states() {
        if let Some(agent) = &state.agent
            && !config
                .agents
                .iter()
                .any(|a| a.name.eq_ignore_ascii_case(agent))
        {
            r.error(
                state.location,
                &state.key_path,
                format!(
                    "state `{}` is spoken by `{agent}`, which `Agents` does not declare",
                    state.name
                ),
                None,
            );
        }
    }
    for route in gates
        .routes()
        .iter()
        .filter(|r| r.transition.is_none())
        .chain(&gates.selection().structured)
    {
        if let Some(to) = &route.agent
            && !config
                .agents
                .iter()
                .any(|a| a.name.eq_ignore_ascii_case(to))
        {
            r.error(
                route.location,
                &route.key_path,
                format!(
                    "route `{}` leads to `{to}`, which `Agents` does not declare",
                    route.keyword
                ),
                None,
            );
        }
    }
    let declared = |name: &str| {
        config
            .agents
            .iter()
            .any(|a| a.name.eq_ignore_ascii_case(name))
    };
    let mut others: Vec<(&str, Location, String, &str)> = Vec::new();
    if let Some(d) = &gates.selection().default_agent {
        others.push((
            d,
            config.top.unwrap_or_default(),
            "Selection.DefaultAgent".into(),
            "the default agent",
        ));
    }
    if let Some(v) = gates.verifier() {
        others.push((
            &v.agent,
            v.location,
            "Verifier.AgentName".into(),
            "the verifier",
        ));
    }
    for route in gates.routes() {
        if let Some(a) = &route.recovery_agent {
            others.push((
                a,
                route.location,
                format!("{}.RecoveryAgent", route.key_path),
                "the recovery agent",
            ));
        }
    }
    for (name, at, p, what) in others {
        if !declared(name) {
            r.error(
                at,
                &p,
                format!("{what} `{name}` is not declared in `Agents`"),
                None,
            );
        }
    }
    for (alias, at, p) in &config.named_models {
        if !config.models.iter().any(|m| &m.alias == alias) {
            r.error(
                *at,
                p,
                format!("the model `{alias}` is not declared in `Models`"),
                None,
            );
        }
    }
    let kind = gates.selection().kind;
    if kind.is_model_driven() && config.selector_model.is_none() {
        r.error(
            config.top.unwrap_or_default(),
            "Selection",
            format!(
                "a `{}` selection needs a model to ask: `{}`",
                kind.name(),
                if kind == SelectionKind::Llm {
                    "Selection.Model"
                } else {
                    "Selection.Magentic.Model"
                }
            ),
            None,
        );
    }
    if let Some(t) = gates.termination()
        && let Some(llm) = t.all().into_iter().find(|s| s.kind == TerminationKind::Llm)
        && config.termination_model.is_none()
    {
        r.error(
            llm.location,
            &llm.key_path,
            "an `llm` termination needs a `Model` to ask",
            None,
        );
    }
    let capped = capped
        || config.budget.max_turns.is_some()
        || matches!(kind, SelectionKind::Sequential | SelectionKind::Magentic)
        || gates.termination().is_some_and(|t| {
            t.all().iter().any(|s| {
                s.max_iterations.is_some()
                    && matches!(
                        s.kind,
                        TerminationKind::MaxIterations | TerminationKind::Composite
                    )
            })
        });
    if !capped {
        let (at, p) = config.budget_place.clone().unwrap_or((
            config.top.unwrap_or(Location {
                line: 1,
                column: 1,
                offset: None,
                len: None,
            }),
            "Budget".to_owned(),
        ));
        r.error(
            at,
            &p,
            "a run needs a cap: `Budget.MaxTurns`, a `maxiterations` termination, or `vouch run --max-turns`",
            None,
        );
    }
}
