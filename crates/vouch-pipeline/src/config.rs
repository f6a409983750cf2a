//! A pipeline configuration as the runner reads it: the gates' sections (routes, termination,
//! contracts, validation — read by `vouch-gate`) and the runner's own — `Models`, the
//! `Agents`' instructions, models and tools, `Security` and `Budget` — every problem of both
//! reported at once, at its line and column.
//!
//! ```yaml
//! Models:
//!   demo: {Provider: scripted, Script: replies.yaml}
//!   gpt: {Provider: openai, Model: gpt-5, ApiKeyEnv: OPENAI_API_KEY}
//! Agents:
//!   - Name: Developer
//!     Instructions: "Fix the bug, run the tests, then write HANDOFF TO TESTER."
//!     Model: demo
//!     Tools: [FileSystem, Shell, Handoff]
//!     MaxToolCallsPerTurn: 20
//! Security:
//!   ShellDeny: ['\brm\s+-rf\s+/']
//!   FileDeny: ["**/.env"]
//!   CommandTimeoutSeconds: 120
//! Budget: {MaxTurns: 30, MaxTotalTokens: 200000}
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde_saphyr::Spanned;
use vouch_gate::yaml::{Location, Map, Node, Reader, parse_yaml};
use vouch_gate::{ConfigError, ConfigErrors, GateSet, Router, TerminationKind};

use crate::tools::{ShellPolicy, TOOLS};

/// Which provider a model is reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Any OpenAI-compatible chat-completions server.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
    /// Replies from a script file, per agent.
    Scripted,
}

/// One entry of `Models`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelConfig {
    /// The alias agents name it by.
    pub alias: String,
    /// `Provider`.
    pub provider: Provider,
    /// `Model`: the provider's model id.
    pub model: Option<String>,
    /// `Endpoint`: the server's base URL.
    pub endpoint: Option<String>,
    /// `ApiKeyEnv`: the environment variable holding the key.
    pub api_key_env: Option<String>,
    /// `MaxTokens` of one reply.
    pub max_tokens: u32,
    /// `Temperature`.
    pub temperature: Option<f32>,
    /// `Script` (scripted): the replies file, resolved against the configuration's folder.
    pub script: Option<PathBuf>,
}

/// One agent of `Agents`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentConfig {
    /// `Name`.
    pub name: String,
    /// `Instructions`, or the text of `InstructionsFile`.
    pub instructions: String,
    /// `Model`: an alias of `Models`.
    pub model: String,
    /// The tools it may call: `Tools`/`Plugins`, plugins expanded to their tools.
    pub tools: Vec<String>,
    /// `MaxToolCallsPerTurn`.
    pub max_tool_calls: u32,
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
    /// `Models`, in the file's order.
    pub models: Vec<ModelConfig>,
    /// `Agents`, in the file's order: the first starts the run.
    pub agents: Vec<AgentConfig>,
    /// `Security`'s shell rules.
    pub shell: ShellPolicy,
    /// `Security.FileDeny`: globs of files no tool reads or writes.
    pub file_deny: Vec<String>,
    /// `Budget`.
    pub budget: Budget,
}

/// The plugins and the tools each gives an agent.
fn plugin_tools(name: &str) -> Option<Vec<String>> {
    let tools: Vec<String> = TOOLS
        .iter()
        .filter(|(_, plugin, _)| plugin.eq_ignore_ascii_case(name))
        .map(|(tool, _, _)| (*tool).to_owned())
        .collect();
    (!tools.is_empty()).then_some(tools)
}

impl RunConfig {
    /// Loads the pipeline at `path`.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigErrors> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigErrors::whole(path, format!("failed to read the file: {e}")))?;
        // Strict evidence is the runner's default (decision D69); `Validation.Strict: false`
        // turns it off.
        let gates =
            vouch_gate::load_config(path).map(|c| GateSet::new(c.strict_unless_configured(true)));
        let (config, runner_errors) = run_sections(path, &text, gates.as_ref().ok());
        let mut errors: Vec<ConfigError> = match &gates {
            Ok(_) => Vec::new(),
            Err(e) => e.errors.clone(),
        };
        merge(&mut errors, runner_errors);
        match gates {
            Ok(gates) if errors.is_empty() => Ok(RunConfig {
                path: path.to_owned(),
                router: Router::new(gates),
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
                budget: config.budget,
            }),
            _ => Err(ConfigErrors::new(path, &text, errors)),
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
}

/// Returns every problem of the pipeline in `text`: the gates' lint, and — when it declares
/// `Models`, so that it is meant to run — the runner's sections too.
pub fn lint(path: &Path, text: &str) -> ConfigErrors {
    let mut report = vouch_gate::lint(path, text);
    let runnable = parse_yaml(text).ok().is_some_and(|root| {
        let top = match &root.value {
            Node::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.value == "Orchestration")
                .map_or(&root, |(_, v)| v),
            _ => &root,
        };
        matches!(&top.value, Node::Map(entries) if entries.iter().any(|(k, _)| k.value == "Models"))
    });
    if runnable {
        let gates = vouch_gate::parse_config(path, text).ok().map(GateSet::new);
        let (_, problems) = run_sections(path, text, gates.as_ref());
        merge(&mut report.errors, problems);
    }
    report
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

/// Reads the runner's sections of `text` and checks them against `gates` when those loaded.
fn run_sections(
    path: &Path,
    text: &str,
    gates: Option<&GateSet>,
) -> (RunSections, Vec<ConfigError>) {
    let mut r = Reader::default();
    let mut config = RunSections::default();
    match parse_yaml(text) {
        Ok(root) => read(&mut r, &root, path, &mut config),
        Err(e) => r.errors.push(e),
    }
    if let Some(gates) = gates {
        check_against_gates(&mut r, gates, &config);
    }
    (config, r.errors)
}

/// The runner's sections as read, before they meet the gates.
#[derive(Debug, Default)]
struct RunSections {
    models: Vec<ModelConfig>,
    agents: Vec<AgentConfig>,
    agent_places: Vec<(Location, String)>,
    shell: ShellPolicy,
    file_deny: Vec<String>,
    budget: Budget,
    budget_place: Option<(Location, String)>,
    top: Option<Location>,
}

/// The runner's own sections, beside the gates' ([`vouch_gate::yaml::SECTIONS`]).
const RUNNER_SECTIONS: &[&str] = &["Models", "Agents", "Security", "Budget"];

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
    // A pipeline to run is read whole: a section nobody reads (`Securty`) would drop its
    // rules silently.
    for section in vouch_gate::yaml::SECTIONS.iter().chain(RUNNER_SECTIONS) {
        if !RUNNER_SECTIONS.contains(section) {
            let _ = top.get(section);
        }
    }
    out.top = Some(top.location);
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    if let Some((node, p)) = top.get("Models") {
        models(r, node, &p, &dir, out);
    }
    match top.get("Agents") {
        Some((node, p)) => agents(r, node, &p, &dir, out),
        None => r.error(
            top.location,
            "Agents",
            "a pipeline to run needs `Agents`: each with a `Name`, `Instructions` and a `Model`",
            None,
        ),
    }
    if let Some((node, p)) = top.get("Security") {
        security(r, node, &p, out);
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
    let known: Vec<&str> = vouch_gate::yaml::SECTIONS
        .iter()
        .chain(RUNNER_SECTIONS)
        .copied()
        .collect();
    r.unknown_keys(&top, &known);
}

#[expect(
    clippy::many_single_char_names,
    reason = "r, m, p and n are the reader, the mapping, its path and a node, as in vouch-gate's loader"
)]
fn models(r: &mut Reader, node: &Spanned<Node>, path: &str, dir: &Path, out: &mut RunSections) {
    let Some(all) = r.map(node, path) else {
        return;
    };
    for (alias, value) in all.entries() {
        let p = format!("{path}.{}", alias.value);
        let Some(mut m) = r.map(value, &p) else {
            continue;
        };
        let provider = match m.get("Provider") {
            Some((n, pp)) => match r.string(n, &pp).as_deref().map(str::to_ascii_lowercase) {
                Some(k) if k == "openai" => Some(Provider::OpenAi),
                Some(k) if k == "anthropic" => Some(Provider::Anthropic),
                Some(k) if k == "scripted" => Some(Provider::Scripted),
                Some(other) => {
                    r.error(
                        Location::of(n),
                        &pp,
                        format!("unknown provider `{other}`"),
                        Some("providers: openai, anthropic, scripted".into()),
                    );
                    None
                }
                None => None,
            },
            None => {
                r.error(
                    m.location,
                    &p,
                    "a model needs a `Provider`",
                    Some("providers: openai, anthropic, scripted".into()),
                );
                None
            }
        };
        let mut text = |key: &str, r: &mut Reader| m.get(key).and_then(|(n, pp)| r.string(n, &pp));
        let model = text("Model", r);
        let endpoint = text("Endpoint", r);
        let api_key_env = text("ApiKeyEnv", r);
        let script = text("Script", r).map(|s| dir.join(s));
        let max_tokens = m
            .get("MaxTokens")
            .and_then(|(n, pp)| r.positive(n, &pp))
            .unwrap_or(4096);
        let temperature = m.get("Temperature").and_then(|(n, pp)| {
            let t = n
                .value
                .scalar()
                .and_then(|s| s.parse::<f32>().ok())
                .filter(|t| (0.0..=2.0).contains(t));
            if t.is_none() {
                r.error(
                    Location::of(n),
                    &pp,
                    format!(
                        "`Temperature` is a number from 0 to 2, found {}",
                        n.value.described()
                    ),
                    None,
                );
            }
            t
        });
        r.unknown_keys(
            &m,
            &[
                "Provider",
                "Model",
                "Endpoint",
                "ApiKeyEnv",
                "MaxTokens",
                "Temperature",
                "Script",
            ],
        );
        if provider == Some(Provider::Scripted) && script.is_none() {
            r.error(
                m.location,
                &p,
                "a scripted model needs a `Script`: the file of its replies",
                None,
            );
        }
        if let Some(provider) = provider {
            out.models.push(ModelConfig {
                alias: alias.value.clone(),
                provider,
                model,
                endpoint,
                api_key_env,
                max_tokens,
                temperature,
                script,
            });
        }
    }
}

fn agents(r: &mut Reader, node: &Spanned<Node>, path: &str, dir: &Path, out: &mut RunSections) {
    let Node::Seq(items) = &node.value else {
        r.error(Location::of(node), path, "expected a list of agents", None);
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(mut m) = r.map(item, &p) else {
            continue;
        };
        let name = m.get("Name").and_then(|(n, pp)| r.string(n, &pp));
        let inline = m.get("Instructions");
        let mut instructions = inline
            .as_ref()
            .and_then(|(n, pp)| r.string(n, pp))
            .unwrap_or_default();
        let from_file = m.get("InstructionsFile");
        if let (Some(_), Some((n, pp))) = (&inline, &from_file) {
            r.error(
                Location::of(n),
                pp,
                "an agent's instructions are `Instructions` or `InstructionsFile`, not both",
                Some("keep the one you mean".into()),
            );
        }
        if let Some((n, pp)) = from_file
            && let Some(file) = r.string(n, &pp)
        {
            match std::fs::read_to_string(dir.join(&file)) {
                Ok(text) => instructions = text,
                Err(e) => r.error(
                    Location::of(n),
                    &pp,
                    format!("cannot read `{file}`: {e}"),
                    None,
                ),
            }
        }
        let model = m.get("Model").and_then(|(n, pp)| r.string(n, &pp));
        let mut tools = Vec::new();
        for key in ["Tools", "Plugins"] {
            if let Some((n, pp)) = m.get(key) {
                for (t, at) in r.strings(n, &pp) {
                    match plugin_tools(&t) {
                        Some(all) => tools.extend(all),
                        None if TOOLS.iter().any(|(name, _, _)| *name == t) => tools.push(t),
                        None => r.error(
                            at,
                            &pp,
                            format!("unknown tool or plugin `{t}`"),
                            Some(
                                "plugins: FileSystem, Shell, Git, Handoff; or a tool's own name"
                                    .into(),
                            ),
                        ),
                    }
                }
            }
        }
        tools.dedup();
        let max_tool_calls = m
            .get("MaxToolCallsPerTurn")
            .and_then(|(n, pp)| r.positive(n, &pp))
            .unwrap_or(25);
        r.unknown_keys(
            &m,
            &[
                "Name",
                "Instructions",
                "InstructionsFile",
                "Model",
                "Tools",
                "Plugins",
                "MaxToolCallsPerTurn",
                "Description",
            ],
        );
        let (Some(name), Some(model)) = (name, model) else {
            r.error(
                m.location,
                &p,
                "an agent needs a `Name` and a `Model`",
                None,
            );
            continue;
        };
        out.agent_places.push((m.location, p));
        out.agents.push(AgentConfig {
            name,
            instructions,
            model,
            tools,
            max_tool_calls,
        });
    }
}

fn security(r: &mut Reader, node: &Spanned<Node>, path: &str, out: &mut RunSections) {
    let Some(mut m) = r.map(node, path) else {
        return;
    };
    let regexes = |key: &str, r: &mut Reader, m: &mut Map<'_>| -> Vec<Regex> {
        m.get(key)
            .map(|(n, p)| {
                r.strings(n, &p)
                    .into_iter()
                    .filter_map(|(s, at)| r.regex(&s, at, &p))
                    .collect()
            })
            .unwrap_or_default()
    };
    out.shell.allow = regexes("ShellAllow", r, &mut m);
    out.shell.deny = regexes("ShellDeny", r, &mut m);
    if let Some((n, p)) = m.get("FileDeny") {
        for (glob, at) in r.strings(n, &p) {
            match globset::Glob::new(&glob) {
                Ok(_) => out.file_deny.push(glob),
                Err(e) => r.error(at, &p, format!("invalid glob `{glob}`: {}", e.kind()), None),
            }
        }
    }
    if let Some((n, p)) = m.get("CommandTimeoutSeconds")
        && let Some(s) = r.positive(n, &p)
    {
        out.shell.timeout = Duration::from_secs(u64::from(s));
    }
    if let Some((n, p)) = m.get("OutputCapBytes")
        && let Some(b) = r.positive(n, &p)
    {
        out.shell.output_cap = b as usize;
    }
    if let Some((n, p)) = m.get("HiddenEnv") {
        out.shell
            .env
            .hidden
            .extend(r.strings(n, &p).into_iter().map(|(s, _)| s));
    }
    if let Some((n, p)) = m.get("PassEnv") {
        for (name, at) in r.strings(n, &p) {
            let bare = name.strip_suffix('*').unwrap_or(&name);
            let valid = !bare.is_empty()
                && bare.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && matches!(bare.as_bytes()[0], b'A'..=b'Z' | b'a'..=b'z' | b'_');
            if !valid {
                r.error(
                    at,
                    &p,
                    format!("`{name}` is not a variable name or a `PREFIX*` pattern"),
                    None,
                );
            } else if out.shell.env.hidden.contains(&name) {
                r.error(
                    at,
                    &p,
                    format!("`{name}` is a model's key: commands never see it"),
                    None,
                );
            } else {
                out.shell.env.pass.push(name);
            }
        }
    }
    r.unknown_keys(
        &m,
        &[
            "ShellAllow",
            "ShellDeny",
            "FileDeny",
            "CommandTimeoutSeconds",
            "OutputCapBytes",
            "HiddenEnv",
            "PassEnv",
        ],
    );
}

/// What only the whole configuration can tell: models agents name, routes' agents, a cap.
fn check_against_gates(r: &mut Reader, gates: &GateSet, config: &RunSections) {
    for (agent, (at, p)) in config.agents.iter().zip(&config.agent_places) {
        if !config.models.iter().any(|m| m.alias == agent.model) {
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
    for state in gates.config().states() {
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
        .config()
        .routes()
        .iter()
        .filter(|r| r.transition.is_none())
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
    let capped = config.budget.max_turns.is_some()
        || gates.config().termination().is_some_and(|t| {
            t.all()
                .iter()
                .any(|s| s.kind == TerminationKind::MaxIterations)
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
            "a run needs a cap: `Budget.MaxTurns`, or a `maxiterations` termination",
            None,
        );
    }
}
