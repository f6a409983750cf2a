//! Reading `Selection`: keyword routes, a state machine (fuseraft's map form with `Initial`, or
//! vouch's earlier list form), structured routes on an agent's JSON reply, and the settings of
//! the `sequential`, `roundrobin`, `llm` and `magentic` selections.

use serde_saphyr::Spanned;

use crate::config::error::did_you_mean;
use crate::config::load::Cx;
use crate::config::model::{
    Condition, ConditionTest, MachineState, Magentic, Route, Selection, SelectionKind, StateLink,
};
use crate::config::node::{Location, Node};
use crate::config::reader::Map;

/// The selection types vouch runs.
const KINDS: [SelectionKind; 7] = [
    SelectionKind::Keyword,
    SelectionKind::StateMachine,
    SelectionKind::Sequential,
    SelectionKind::RoundRobin,
    SelectionKind::Structured,
    SelectionKind::Llm,
    SelectionKind::Magentic,
];

/// Selection types fuseraft documents that vouch does not run.
const FUSERAFT_ONLY: [&str; 4] = ["graph", "adversarial", "mapreduce", "scattergather"];

/// What `Selection` holds, as read.
pub(crate) struct SelectionRead {
    pub(crate) routes: Vec<Route>,
    pub(crate) stuck_threshold: Option<u32>,
    pub(crate) states: Vec<MachineState>,
    pub(crate) selection: Selection,
}

impl Cx {
    /// Reads `Selection`.
    pub(crate) fn selection(&mut self, node: &Spanned<Node>, path: &str) -> SelectionRead {
        let mut out = SelectionRead {
            routes: Vec::new(),
            stuck_threshold: None,
            states: Vec::new(),
            selection: Selection::default(),
        };
        let Some(mut m) = self.map(node, path) else {
            return out;
        };
        let kind = self.selection_kind(&mut m);
        out.selection.kind = kind.unwrap_or(SelectionKind::Keyword);
        if let Some((n, p)) = m.get("Routes") {
            out.routes = self.list(n, &p, "routes", Cx::route);
        }
        // The state machine: fuseraft's `StateMachine: {Initial, States: {...}}`, or vouch's
        // earlier `States: [...]` beside `Type`.
        let machine = m.get("StateMachine");
        let legacy = m.get("States");
        let is_machine = kind == Some(SelectionKind::StateMachine);
        match (machine, legacy) {
            (Some((n, p)), _) if is_machine => {
                if let Some(mut sm) = self.map(n, &p) {
                    let initial = sm
                        .get("Initial")
                        .and_then(|(n, p)| Some((self.string(n, &p)?, Location::of(n), p)));
                    match sm.get("States") {
                        Some((n, p)) => {
                            let (states, routes) = self.states(n, &p, initial);
                            out.states = states;
                            out.routes.extend(routes);
                        }
                        None => self.error(sm.location, &p, "a state machine needs `States`", None),
                    }
                    self.unknown_keys(&sm, &["Initial", "States"]);
                }
            }
            (None, Some((n, p))) if is_machine => {
                let (states, routes) = self.states(n, &p, None);
                out.states = states;
                out.routes.extend(routes);
            }
            (None, None) if is_machine => self.error(
                m.location,
                path,
                "a `statemachine` selection needs `StateMachine: {Initial, States}`",
                None,
            ),
            (Some((n, p)), _) | (None, Some((n, p))) if !is_machine => self.error(
                Location::of(n),
                &p,
                "states belong to a `statemachine` selection",
                Some("write `Type: statemachine`".into()),
            ),
            _ => {}
        }
        if let Some((n, p)) = m.get("DefaultAgent") {
            out.selection.default_agent = self.string(n, &p);
        }
        if let Some((n, p)) = m.get("StructuredRoutes") {
            out.selection.structured = self.list(n, &p, "structured routes", |cx, item, p| {
                cx.structured_route(item, p)
            });
        }
        // The selector's model is the runner's to read (`Selection.Model`).
        let _ = m.get("Model");
        if let Some((n, p)) = m.get("Prompt") {
            out.selection.prompt = self.string(n, &p);
        }
        if let Some((n, p)) = m.get("Magentic") {
            out.selection.magentic = self.magentic(n, &p);
        }
        out.stuck_threshold = m
            .get("StuckThreshold")
            .and_then(|(n, p)| self.positive(n, &p));
        self.unknown_keys(
            &m,
            &[
                "Type",
                "Routes",
                "StateMachine",
                "States",
                "DefaultAgent",
                "StructuredRoutes",
                "Model",
                "Prompt",
                "Magentic",
                "StuckThreshold",
            ],
        );
        self.check_selection(&out, &m, path);
        out
    }

    /// Reads `Type`: absent, it is `statemachine` when a `StateMachine` is given, else `keyword`.
    fn selection_kind(&mut self, m: &mut Map<'_>) -> Option<SelectionKind> {
        let Some((n, p)) = m.get("Type") else {
            let machine = m
                .entries_keys()
                .any(|k| k.eq_ignore_ascii_case("StateMachine"));
            return Some(if machine {
                SelectionKind::StateMachine
            } else {
                SelectionKind::Keyword
            });
        };
        let written = self.string(n, &p)?;
        let lower = written.trim().to_ascii_lowercase();
        if let Some(kind) = KINDS.iter().find(|k| k.name() == lower) {
            return Some(*kind);
        }
        if FUSERAFT_ONLY.contains(&lower.as_str()) {
            self.error(
                Location::of(n),
                &p,
                format!("fuseraft's `{lower}` selection is not supported by vouch"),
                Some(format!(
                    "vouch runs {}",
                    KINDS.map(SelectionKind::name).join(", ")
                )),
            );
        } else {
            let hint = did_you_mean(&lower, KINDS.iter().map(|k| k.name()))
                .map(|k| format!("did you mean `{k}`?"))
                .or_else(|| {
                    Some(format!(
                        "selection types: {}",
                        KINDS.map(SelectionKind::name).join(", ")
                    ))
                });
            self.error(
                Location::of(n),
                &p,
                format!("unknown selection type `{written}`"),
                hint,
            );
        }
        None
    }

    /// What only the whole section can tell: keys that belong to another type.
    fn check_selection(&mut self, read: &SelectionRead, m: &Map<'_>, path: &str) {
        let kind = read.selection.kind;
        let belongs = |key: &str| -> Option<&'static str> {
            match key.to_ascii_lowercase().as_str() {
                "routes" if !matches!(kind, SelectionKind::Keyword) => Some("keyword"),
                "defaultagent" | "structuredroutes" if kind != SelectionKind::Structured => {
                    Some("structured")
                }
                "prompt" if kind != SelectionKind::Llm => Some("llm"),
                "model" if !kind.is_model_driven() => Some("llm"),
                "magentic" if kind != SelectionKind::Magentic => Some("magentic"),
                _ => None,
            }
        };
        for (key, value) in m.entries() {
            if let Some(owner) = belongs(&key.value)
                && !matches!(value.value, Node::Null)
            {
                self.error(
                    Location::of(key),
                    &format!("{path}.{}", key.value),
                    format!(
                        "`{}` belongs to a `{owner}` selection, and this one is `{}`",
                        key.value,
                        kind.name()
                    ),
                    None,
                );
            }
        }
        match kind {
            SelectionKind::Structured if read.selection.structured.is_empty() => self.error(
                m.location,
                path,
                "a `structured` selection needs `StructuredRoutes`",
                None,
            ),
            SelectionKind::Magentic if read.selection.magentic.is_none() => self.error(
                m.location,
                path,
                "a `magentic` selection needs `Magentic: {Model: ...}`",
                None,
            ),
            _ => {}
        }
    }

    /// Reads a list, each item with `read`.
    fn list<T>(
        &mut self,
        node: &Spanned<Node>,
        path: &str,
        what: &str,
        mut read: impl FnMut(&mut Cx, &Spanned<Node>, &str) -> Option<T>,
    ) -> Vec<T> {
        match &node.value {
            Node::Seq(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| read(self, item, &format!("{path}[{i}]")))
                .collect(),
            Node::Null => Vec::new(),
            other => {
                self.error(
                    Location::of(node),
                    path,
                    format!("expected a list of {what}, found {}", other.kind()),
                    None,
                );
                Vec::new()
            }
        }
    }

    /// Reads `Magentic`: the manager's settings (its `Model` is the runner's to read).
    fn magentic(&mut self, node: &Spanned<Node>, path: &str) -> Option<Magentic> {
        let mut m = self.map(node, path)?;
        if m.get("Model").is_none() {
            self.error(
                m.location,
                path,
                "the magentic manager needs a `Model`",
                None,
            );
        }
        let instructions = m.get("Instructions").and_then(|(n, p)| self.string(n, &p));
        let mut count = |key: &str, default: u32, cx: &mut Cx| {
            m.get(key)
                .and_then(|(n, p)| cx.positive(n, &p))
                .unwrap_or(default)
        };
        let max_rounds = count("MaxRoundCount", 20, self);
        let max_stalls = count("MaxStallCount", 3, self);
        let max_resets = count("MaxResetCount", 2, self);
        if let Some((n, p)) = m.get("EnablePlanReview")
            && self.boolean(n, &p) == Some(true)
        {
            self.error(
                Location::of(n),
                &p,
                "fuseraft's `EnablePlanReview` is not supported by vouch: a run has no person at a prompt to approve the plan",
                Some("write `EnablePlanReview: false`, or leave it out".into()),
            );
        }
        self.unknown_keys(
            &m,
            &[
                "Model",
                "Instructions",
                "MaxRoundCount",
                "MaxStallCount",
                "MaxResetCount",
                "EnablePlanReview",
            ],
        );
        Some(Magentic {
            instructions,
            max_rounds,
            max_stalls,
            max_resets,
        })
    }

    /// Reads one of `StructuredRoutes`: an `Agent`, a `Condition`, `SourceAgents` and the
    /// gates a route has.
    fn structured_route(&mut self, node: &Spanned<Node>, path: &str) -> Option<Route> {
        let mut m = self.map(node, path)?;
        let agent = m.get("Agent").and_then(|(n, p)| self.string(n, &p));
        let condition = match m.get("Condition") {
            Some((n, p)) => self.condition(n, &p),
            None => {
                self.error(
                    m.location,
                    path,
                    "a structured route needs a `Condition`",
                    None,
                );
                None
            }
        };
        let gates = self.gate_keys(&mut m);
        self.unknown_keys(
            &m,
            &[
                "Agent",
                "Condition",
                "SourceAgents",
                "Validator",
                "Validators",
                "RequiredCommandPattern",
                "ShellFallbackPattern",
                "Contracts",
                "Requires",
            ],
        );
        let Some(agent) = agent else {
            self.error(
                m.location,
                path,
                "a structured route needs an `Agent`",
                None,
            );
            return None;
        };
        let condition = condition?;
        let label = condition.to_string();
        let mut route = gates.route(label, Some(agent), m.location, path, None);
        route.condition = Some(condition);
        Some(route)
    }

    /// Reads a `Condition`: a `Field` and one of `Is`, `IsNot`, `Contains`, `Exists`.
    fn condition(&mut self, node: &Spanned<Node>, path: &str) -> Option<Condition> {
        let mut m = self.map(node, path)?;
        let field = m.get("Field").and_then(|(n, p)| self.string(n, &p));
        let mut tests = Vec::new();
        for key in ["Is", "IsNot", "Contains"] {
            if let Some((n, p)) = m.get(key)
                && let Some(v) = self.string(n, &p)
            {
                tests.push(match key {
                    "Is" => ConditionTest::Is(v),
                    "IsNot" => ConditionTest::IsNot(v),
                    _ => ConditionTest::Contains(v),
                });
            }
        }
        if let Some((n, p)) = m.get("Exists")
            && let Some(b) = self.boolean(n, &p)
        {
            tests.push(ConditionTest::Exists(b));
        }
        self.unknown_keys(&m, &["Field", "Is", "IsNot", "Contains", "Exists"]);
        let Some(field) = field.filter(|f| !f.trim().is_empty()) else {
            self.error(m.location, path, "a condition needs a `Field`", None);
            return None;
        };
        if tests.len() != 1 {
            self.error(
                m.location,
                path,
                format!(
                    "a condition tests its field one way: `Is`, `IsNot`, `Contains` or `Exists` (found {})",
                    tests.len()
                ),
                None,
            );
            return None;
        }
        Some(Condition {
            field: field.trim().to_owned(),
            test: tests.remove(0),
        })
    }

    /// Reads a state machine's states — a mapping of names (fuseraft) or a list of states with
    /// a `Name` (vouch's earlier form) — and their transitions as routes. The initial state
    /// comes first; every transition leads to a declared state, and every state is reachable
    /// from the initial one.
    fn states(
        &mut self,
        node: &Spanned<Node>,
        path: &str,
        initial: Option<(String, Location, String)>,
    ) -> (Vec<MachineState>, Vec<Route>) {
        // (name, its mapping, key path, where the name was written)
        let mut items: Vec<(String, &Spanned<Node>, String, Location)> = Vec::new();
        match &node.value {
            Node::Map(entries) => {
                for (key, value) in entries {
                    items.push((
                        key.value.clone(),
                        value,
                        format!("{path}.{}", key.value),
                        Location::of(key),
                    ));
                }
            }
            Node::Seq(list) => {
                for (i, item) in list.iter().enumerate() {
                    let p = format!("{path}[{i}]");
                    let name = match &item.value {
                        Node::Map(entries) => entries
                            .iter()
                            .find(|(k, _)| k.value.eq_ignore_ascii_case("Name"))
                            .and_then(|(_, v)| v.value.scalar()),
                        _ => None,
                    };
                    match name {
                        Some(name) => items.push((name, item, p, Location::of(item))),
                        None => self.error(Location::of(item), &p, "a state needs a `Name`", None),
                    }
                }
            }
            other => {
                self.error(
                    Location::of(node),
                    path,
                    format!("expected the states, found {}", other.kind()),
                    Some("write `States:` as a mapping of state names".into()),
                );
                return (Vec::new(), Vec::new());
            }
        }
        let mut states: Vec<MachineState> = Vec::new();
        let mut routes: Vec<(Route, Location)> = Vec::new();
        for (name, item, p, at) in items {
            let Some(mut m) = self.map(item, &p) else {
                continue;
            };
            let _ = m.get("Name");
            let agent = m.get("Agent").and_then(|(n, pp)| self.string(n, &pp));
            let terminal = m
                .get("Terminal")
                .and_then(|(n, pp)| self.boolean(n, &pp))
                .unwrap_or(false);
            if states.iter().any(|s| s.name.eq_ignore_ascii_case(&name)) {
                self.error(at, &p, format!("state `{name}` is declared twice"), None);
            }
            if let Some((n, tp)) = m.get("Transitions") {
                let list = self.list(n, &tp, "transitions", |cx, t, tp| {
                    cx.transition(t, tp, &name, agent.as_deref())
                });
                routes.extend(list);
            }
            self.unknown_keys(&m, &["Name", "Agent", "Terminal", "Transitions"]);
            if agent.is_none() && !terminal {
                self.error(
                    at,
                    &p,
                    format!("state `{name}` needs an `Agent` (or `Terminal: true`)"),
                    None,
                );
            }
            states.push(MachineState {
                name,
                agent,
                terminal,
                location: at,
                key_path: p,
            });
        }
        // The initial state first.
        if let Some((initial, at, p)) = initial {
            match states
                .iter()
                .position(|s| s.name.eq_ignore_ascii_case(&initial))
            {
                Some(i) => {
                    let first = states.remove(i);
                    states.insert(0, first);
                }
                None => {
                    let names: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
                    self.error(
                        at,
                        &p,
                        format!("the initial state `{initial}` is not among `States`"),
                        Some(format!("states: {}", names.join(", "))),
                    );
                }
            }
        }
        let out = self.link(&states, routes);
        self.reachable(&states, &out);
        (states, out)
    }

    /// Resolves each transition's `To` to a declared state; the route goes to its agent.
    fn link(&mut self, states: &[MachineState], routes: Vec<(Route, Location)>) -> Vec<Route> {
        let mut out = Vec::new();
        for (mut route, to_at) in routes {
            let Some(link) = route.transition.clone() else {
                continue;
            };
            match states
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(&link.to))
            {
                Some(target) => {
                    route.agent.clone_from(&target.agent);
                    route.transition = Some(StateLink {
                        from: link.from,
                        to: target.name.clone(),
                    });
                    out.push(route);
                }
                None => {
                    let names: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
                    self.error(
                        to_at,
                        &format!("{}.To", route.key_path),
                        format!(
                            "transition to `{}`, which `States` does not declare",
                            link.to
                        ),
                        Some(format!("states: {}", names.join(", "))),
                    );
                }
            }
        }
        out
    }

    /// Reports the states no transition reaches from the initial one.
    fn reachable(&mut self, states: &[MachineState], routes: &[Route]) {
        let Some(first) = states.first() else {
            return;
        };
        let mut reached: Vec<&str> = vec![first.name.as_str()];
        let mut i = 0;
        while i < reached.len() {
            let from = reached[i];
            for r in routes {
                if let Some(link) = &r.transition
                    && link.from.eq_ignore_ascii_case(from)
                    && !reached.iter().any(|s| s.eq_ignore_ascii_case(&link.to))
                {
                    reached.push(&link.to);
                }
            }
            i += 1;
        }
        for s in states {
            if !reached.iter().any(|r| r.eq_ignore_ascii_case(&s.name)) {
                self.error(
                    s.location,
                    &s.key_path,
                    format!(
                        "state `{}` cannot be reached from the initial state, `{}`",
                        s.name, first.name
                    ),
                    None,
                );
            }
        }
    }

    /// Reads one transition of state `from` (spoken by `agent`) as a route; its `To` is
    /// resolved once every state is read. Returns it with where `To` was written. A transition
    /// without a `Signal` fires after any reply of the state's agent that names no other.
    fn transition(
        &mut self,
        node: &Spanned<Node>,
        path: &str,
        from: &str,
        agent: Option<&str>,
    ) -> Option<(Route, Location)> {
        let mut m = self.map(node, path)?;
        let signal = m.get("Signal").and_then(|(n, p)| self.string(n, &p));
        let to = m
            .get("To")
            .and_then(|(n, p)| Some((self.string(n, &p)?, Location::of(n))));
        let mut gates = self.gate_keys(&mut m);
        if let Some((n, p)) = m.get("Contract") {
            gates.contracts.extend(self.contract_names(n, &p));
        }
        let recovery_agent = m.get("RecoveryAgent").and_then(|(n, p)| self.string(n, &p));
        let handoff_context = match m.get("HandoffContext") {
            Some((n, p)) => self.handoff_context(n, &p),
            None => Vec::new(),
        };
        for key in [
            "MaxRevisits",
            "ReviewArtifactPath",
            "Parallel",
            "Targets",
            "Merge",
        ] {
            if let Some((n, p)) = m.get(key) {
                self.error(
                    Location::of(n),
                    &p,
                    format!("fuseraft's transition key `{key}` is not supported by vouch"),
                    None,
                );
            }
        }
        self.unknown_keys(
            &m,
            &[
                "To",
                "Signal",
                "Contract",
                "Contracts",
                "Validator",
                "Validators",
                "SourceAgents",
                "RequiredCommandPattern",
                "ShellFallbackPattern",
                "Requires",
                "RecoveryAgent",
                "HandoffContext",
            ],
        );
        let Some((to, to_at)) = to else {
            self.error(m.location, path, "a transition needs a `To`", None);
            return None;
        };
        if gates.source_agents.is_empty() {
            gates.source_agents = agent.map(str::to_owned).into_iter().collect();
        }
        let link = StateLink {
            from: from.to_owned(),
            to,
        };
        let signal = signal.map(|s| s.trim().to_owned()).unwrap_or_default();
        let mut route = gates.route(signal, None, m.location, path, Some(link));
        route.recovery_agent = recovery_agent;
        route.handoff_context = handoff_context;
        Some((route, to_at))
    }

    /// Reads `HandoffContext`: files whose text goes to the next agent with the handoff
    /// (`- Source: file:<path>`).
    fn handoff_context(&mut self, node: &Spanned<Node>, path: &str) -> Vec<String> {
        self.list(node, path, "context sources", |cx, item, p| {
            let mut m = cx.map(item, p)?;
            let source = m.get("Source").and_then(|(n, pp)| {
                let s = cx.string(n, &pp)?;
                match s.trim().strip_prefix("file:") {
                    Some(file) if !file.trim().is_empty() => Some(file.trim().to_owned()),
                    _ => {
                        cx.error(
                            Location::of(n),
                            &pp,
                            format!("`{s}` is not a source vouch reads"),
                            Some("write `file:<path in the working directory>`".into()),
                        );
                        None
                    }
                }
            });
            cx.unknown_keys(&m, &["Source"]);
            source
        })
    }
}

impl std::fmt::Display for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let field = &self.field;
        match &self.test {
            ConditionTest::Is(v) => write!(f, "{field} is {v}"),
            ConditionTest::IsNot(v) => write!(f, "{field} is not {v}"),
            ConditionTest::Contains(v) => write!(f, "{field} contains {v}"),
            ConditionTest::Exists(true) => write!(f, "{field} exists"),
            ConditionTest::Exists(false) => write!(f, "{field} is absent"),
        }
    }
}
