//! `lint`: every problem of a pipeline configuration at once — what loading rejects, and what
//! loads but cannot work: agents no route reaches, routes an earlier route shadows, contracts
//! nothing uses, and runs with no `maxiterations` cap.

use std::path::Path;

use crate::config::{
    ConfigError, ConfigErrors, Location, PipelineConfig, Route, SelectionKind, Termination,
    TerminationKind, did_you_mean, parse_partial,
};

/// Returns every problem of the configuration `text` read from `path`, in the order of the
/// file; none when it is sound.
pub fn lint(path: &Path, text: &str) -> ConfigErrors {
    let (config, mut errors) = parse_partial(path, text);
    if let Some(config) = config {
        let mut problems = Vec::new();
        agents(&config, &mut problems);
        shadowed(&config.routes, &mut problems);
        unused_contracts(&config, &mut problems);
        cap(&config, &mut problems);
        errors.errors.extend(problems);
        errors
            .errors
            .sort_by_key(|e| (e.location.line, e.location.column));
    }
    errors
}

fn problem(
    location: Location,
    key_path: String,
    message: String,
    hint: impl Into<Option<String>>,
) -> ConfigError {
    ConfigError {
        location,
        key_path,
        message,
        hint: hint.into(),
    }
}

fn same(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Names no declared agent has, and agents no route leads to from where the run starts: the
/// first agent of `Agents`, else the agents that may use the first route.
fn agents(config: &PipelineConfig, out: &mut Vec<ConfigError>) {
    let routes = &config.routes;
    let declared: Vec<&str> = config.agents.iter().map(|a| a.name.as_str()).collect();
    // Every agent the configuration names, where it is named, and the key naming it.
    let mut named: Vec<(&str, Location, String)> = config
        .agents
        .iter()
        .map(|a| (a.name.as_str(), a.location, a.key_path.clone()))
        .collect();
    for r in routes {
        if let Some(a) = &r.agent {
            named.push((a, r.location, format!("{}.Agent", r.key_path)));
        }
        for a in &r.source_agents {
            named.push((a, r.location, format!("{}.SourceAgents", r.key_path)));
        }
    }
    for s in config.termination.iter().flat_map(Termination::all) {
        for a in &s.agent_names {
            named.push((a, s.location, format!("{}.AgentNames", s.key_path)));
        }
    }
    for r in &config.selection.structured {
        if let Some(a) = &r.agent {
            named.push((a, r.location, format!("{}.Agent", r.key_path)));
        }
        for a in &r.source_agents {
            named.push((a, r.location, format!("{}.SourceAgents", r.key_path)));
        }
    }
    // Agents that speak outside the routing: the verifier, recovery agents, the default.
    let mut outside: Vec<&str> = Vec::new();
    if let Some(v) = &config.verifier {
        named.push((&v.agent, v.location, "Verifier.AgentName".to_owned()));
        outside.push(&v.agent);
    }
    for r in routes {
        if let Some(a) = &r.recovery_agent {
            named.push((a, r.location, format!("{}.RecoveryAgent", r.key_path)));
            outside.push(a);
        }
    }
    let mut reported: Vec<&str> = Vec::new();
    if !declared.is_empty() {
        for (agent, location, key) in &named {
            if declared.iter().chain(&reported).any(|d| same(d, agent)) {
                continue;
            }
            reported.push(agent);
            let hint = did_you_mean(agent, declared.iter().copied()).map_or_else(
                || format!("`Agents` declares {}", declared.join(", ")),
                |d| format!("did you mean `{d}`?"),
            );
            out.push(problem(
                *location,
                key.clone(),
                format!("agent `{agent}` is not declared in `Agents`"),
                hint,
            ));
        }
    }
    // Only keyword routes and state machines can leave an agent out: the other selections
    // give every agent its turn (or a model picks among them all).
    if !matches!(
        config.selection.kind,
        SelectionKind::Keyword | SelectionKind::StateMachine
    ) {
        return;
    }
    let initial = config.states.first().and_then(|s| s.agent.as_deref());
    let start: Vec<&str> = match (initial.or(declared.first().copied()), routes.first()) {
        (Some(first), _) => vec![first],
        (None, Some(r)) if !r.source_agents.is_empty() => {
            r.source_agents.iter().map(String::as_str).collect()
        }
        // With no declared agents and an open first route, where a run starts is not known.
        _ => return,
    };
    let mut reached: Vec<&str> = start.iter().chain(&outside).copied().collect();
    loop {
        let before = reached.len();
        for r in routes {
            let usable = r.source_agents.is_empty()
                || r.source_agents
                    .iter()
                    .any(|s| reached.iter().any(|x| same(x, s)));
            if let Some(to) = &r.agent
                && usable
                && !reached.iter().any(|x| same(x, to))
            {
                reached.push(to);
            }
        }
        if reached.len() == before {
            break;
        }
    }
    for (agent, location, key) in &named {
        if reached.iter().chain(&reported).any(|x| same(x, agent)) {
            continue;
        }
        reported.push(agent);
        out.push(problem(
            *location,
            key.clone(),
            format!(
                "agent `{agent}` is unreachable: no route leads to it from {}",
                start.join(" or ")
            ),
            format!(
                "add a route with `Agent: {agent}` from an agent the run reaches, or remove the agent"
            ),
        ));
    }
}

/// Routes whose keyword an earlier route takes, for some of the same writers, to another
/// agent: a keyword goes to the first route that accepts its writer, so the later route never
/// fires for them. (Routes of one keyword to the same agent add up: all their gates run.)
fn shadowed(routes: &[Route], out: &mut Vec<ConfigError>) {
    let mut by_keyword: std::collections::HashMap<String, Vec<usize>> =
        std::collections::HashMap::new();
    for (i, r) in routes.iter().enumerate() {
        by_keyword
            .entry(r.keyword.to_lowercase())
            .or_default()
            .push(i);
    }
    let mut groups: Vec<&Vec<usize>> = by_keyword.values().filter(|g| g.len() > 1).collect();
    groups.sort();
    for group in groups {
        for (n, &j) in group.iter().enumerate() {
            let later = &routes[j];
            for &i in &group[..n] {
                let earlier = &routes[i];
                let differs = match (&earlier.agent, &later.agent) {
                    (Some(a), Some(b)) => !same(a, b),
                    (a, b) => a.is_some() != b.is_some(),
                };
                if !differs {
                    continue;
                }
                let overlap: Vec<&str> = match (
                    earlier.source_agents.is_empty(),
                    later.source_agents.is_empty(),
                ) {
                    (true, true) => vec!["any agent"],
                    (true, false) => later.source_agents.iter().map(String::as_str).collect(),
                    (false, true) => earlier.source_agents.iter().map(String::as_str).collect(),
                    (false, false) => later
                        .source_agents
                        .iter()
                        .filter(|s| earlier.source_agents.iter().any(|e| same(e, s)))
                        .map(String::as_str)
                        .collect(),
                };
                if overlap.is_empty() {
                    continue;
                }
                out.push(problem(
                    later.location,
                    later.key_path.clone(),
                    format!(
                        "route `{}` to {} is shadowed for {} by the route at line {}, which takes the same keyword to {}",
                        later.keyword,
                        later.agent.as_deref().unwrap_or("no agent"),
                        overlap.join(", "),
                        earlier.location.line,
                        earlier.agent.as_deref().unwrap_or("no agent"),
                    ),
                    "a keyword goes to the first route that accepts its writer: give this route another keyword, or other SourceAgents".to_owned(),
                ));
                break;
            }
        }
    }
}

/// Contracts no route or strategy names.
fn unused_contracts(config: &PipelineConfig, out: &mut Vec<ConfigError>) {
    let mut used = vec![false; config.contracts.len()];
    let strategies: Vec<&Termination> = config
        .termination
        .iter()
        .flat_map(Termination::all)
        .collect();
    let refs = config
        .routes
        .iter()
        .flat_map(|r| &r.contracts)
        .chain(strategies.iter().flat_map(|t| &t.contracts));
    for r in refs {
        if let Some(u) = used.get_mut(r.index) {
            *u = true;
        }
    }
    for (i, c) in config.contracts.iter().enumerate() {
        if !used[i] {
            out.push(problem(
                c.location,
                c.key_path.clone(),
                format!("contract `{}` is never used", c.name),
                "name it in a route's `Contracts`, or remove it".to_owned(),
            ));
        }
    }
}

/// A pipeline whose run has no `maxiterations` cap: agents that never agree never stop.
fn cap(config: &PipelineConfig, out: &mut Vec<ConfigError>) {
    // A sequential selection ends after its last agent; a magentic manager has its
    // `MaxRoundCount`.
    if matches!(
        config.selection.kind,
        SelectionKind::Sequential | SelectionKind::Magentic
    ) {
        return;
    }
    match &config.termination {
        Some(t) => {
            let capped = t.all().iter().any(|s| {
                s.max_iterations.is_some()
                    && matches!(
                        s.kind,
                        TerminationKind::MaxIterations | TerminationKind::Composite
                    )
            });
            if !capped {
                out.push(problem(
                    t.location,
                    t.key_path.clone(),
                    "the termination has no `maxiterations` cap: a run whose agents never finish never ends".to_owned(),
                    "make it `Type: composite` with a `- Type: maxiterations` strategy (`MaxIterations: 40`)".to_owned(),
                ));
            }
        }
        None if config.states.iter().any(|s| s.terminal) => {
            if let Some(first) = config.routes.first() {
                out.push(problem(
                    first.location,
                    first.key_path.clone(),
                    "the state machine has no `Termination`: a run that never reaches a terminal state never ends".to_owned(),
                    "add `Termination:` with `Type: maxiterations` and `MaxIterations: 40`".to_owned(),
                ));
            }
        }
        None => {
            if let Some(first) = config.routes.first() {
                out.push(problem(
                    first.location,
                    first.key_path.clone(),
                    "the pipeline has routes but no `Termination`: nothing ends a run, not even a cap".to_owned(),
                    "add `Termination:` with `Type: maxiterations` and `MaxIterations: 40`".to_owned(),
                ));
            }
        }
    }
}
