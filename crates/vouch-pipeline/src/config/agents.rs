//! `Agents`: each agent's instructions, model, tools and what it sees of the conversation, in
//! fuseraft's spelling (`Plugins`, `Capabilities`, `FunctionChoice`, `Isolation`,
//! `ContextWindow`, `MaxInTurnToolPairs`, `AgentFile`, `SubAgent*`) and vouch's (`Tools`,
//! `InstructionsFile`).

use std::path::Path;

use serde_saphyr::Spanned;
use vouch_gate::yaml::{Location, Map, Node, Reader};
use vouch_llm::ToolChoice;

use crate::config::cli::{CLI_KEYS, CliAgent, cli};
use crate::config::models::{ModelConfig, agent_model};
use crate::tools::TOOLS;

/// Whether an agent sees the whole conversation or only what is handed to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// The task, the notes, its own turns, and of the other agents only the reply that handed
    /// the work to it (fuseraft's default).
    #[default]
    Fresh,
    /// Every other agent's replies too.
    Shared,
}

/// `ContextWindow`: what an agent's view of the conversation leaves out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContextWindow {
    /// `TextOnly`: its own earlier turns without their tool calls and results.
    pub text_only: bool,
    /// `MaxTurnAge`: only the last so many turns (of any agent) before the current one.
    pub max_turn_age: Option<u32>,
    /// `MaxTailMessages`: only the last so many messages before the current turn.
    pub max_tail_messages: Option<u32>,
    /// `ExcludeAgents`: agents whose replies it never sees.
    pub exclude_agents: Vec<String>,
    /// `MaxToolResultChars`: tool results of earlier turns cut to this many characters.
    pub max_tool_result_chars: Option<u32>,
}

/// `SubAgentModel`, `SubAgentPlugins`, `SubAgentMaxToolCalls`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SubAgent {
    /// The sub-agent's model alias; the agent's own when absent.
    pub model: Option<String>,
    /// Its tools (read-only ones only).
    pub tools: Vec<String>,
    /// Its cap of tool calls (default 15).
    pub max_tool_calls: u32,
}

/// One agent of `Agents`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentConfig {
    /// `Name`.
    pub name: String,
    /// `Description`: what it does, as selectors and managers are told.
    pub description: Option<String>,
    /// `Instructions`, or the text of `InstructionsFile`/`AgentFile`.
    pub instructions: String,
    /// Its model's alias.
    pub model: String,
    /// The tools it may call: its plugins expanded, filtered by `Capabilities`.
    pub tools: Vec<String>,
    /// `MaxToolCallsPerTurn`.
    pub max_tool_calls: u32,
    /// `FunctionChoice`: must the first step of a turn call a tool (`required`), may it
    /// (`auto`), or are no tools offered (`none`).
    pub function_choice: ToolChoice,
    /// `Isolation`.
    pub isolation: Isolation,
    /// `ContextWindow`.
    pub context_window: ContextWindow,
    /// `MaxInTurnToolPairs`: the model sees only the last so many calls of the current turn.
    pub max_in_turn_tool_pairs: Option<u32>,
    /// The sub-agent its `SubAgent` tools start.
    pub sub_agent: SubAgent,
    /// The MCP servers its `Plugins` name, each with the tools `Capabilities` keeps (all when
    /// `None`).
    pub mcp: Vec<(String, Option<Vec<String>>)>,
    /// `Cli`: the agent is a coding agent's CLI, run headless for each of its turns (its
    /// `model` is then empty: the CLI's own model is [`CliAgent::model`]).
    pub cli: Option<CliAgent>,
}

#[cfg(test)]
impl AgentConfig {
    /// An agent named `name` with nothing else set, for tests.
    pub(crate) fn named(name: &str) -> AgentConfig {
        AgentConfig {
            name: name.to_owned(),
            description: None,
            instructions: String::new(),
            model: "m".into(),
            tools: Vec::new(),
            max_tool_calls: 10,
            function_choice: ToolChoice::Auto,
            isolation: Isolation::Fresh,
            context_window: ContextWindow::default(),
            max_in_turn_tool_pairs: None,
            sub_agent: SubAgent::default(),
            mcp: Vec::new(),
            cli: None,
        }
    }
}

/// Every key an agent may have.
const AGENT_KEYS: &[&str] = &[
    "Name",
    "Description",
    "Instructions",
    "InstructionsFile",
    "AgentFile",
    "Model",
    "Tools",
    "Plugins",
    "Capabilities",
    "MaxToolCallsPerTurn",
    "FunctionChoice",
    "Isolation",
    "ContextWindow",
    "MaxInTurnToolPairs",
    "MaxInTurnContextTokens",
    "SubAgentModel",
    "SubAgentPlugins",
    "SubAgentMaxToolCalls",
    "TrustScore",
    "RemoteAgent",
    "Context",
];

/// fuseraft's plugins vouch does not have, by name.
const NOT_YET: &[&str] = &["Plan", "Graph", "Decision"];

/// The tags `Capabilities` filters a plugin's tools by.
fn capability(tool: &str) -> &'static str {
    match tool {
        "read_file"
        | "list_files"
        | "search"
        | "changes_read"
        | "changes_read_latest"
        | "scratchpad_read"
        | "scratchpad_read_all"
        | "json_get" => "read",
        "write_file" | "patch_file" | "git_commit" | "scratchpad_write" => "write",
        "delete_file" => "delete",
        "shell_run" => "run",
        _ => "use",
    }
}

/// Returns the tools of plugin `name` (case-insensitively), if it is one.
pub(crate) fn plugin_tools(name: &str) -> Option<Vec<String>> {
    // `Search` is fuseraft's own plugin for what vouch's FileSystem also offers.
    if name.eq_ignore_ascii_case("Search") {
        return Some(vec!["search".to_owned(), "list_files".to_owned()]);
    }
    let tools: Vec<String> = TOOLS
        .iter()
        .filter(|(_, plugin, _)| plugin.eq_ignore_ascii_case(name))
        .map(|(tool, _, _)| (*tool).to_owned())
        .collect();
    (!tools.is_empty()).then_some(tools)
}

/// The plugins vouch has, for hints.
fn plugin_names() -> String {
    let mut names: Vec<&str> = TOOLS.iter().map(|(_, p, _)| *p).collect();
    names.push("Search");
    names.dedup();
    names.join(", ")
}

/// Reads `Agents`. Each agent's model is an alias of `declared`, or its own (added to
/// `models`).
pub(super) fn agents(
    r: &mut Reader,
    node: &Spanned<Node>,
    path: &str,
    dir: &Path,
    models: &mut Vec<ModelConfig>,
    mcp_servers: &[String],
) -> Vec<(AgentConfig, Location, String)> {
    let Node::Seq(items) = &node.value else {
        r.error(Location::of(node), path, "expected a list of agents", None);
        return Vec::new();
    };
    let mut out: Vec<(AgentConfig, Location, String)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(mut m) = r.map(item, &p) else {
            continue;
        };
        let name = m
            .get("Name")
            .and_then(|(n, pp)| r.string(n, &pp))
            .filter(|n| !n.trim().is_empty());
        let description = m.get("Description").and_then(|(n, pp)| r.string(n, &pp));
        let instructions = instructions(r, &mut m, dir);
        let cli = cli(r, &mut m);
        let model = match (m.get("Model"), &name) {
            // A CLI agent's model is the CLI's own (read with `Cli`, which says what is wrong
            // with a `Cli` it cannot read).
            _ if cli.is_some() || m.entries_keys().any(|k| k.eq_ignore_ascii_case("Cli")) => {
                Some((String::new(), m.location, p.clone()))
            }
            (Some((n, pp)), Some(name)) => {
                agent_model(r, n, &pp, name, models, dir).map(|(alias, own)| {
                    if let Some(own) = own {
                        models.push(own);
                    }
                    (alias, Location::of(n), pp)
                })
            }
            _ => None,
        };
        let (tools, mcp) = tools(r, &mut m, mcp_servers);
        let max_tool_calls = m
            .get("MaxToolCallsPerTurn")
            .and_then(|(n, pp)| r.number(n, &pp))
            // fuseraft: 0 means no limit; vouch keeps a ceiling all the same.
            .map_or(25, |n| if n == 0 { 1000 } else { n });
        let function_choice = match m.get("FunctionChoice") {
            Some((n, pp)) => match r.string(n, &pp).map(|s| s.to_ascii_lowercase()).as_deref() {
                Some("auto") | None => ToolChoice::Auto,
                Some("required") => ToolChoice::Required,
                Some("none") => ToolChoice::None,
                Some(other) => {
                    r.error(
                        Location::of(n),
                        &pp,
                        format!("unknown function choice `{other}`"),
                        Some("`auto`, `required` or `none`".into()),
                    );
                    ToolChoice::Auto
                }
            },
            None => ToolChoice::Auto,
        };
        let isolation = match m.get("Isolation") {
            Some((n, pp)) => match r.string(n, &pp).map(|s| s.to_ascii_lowercase()).as_deref() {
                Some("fresh") | None => Isolation::Fresh,
                Some("shared") => Isolation::Shared,
                Some("fork") => {
                    r.error(
                        Location::of(n),
                        &pp,
                        "fuseraft's `Isolation: Fork` is not supported by vouch",
                        Some("`Fresh` or `Shared`".into()),
                    );
                    Isolation::Fresh
                }
                Some(other) => {
                    r.error(
                        Location::of(n),
                        &pp,
                        format!("unknown isolation `{other}`"),
                        Some("`Fresh` or `Shared`".into()),
                    );
                    Isolation::Fresh
                }
            },
            None => Isolation::Fresh,
        };
        let context_window = m
            .get("ContextWindow")
            .map(|(n, pp)| context_window(r, n, &pp))
            .unwrap_or_default();
        let max_in_turn_tool_pairs = m
            .get("MaxInTurnToolPairs")
            .and_then(|(n, pp)| r.positive(n, &pp));
        if let Some((n, pp)) = m.get("MaxInTurnContextTokens") {
            r.error(
                Location::of(n),
                &pp,
                "fuseraft's `MaxInTurnContextTokens` is not supported by vouch",
                Some("`MaxInTurnToolPairs` bounds a turn's context deterministically".into()),
            );
        }
        let sub_agent = sub_agent(r, &mut m);
        if let Some((n, pp)) = m.get("TrustScore") {
            let score = n
                .value
                .scalar()
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|s| (0.0..=1.0).contains(s));
            if score.is_none() {
                r.error(
                    Location::of(n),
                    &pp,
                    format!(
                        "`TrustScore` is a number from 0 to 1, found {}",
                        n.value.described()
                    ),
                    None,
                );
            }
        }
        for key in ["RemoteAgent", "Context"] {
            if let Some((n, pp)) = m.get(key) {
                r.error(
                    Location::of(n),
                    &pp,
                    format!("fuseraft's agent key `{key}` is not supported by vouch"),
                    None,
                );
            }
        }
        let known: Vec<&str> = AGENT_KEYS.iter().chain(CLI_KEYS).copied().collect();
        r.unknown_keys(&m, &known);
        let (Some(name), Some((model, _, _))) = (name, model) else {
            r.error(
                m.location,
                &p,
                "an agent needs a `Name` and a `Model`",
                None,
            );
            continue;
        };
        if let Some((first, ..)) = out
            .iter()
            .find(|(a, ..)| a.name.eq_ignore_ascii_case(&name))
        {
            r.error(
                m.location,
                &p,
                format!("agent `{}` is declared twice", first.name),
                None,
            );
            continue;
        }
        out.push((
            AgentConfig {
                name,
                description,
                instructions,
                model,
                tools,
                max_tool_calls,
                function_choice,
                isolation,
                context_window,
                max_in_turn_tool_pairs,
                sub_agent,
                mcp,
                cli,
            },
            m.location,
            p,
        ));
    }
    out
}

/// Reads `Instructions`, `InstructionsFile` or `AgentFile` (one of them).
fn instructions(r: &mut Reader, m: &mut Map<'_>, dir: &Path) -> String {
    let inline = m.get("Instructions");
    let mut text = inline
        .as_ref()
        .and_then(|(n, pp)| r.string(n, pp))
        .unwrap_or_default();
    for key in ["InstructionsFile", "AgentFile"] {
        let Some((n, pp)) = m.get(key) else {
            continue;
        };
        if inline.is_some() {
            r.error(
                Location::of(n),
                &pp,
                format!("an agent's instructions are `Instructions` or `{key}`, not both"),
                Some("keep the one you mean".into()),
            );
        }
        if let Some(file) = r.string(n, &pp) {
            match std::fs::read_to_string(dir.join(&file)) {
                Ok(read) => text = read,
                Err(e) => r.error(
                    Location::of(n),
                    &pp,
                    format!("cannot read `{file}`: {e}"),
                    None,
                ),
            }
        }
    }
    text
}

/// An MCP server an agent uses, with the tools `Capabilities` keeps (all when `None`).
type McpUse = (String, Option<Vec<String>>);

/// Reads `Tools`/`Plugins` and filters them by `Capabilities`: the built-in tools, and the
/// MCP servers (of `mcp_servers`) named, with the tools `Capabilities` keeps of each.
fn tools(r: &mut Reader, m: &mut Map<'_>, mcp_servers: &[String]) -> (Vec<String>, Vec<McpUse>) {
    let mut tools: Vec<String> = Vec::new();
    let mut mcp: Vec<McpUse> = Vec::new();
    let mut plugins: Vec<(String, Vec<String>)> = Vec::new();
    for key in ["Tools", "Plugins"] {
        let Some((n, pp)) = m.get(key) else {
            continue;
        };
        for (t, at) in r.strings(n, &pp) {
            if let Some(server) = mcp_servers.iter().find(|s| s.eq_ignore_ascii_case(&t)) {
                mcp.push((server.clone(), None));
            } else if let Some(all) = plugin_tools(&t) {
                plugins.push((t, all));
            } else if TOOLS.iter().any(|(name, _, _)| *name == t) {
                tools.push(t);
            } else if let Some(known) = NOT_YET.iter().find(|p| p.eq_ignore_ascii_case(&t)) {
                r.error(
                    at,
                    &pp,
                    format!("fuseraft's `{known}` plugin is not supported by vouch yet"),
                    Some(format!("plugins: {}", plugin_names())),
                );
            } else {
                r.error(
                    at,
                    &pp,
                    format!("unknown tool or plugin `{t}`"),
                    Some(format!("plugins: {}; a tool's own name; or an MCP server's `Name` from `McpServers`", plugin_names())),
                );
            }
        }
    }
    if let Some((n, pp)) = m.get("Capabilities")
        && let Some(caps) = r.map(n, &pp)
    {
        for (plugin, tags) in caps.entries() {
            let cp = format!("{pp}.{}", plugin.value);
            // An MCP server's capabilities are the names of the tools the agent keeps.
            if let Some((_, keep)) = mcp
                .iter_mut()
                .find(|(s, _)| s.eq_ignore_ascii_case(&plugin.value))
            {
                *keep = Some(r.strings(tags, &cp).into_iter().map(|(s, _)| s).collect());
                continue;
            }
            let wanted: Vec<String> = r
                .strings(tags, &cp)
                .into_iter()
                .map(|(s, _)| s.to_ascii_lowercase())
                .collect();
            for tag in &wanted {
                if !["read", "write", "delete", "run", "use"].contains(&tag.as_str()) {
                    r.error(
                        Location::of(tags),
                        &cp,
                        format!("unknown capability `{tag}`"),
                        Some("`read`, `write`, `delete`, `run`".into()),
                    );
                }
            }
            match plugins
                .iter_mut()
                .find(|(p, _)| p.eq_ignore_ascii_case(&plugin.value))
            {
                Some((_, list)) => {
                    list.retain(|t| wanted.iter().any(|w| w == capability(t)));
                    if list.is_empty() {
                        r.warn(
                            Location::of(plugin),
                            &cp,
                            format!("`{}` with only {} leaves the agent no tool of that plugin in vouch", plugin.value, wanted.join(", ")),
                            None,
                        );
                    }
                }
                None => r.error(
                    Location::of(plugin),
                    &cp,
                    format!(
                        "`Capabilities` names `{}`, which the agent's `Plugins` do not list",
                        plugin.value
                    ),
                    None,
                ),
            }
        }
    }
    for (_, list) in plugins {
        for t in list {
            if !tools.contains(&t) {
                tools.push(t);
            }
        }
    }
    (tools, mcp)
}

/// Reads `ContextWindow`.
fn context_window(r: &mut Reader, node: &Spanned<Node>, path: &str) -> ContextWindow {
    let mut w = ContextWindow::default();
    let Some(mut m) = r.map(node, path) else {
        return w;
    };
    if let Some((n, p)) = m.get("TextOnly") {
        w.text_only = r.boolean(n, &p).unwrap_or(false);
    }
    w.max_turn_age = m.get("MaxTurnAge").and_then(|(n, p)| r.positive(n, &p));
    w.max_tail_messages = m
        .get("MaxTailMessages")
        .and_then(|(n, p)| r.positive(n, &p));
    w.max_tool_result_chars = m
        .get("MaxToolResultChars")
        .and_then(|(n, p)| r.positive(n, &p));
    if let Some((n, p)) = m.get("ExcludeAgents") {
        w.exclude_agents = r.strings(n, &p).into_iter().map(|(s, _)| s).collect();
    }
    for key in [
        "ContextCapFraction",
        "ToolResultCharOverrides",
        "MaxReplayChars",
    ] {
        if let Some((n, p)) = m.get(key) {
            r.error(
                Location::of(n),
                &p,
                format!("fuseraft's `ContextWindow.{key}` is not supported by vouch"),
                None,
            );
        }
    }
    r.unknown_keys(
        &m,
        &[
            "TextOnly",
            "MaxTurnAge",
            "MaxTailMessages",
            "MaxToolResultChars",
            "ExcludeAgents",
            "ContextCapFraction",
            "ToolResultCharOverrides",
            "MaxReplayChars",
        ],
    );
    w
}

/// Reads `SubAgentModel`, `SubAgentPlugins`, `SubAgentMaxToolCalls`.
fn sub_agent(r: &mut Reader, m: &mut Map<'_>) -> SubAgent {
    let mut s = SubAgent {
        max_tool_calls: 15,
        ..SubAgent::default()
    };
    s.model = m.get("SubAgentModel").and_then(|(n, p)| r.string(n, &p));
    if let Some((n, p)) = m.get("SubAgentMaxToolCalls")
        && let Some(c) = r.positive(n, &p)
    {
        s.max_tool_calls = c;
    }
    if let Some((n, p)) = m.get("SubAgentPlugins") {
        for (plugin, at) in r.strings(n, &p) {
            match plugin_tools(&plugin) {
                Some(tools) => s
                    .tools
                    .extend(tools.into_iter().filter(|t| capability(t) == "read")),
                None => r.error(
                    at,
                    &p,
                    format!("`{plugin}` is not a plugin a sub-agent can use"),
                    Some("`FileSystem` and `Search` (read-only)".into()),
                ),
            }
        }
    }
    s.tools.dedup();
    s
}
