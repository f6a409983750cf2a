//! The pipeline configuration, as loaded: routes, termination, the `Validation` section, the
//! test selector and the hooks of `vouch.yaml`.

use std::path::PathBuf;
use std::time::Duration;

use regex::Regex;
use vouch_evidence::ArtifactPaths;

use crate::alternatives::Alternatives;
use crate::config::node::Location;
use crate::contracts::PredicateKind;
use crate::validators::ValidatorKind;

/// A loaded configuration. Every name in it is known, every pattern compiles and every
/// contract a route names exists: loading reports problems, the loaded object has none, and
/// its fields are private so that nothing can make it invalid afterwards.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PipelineConfig {
    /// The file it was loaded from.
    pub(crate) path: PathBuf,
    /// `Selection.Routes`, in order.
    pub(crate) routes: Vec<Route>,
    /// `Termination`, when configured.
    pub(crate) termination: Option<Termination>,
    /// The `Validation` section, defaults applied.
    pub(crate) validation: Validation,
    /// `TestSelector`.
    pub(crate) test_selector: TestSelector,
    /// `Hooks`, the stop hook's gates (in `vouch.yaml`).
    pub(crate) hooks: Hooks,
    /// `Contracts`, in the order declared.
    pub(crate) contracts: Vec<Contract>,
    /// `Selection.StuckThreshold`: consecutive corrections of one agent after which the router
    /// reports it stuck (decision G10; default 3).
    pub(crate) stuck_threshold: u32,
    /// The agents of the orchestrator's `Agents` section, when it has one: the first is where
    /// a run starts. vouch reads only their names.
    pub(crate) agents: Vec<DeclaredAgent>,
    /// The states of a `statemachine` selection, the initial one first; empty for keyword
    /// selection. Their transitions are among `routes`.
    pub(crate) states: Vec<MachineState>,
    /// `Selection`: its type and what the types other than keyword and state machine need.
    pub(crate) selection: Selection,
    /// `Verifier`: an auditing agent that speaks every few turns, outside the routing.
    pub(crate) verifier: Option<Verifier>,
}

/// How the next agent is chosen (`Selection.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelectionKind {
    /// Routing keywords, each route with its gates (the default).
    #[default]
    Keyword,
    /// States, each spoken by one agent, and transitions between them on signals.
    StateMachine,
    /// Every agent once, in the order of `Agents`; the run ends after the last.
    Sequential,
    /// The agents in the order of `Agents`, round after round, until a termination.
    RoundRobin,
    /// Conditions on a field of the last agent's JSON reply (`StructuredRoutes`).
    Structured,
    /// A model names the next agent (`Selection.Model`, `Selection.Prompt`).
    Llm,
    /// A manager model plans, tracks progress and picks each next speaker (`Magentic`).
    Magentic,
}

impl SelectionKind {
    /// Returns the name a configuration writes (`statemachine`).
    pub fn name(self) -> &'static str {
        match self {
            SelectionKind::Keyword => "keyword",
            SelectionKind::StateMachine => "statemachine",
            SelectionKind::Sequential => "sequential",
            SelectionKind::RoundRobin => "roundrobin",
            SelectionKind::Structured => "structured",
            SelectionKind::Llm => "llm",
            SelectionKind::Magentic => "magentic",
        }
    }

    /// Returns true when a model, not the router, picks the next agent.
    pub fn is_model_driven(self) -> bool {
        matches!(self, SelectionKind::Llm | SelectionKind::Magentic)
    }
}

/// The `Selection` section beyond its routes and states.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Selection {
    /// `Type`.
    pub kind: SelectionKind,
    /// `DefaultAgent` of a `structured` selection: who speaks when no route's condition holds
    /// (and first, unless `Agents` says otherwise).
    pub default_agent: Option<String>,
    /// `StructuredRoutes`, in order: each a route with a `condition`.
    pub structured: Vec<Route>,
    /// `Prompt` of an `llm` selection (`{{$agents}}` and `{{$history}}` are filled in).
    pub prompt: Option<String>,
    /// `Magentic`, for a `magentic` selection.
    pub magentic: Option<Magentic>,
}

/// The settings of a `magentic` selection's manager.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Magentic {
    /// `Instructions`: the manager's own, beside vouch's ledger format.
    pub instructions: Option<String>,
    /// `MaxRoundCount`: rounds (agent turns) before the manager gives up (default 20).
    pub max_rounds: u32,
    /// `MaxStallCount`: rounds without progress before the manager replans (default 3).
    pub max_stalls: u32,
    /// `MaxResetCount`: replans before the run ends as stuck (default 2).
    pub max_resets: u32,
}

/// A condition of a structured route on the last reply's JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Condition {
    /// `Field`: a dot path into the reply's JSON object (`review.verdict`).
    pub field: String,
    /// What must hold of it.
    pub test: ConditionTest,
}

/// What a [`Condition`] asks of its field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConditionTest {
    /// `Is`: the field's text equals the value (case-insensitively).
    Is(String),
    /// `IsNot`: the field is absent or its text differs.
    IsNot(String),
    /// `Contains`: the field's text (or an item of its list) contains the value.
    Contains(String),
    /// `Exists`: the field is present and not null (`true`), or absent (`false`).
    Exists(bool),
}

/// The `Verifier` section: an evidence auditor that speaks outside the routing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verifier {
    /// `AgentName`: the auditing agent.
    pub agent: String,
    /// `EveryNTurns`: it speaks after every so many agent turns (default 5).
    pub every: u32,
    /// `TriggerOnSuspiciousTransition`: it also speaks right after a handoff that was blocked
    /// at least once before it passed.
    pub on_suspicious: bool,
    /// `FindingsKeyword`: a reply of the verifier holding it is a finding, sent to the agent
    /// whose turn is next as a correction.
    pub findings_keyword: String,
    /// Where it was written.
    pub location: Location,
}

/// A state of a `statemachine` selection.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MachineState {
    /// `Name`.
    pub name: String,
    /// `Agent`: who speaks in this state.
    pub agent: Option<String>,
    /// `Terminal`: entering the state ends the run.
    pub terminal: bool,
    /// Where it was written.
    pub location: Location,
    /// Its key path (`Selection.States[1]`).
    pub key_path: String,
}

/// The states a transition (a route of a state machine) leads between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateLink {
    /// The state it fires from.
    pub from: String,
    /// The state it leads to.
    pub to: String,
}

/// An agent the orchestrator's `Agents` section declares.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeclaredAgent {
    /// Its `Name`.
    pub name: String,
    /// Where it was declared.
    pub location: Location,
    /// Its key path (`Orchestration.Agents[0]`).
    pub key_path: String,
}

impl PipelineConfig {
    /// Returns the file it was loaded from.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Returns `Selection.Routes`, in order.
    pub fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// Returns `Termination`, when configured.
    pub fn termination(&self) -> Option<&Termination> {
        self.termination.as_ref()
    }

    /// Returns the `Validation` section, defaults applied.
    pub fn validation(&self) -> &Validation {
        &self.validation
    }

    /// Returns the configuration with strict evidence on (`--strict`), whatever
    /// `Validation.Strict` says.
    #[must_use]
    pub fn strict(mut self) -> PipelineConfig {
        self.validation.strict = Some(true);
        self
    }

    /// Returns the configuration with strict evidence `on` unless `Validation.Strict` says
    /// otherwise (how `vouch run` makes it its default).
    #[must_use]
    pub fn strict_unless_configured(mut self, on: bool) -> PipelineConfig {
        self.validation.strict.get_or_insert(on);
        self
    }

    /// Returns `TestSelector`.
    pub fn test_selector(&self) -> &TestSelector {
        &self.test_selector
    }

    /// Returns `Hooks`, the stop hook's gates (in `vouch.yaml`).
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// Returns `Contracts`, in the order declared.
    pub fn contracts(&self) -> &[Contract] {
        &self.contracts
    }

    /// Returns the contract a route or strategy names.
    pub fn contract(&self, named: &ContractRef) -> &Contract {
        // A ContractRef is made only by loading, which checks that its index exists; the
        // configuration's fields are private, so the list cannot shrink afterwards.
        &self.contracts[named.index]
    }

    /// Returns `Selection.StuckThreshold`: consecutive corrections of one agent after which the
    /// router reports it stuck (decision G10; default 3).
    pub fn stuck_threshold(&self) -> u32 {
        self.stuck_threshold
    }

    /// Returns the agents of the orchestrator's `Agents` section (the first is where a run
    /// starts).
    pub fn agents(&self) -> &[DeclaredAgent] {
        &self.agents
    }

    /// Returns the states of a `statemachine` selection, the initial one first (empty for
    /// keyword selection).
    pub fn states(&self) -> &[MachineState] {
        &self.states
    }

    /// Returns `Selection`: its type and settings.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// Returns `Verifier`, when configured.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.verifier.as_ref()
    }

    /// Returns the state named `name`.
    pub fn state(&self, name: &str) -> Option<&MachineState> {
        self.states
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// Returns the configuration of an empty file at `path`: no routes, every default.
    pub fn empty(path: &std::path::Path) -> PipelineConfig {
        PipelineConfig {
            path: path.to_owned(),
            routes: Vec::new(),
            termination: None,
            validation: Validation::default(),
            test_selector: TestSelector::default(),
            hooks: Hooks::default(),
            contracts: Vec::new(),
            stuck_threshold: 3,
            agents: Vec::new(),
            states: Vec::new(),
            selection: Selection::default(),
            verifier: None,
        }
    }
}

/// A named evidence contract: predicates that must all hold.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Contract {
    /// `Name`.
    pub name: String,
    /// `Requires`, in order.
    pub requires: Vec<PredicateRef>,
    /// Where it was declared.
    pub location: Location,
    /// Its key path (`Contracts[0]`).
    pub key_path: String,
}

/// A predicate named in a contract.
#[derive(Debug, Clone)]
pub struct PredicateRef {
    /// Which predicate, with its options.
    pub kind: PredicateKind,
    /// Where it was named.
    pub location: Location,
}

/// A contract named by a route or a termination strategy; [`PipelineConfig::contract`] returns
/// it. Only loading makes one, so its index always points at a declared contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractRef {
    /// The contract's index in [`PipelineConfig::contracts`].
    pub(crate) index: usize,
    /// Where it was named.
    pub location: Location,
}

/// A keyword route: when the source agent writes the keyword, the handoff goes to `agent`
/// if every validator passes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Route {
    /// The routing keyword.
    pub keyword: String,
    /// The agent the handoff goes to.
    pub agent: Option<String>,
    /// Validators, in order (`Validators` wins over `Validator`, decision G2).
    pub validators: Vec<ValidatorRef>,
    /// Agents allowed to use the route; any agent when empty.
    pub source_agents: Vec<String>,
    /// `RequiredCommandPattern`.
    pub required_command_pattern: Option<Alternatives>,
    /// `ShellFallbackPattern`.
    pub shell_fallback_pattern: Option<Alternatives>,
    /// `Contracts`: run after the validators.
    pub contracts: Vec<ContractRef>,
    /// `Requires`: predicates written on the route itself, run last.
    pub requires: Vec<PredicateRef>,
    /// Where the route was written.
    pub location: Location,
    /// Its key path (`Orchestration.Selection.Routes[2]`).
    pub key_path: String,
    /// For a transition of a state machine, the states it leads between.
    pub transition: Option<StateLink>,
    /// For a structured route, the condition on the last reply's JSON.
    pub condition: Option<Condition>,
    /// `RecoveryAgent` of a transition: who takes a turn after its gates blocked twice in a
    /// row, before the state's own agent tries again.
    pub recovery_agent: Option<String>,
    /// `HandoffContext` of a transition: files (relative to the working directory) whose
    /// text goes to the next agent with the handoff.
    pub handoff_context: Vec<String>,
}

/// The command patterns a route (or the stop hook) gives its validators.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommandPatterns<'a> {
    /// `RequiredCommandPattern`.
    pub required: Option<&'a Alternatives>,
    /// `ShellFallbackPattern`.
    pub shell_fallback: Option<&'a Alternatives>,
}

impl Route {
    /// Returns the route's command patterns.
    pub fn patterns(&self) -> CommandPatterns<'_> {
        CommandPatterns {
            required: self.required_command_pattern.as_ref(),
            shell_fallback: self.shell_fallback_pattern.as_ref(),
        }
    }

    /// Returns true when `agent` may use the route (always when no agent is given).
    pub fn allows(&self, agent: Option<&str>) -> bool {
        match agent {
            Some(agent) => {
                self.source_agents.is_empty()
                    || self
                        .source_agents
                        .iter()
                        .any(|a| a.eq_ignore_ascii_case(agent))
            }
            None => true,
        }
    }
}

/// A validator named in a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidatorRef {
    /// Which validator.
    pub kind: ValidatorKind,
    /// Where it was named.
    pub location: Location,
}

/// A termination strategy.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Termination {
    /// Its type.
    pub kind: TerminationKind,
    /// `MaxIterations`, for `maxiterations` (and as a cap on `composite`).
    pub max_iterations: Option<u32>,
    /// `Pattern`, for `regex`.
    pub pattern: Option<Regex>,
    /// `AgentNames`: the agents whose messages the strategy looks at; all when empty.
    pub agent_names: Vec<String>,
    /// Validators that hold the run open until they pass.
    pub validators: Vec<ValidatorRef>,
    /// Contracts that hold the run open until they hold.
    pub contracts: Vec<ContractRef>,
    /// `Requires`: predicates written on the strategy itself.
    pub requires: Vec<PredicateRef>,
    /// `Strategies`, for `composite`.
    pub strategies: Vec<Termination>,
    /// `MaxTokens`, for `tokenbudget`.
    pub max_tokens: Option<u64>,
    /// `Prompt`, for `llm` (`{{$history}}` is filled in); vouch's own when absent.
    pub prompt: Option<String>,
    /// Where it was written.
    pub location: Location,
    /// Its key path (`Termination.Strategies[1]`).
    pub key_path: String,
}

/// The type of a termination strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminationKind {
    /// Ends the run when any child strategy does.
    Composite,
    /// Ends the run when an agent's message matches a pattern.
    Regex,
    /// Ends the run after a number of iterations, whatever the validators say.
    MaxIterations,
    /// Ends the run when the agents together have used `MaxTokens` tokens.
    TokenBudget,
    /// Ends the run when a model, asked after each reply, says the task is done.
    Llm,
}

impl Termination {
    /// Returns this strategy and every strategy below it, depth first.
    pub fn all(&self) -> Vec<&Termination> {
        let mut out = vec![self];
        for s in &self.strategies {
            out.extend(s.all());
        }
        out
    }
}

/// The `Validation` section.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Validation {
    /// Artifact paths (decision G1 defaults when not given).
    pub paths: ArtifactPaths,
    /// `TestAssertionPatterns`: a test file is real when one matches.
    pub test_assertion_patterns: Vec<Regex>,
    /// `Strict`: strict evidence (command receipts read as bash reads them); `None` when the
    /// configuration does not say, which means off for gates and on for `vouch run`.
    pub strict: Option<bool>,
}

impl Validation {
    /// Returns true when the gates demand strict evidence.
    pub fn is_strict(&self) -> bool {
        self.strict.unwrap_or(false)
    }
}

/// The default `TestAssertionPatterns` of the validator spec.
pub(crate) const DEFAULT_ASSERTION_PATTERNS: [&str; 4] = [
    "tester::assert",
    "if .+ throw",
    r"\bassert\b",
    r"\bexpect\b",
];

impl Default for Validation {
    fn default() -> Validation {
        Validation {
            paths: ArtifactPaths::default(),
            test_assertion_patterns: DEFAULT_ASSERTION_PATTERNS
                .iter()
                .filter_map(|p| Regex::new(p).ok())
                .collect(),
            strict: None,
        }
    }
}

/// The `TestSelector` section.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TestSelector {
    /// `FindRelatedCommand`: run per changed file, with `{file}` replaced.
    pub find_related_command: Option<String>,
    /// `FullSuiteCommand`: runs the discovered targets, or everything.
    pub full_suite_command: Option<String>,
    /// `TimeoutSeconds`: each command's limit (default 600).
    pub timeout: Duration,
}

impl Default for TestSelector {
    fn default() -> TestSelector {
        TestSelector {
            find_related_command: None,
            full_suite_command: None,
            timeout: Duration::from_secs(600),
        }
    }
}

/// The `Hooks` section of `vouch.yaml`: gates of an agent product's stop hook.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Hooks {
    /// Validators run when the agent stops.
    pub stop: Vec<ValidatorRef>,
    /// Validators run when a subagent stops; the `stop` list when `None`.
    pub subagent_stop: Option<Vec<ValidatorRef>>,
    /// Consecutive blocks after which the agent is reported stuck instead (decision G10).
    pub stuck_threshold: u32,
    /// The word messages use for the stop (`Completion blocked: …`).
    pub keyword: String,
    /// Where the hook keeps its state, relative to the project.
    pub state_dir: PathBuf,
    /// `RequiredCommandPattern` for the hook's validators.
    pub required_command_pattern: Option<Alternatives>,
    /// `ShellFallbackPattern` for the hook's validators.
    pub shell_fallback_pattern: Option<Alternatives>,
}

impl Hooks {
    /// Returns the hook's command patterns.
    pub fn patterns(&self) -> CommandPatterns<'_> {
        CommandPatterns {
            required: self.required_command_pattern.as_ref(),
            shell_fallback: self.shell_fallback_pattern.as_ref(),
        }
    }
}

impl Default for Hooks {
    fn default() -> Hooks {
        Hooks {
            stop: Vec::new(),
            subagent_stop: None,
            stuck_threshold: 3,
            keyword: "Completion".to_owned(),
            state_dir: PathBuf::from(".vouch"),
            required_command_pattern: None,
            shell_fallback_pattern: None,
        }
    }
}
