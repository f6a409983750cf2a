//! Test files: `*.vouch.yaml` (and the peer's `*.aptitude.yaml`), read with every problem at
//! its line and column — unknown keys, invalid patterns and contradictions are load errors.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_saphyr::Spanned;
use vouch_gate::assertions::{CALL_KEYS, CallAssertion, SequenceAssertion};
use vouch_gate::yaml::{Location, Map, Node, Reader, parse_yaml};
use vouch_gate::{ConfigError, ConfigErrors, PredicateRef};

/// The agent a test runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentKind {
    /// Anthropic's Claude Code (`claude`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`codex`).
    Codex,
    /// Google's Gemini CLI (`gemini`).
    Gemini,
    /// Another agent, by name; vouch cannot run it, only read its recorded sessions.
    Other(String),
}

impl AgentKind {
    /// Reads an agent's name: `claude`, `claude-code`, `codex`, `gemini`, or another.
    pub fn from_name(name: &str) -> AgentKind {
        match name.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claude_code" | "claudecode" => AgentKind::ClaudeCode,
            "codex" | "codex-cli" => AgentKind::Codex,
            "gemini" | "gemini-cli" => AgentKind::Gemini,
            other => AgentKind::Other(other.to_owned()),
        }
    }

    /// Returns the name vouch uses.
    pub fn as_str(&self) -> &str {
        match self {
            AgentKind::ClaudeCode => "claude-code",
            AgentKind::Codex => "codex",
            AgentKind::Gemini => "gemini",
            AgentKind::Other(name) => name,
        }
    }
}

/// What is copied into a run's fresh directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setup {
    /// A folder (relative to the test file), copied whole.
    Folder(PathBuf),
    /// Files written from the test: path (relative to the run's directory) and content.
    Files(Vec<(PathBuf, String)>),
}

/// `stdout:`: the agent's final answer graded by an LLM (the review of `llm-review.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdoutReview {
    /// `review`: the criteria, in words.
    pub review: String,
    /// `threshold`: the lowest passing score, 1–10 (default 7).
    pub threshold: u8,
    /// `model`: the grader's model.
    pub model: Option<String>,
    /// `agent`: the grader, by name.
    pub agent: Option<String>,
    /// `samples`: how many times to grade (default 1).
    pub samples: u32,
}

/// One entry of `assertions`.
#[derive(Debug, Clone)]
pub enum AssertionKind {
    /// `tool:`.
    Call(Box<CallAssertion>),
    /// `sequence:`.
    Sequence(Box<SequenceAssertion>),
    /// `gate:`: a validator or contract predicate.
    Gate(Box<PredicateRef>),
    /// `stdout:`: an LLM review.
    Stdout(StdoutReview),
}

/// An assertion and where it was written.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Assertion {
    /// What it checks.
    pub kind: AssertionKind,
    /// `description`: the row's text, when the test gives one.
    pub description: Option<String>,
    /// Where it was written.
    pub location: Location,
}

/// A loaded test.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TestFile {
    /// The file.
    pub path: PathBuf,
    /// `name`.
    pub name: String,
    /// `prompt`: sent to the agent on standard input.
    pub prompt: Option<String>,
    /// `agent` (default Claude Code).
    pub agent: AgentKind,
    /// `session`: a recorded log to evaluate instead of running the agent (absolute).
    pub session: Option<PathBuf>,
    /// `workdir`: a folder copied into each run's fresh directory (absolute); for a recorded
    /// session, where its artifacts are.
    pub workdir: Option<PathBuf>,
    /// `setup`: copied into each run's fresh directory, after `workdir`.
    pub setup: Vec<Setup>,
    /// `timeout` (default 10 minutes).
    pub timeout: Duration,
    /// `model`.
    pub model: Option<String>,
    /// `permission_mode` (Claude Code's `--permission-mode`).
    pub permission_mode: Option<String>,
    /// `allowed_tools` (Claude Code's `--allowedTools`).
    pub allowed_tools: Vec<String>,
    /// `repeat` (default 1).
    pub repeat: u32,
    /// `pass_rate`: the share of runs that must pass (default 1.0).
    pub pass_rate: f64,
    /// `assertions`.
    pub assertions: Vec<Assertion>,
    /// Patterns that are allowed but probably not meant.
    pub warnings: Vec<ConfigError>,
}

/// The keys of a test file.
const TEST_KEYS: &[&str] = &[
    "name",
    "prompt",
    "agent",
    "session",
    "workdir",
    "setup",
    "timeout",
    "model",
    "permission_mode",
    "allowed_tools",
    "repeat",
    "pass_rate",
    "assertions",
    "description",
];

/// Loads the test file at `path`.
pub fn load(path: &Path) -> Result<TestFile, ConfigErrors> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigErrors::whole(path, format!("failed to read the file: {e}")))?;
    parse(path, &text)
}

/// Parses a test file's text; `path` names it and anchors its relative paths.
pub fn parse(path: &Path, text: &str) -> Result<TestFile, ConfigErrors> {
    let mut r = Reader::default();
    let test = match parse_yaml(text) {
        Ok(root) => read(&mut r, path, &root),
        Err(e) => {
            r.errors.push(e);
            None
        }
    };
    match test {
        Some(mut test) if r.errors.is_empty() => {
            test.warnings = r.warnings;
            Ok(test)
        }
        _ => {
            r.errors
                .sort_by_key(|e| (e.location.line, e.location.column));
            Err(ConfigErrors::new(path, text, r.errors))
        }
    }
}

fn read(r: &mut Reader, path: &Path, root: &Spanned<Node>) -> Option<TestFile> {
    let base = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let resolve = |p: &str| base.join(p);
    let mut m = r.map(root, "")?;
    let name = text_key(r, &mut m, "name");
    if name.is_none() {
        r.error(m.location, "name", "a test needs a `name`", None);
    }
    let prompt = text_key(r, &mut m, "prompt");
    let _ = m.get("description");
    let agent =
        text_key(r, &mut m, "agent").map_or(AgentKind::ClaudeCode, |a| AgentKind::from_name(&a));
    let session = text_key(r, &mut m, "session").map(|s| resolve(&s));
    if prompt.is_none() && session.is_none() {
        r.error(
            m.location,
            "prompt",
            "a test needs a `prompt` (or a recorded `session` to evaluate)",
            None,
        );
    }
    let workdir = text_key(r, &mut m, "workdir").map(|s| resolve(&s));
    let setup = m
        .get("setup")
        .map(|(n, p)| read_setup(r, n, &p, &resolve))
        .unwrap_or_default();
    let timeout = m
        .get("timeout")
        .and_then(|(n, p)| duration(r, n, &p))
        .unwrap_or(Duration::from_secs(600));
    let model = text_key(r, &mut m, "model");
    let permission_mode = text_key(r, &mut m, "permission_mode");
    let allowed_tools = m
        .get("allowed_tools")
        .map(|(n, p)| r.strings(n, &p).into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();
    let repeat = m
        .get("repeat")
        .map_or(1, |(node, at)| read_repeat(r, node, &at));
    let pass_rate = m
        .get("pass_rate")
        .map_or(1.0, |(node, at)| read_pass_rate(r, node, &at));
    let assertions = match m.get("assertions") {
        Some((n, p)) => read_assertions(r, n, &p),
        None => {
            r.error(m.location, "assertions", "a test needs `assertions`", None);
            Vec::new()
        }
    };
    r.unknown_keys(&m, TEST_KEYS);
    Some(TestFile {
        path: path.to_owned(),
        name: name?,
        prompt,
        agent,
        session,
        workdir,
        setup,
        timeout,
        model,
        permission_mode,
        allowed_tools,
        repeat,
        pass_rate,
        assertions,
        warnings: Vec::new(),
    })
}

/// Reads `repeat`: a whole number, at least 1.
fn read_repeat(r: &mut Reader, node: &Spanned<Node>, at: &str) -> u32 {
    match r.number(node, at) {
        Some(0) => {
            r.error(Location::of(node), at, "`repeat` must be at least 1", None);
            1
        }
        Some(runs) => runs,
        None => 1,
    }
}

/// Reads `pass_rate`: a share from 0 to 1.
fn read_pass_rate(r: &mut Reader, node: &Spanned<Node>, at: &str) -> f64 {
    match &node.value {
        Node::Float(share) if (0.0..=1.0).contains(share) => *share,
        Node::Int(share) if (0..=1).contains(share) => f64::from(u8::try_from(*share).unwrap_or(1)),
        other => {
            r.error(
                Location::of(node),
                at,
                format!(
                    "`pass_rate` is a share from 0 to 1, found {}",
                    other.described()
                ),
                Some("`pass_rate: 0.6` passes when 3 of 5 runs pass".into()),
            );
            1.0
        }
    }
}

/// Reads a review's `threshold`: a whole number from 1 to 10.
fn read_threshold(r: &mut Reader, node: &Spanned<Node>, at: &str) -> u8 {
    match &node.value {
        Node::Int(score) if (1..=10).contains(score) => u8::try_from(*score).unwrap_or(7),
        other => {
            r.error(
                Location::of(node),
                at,
                format!(
                    "`threshold` is a whole number from 1 to 10, found {}",
                    other.described()
                ),
                Some("a score of at least the threshold passes".into()),
            );
            7
        }
    }
}

fn text_key(r: &mut Reader, m: &mut Map<'_>, key: &str) -> Option<String> {
    m.get(key).and_then(|(n, p)| r.string(n, &p))
}

/// Reads `setup`: a folder, a list of folders, or a mapping of file paths to contents.
fn read_setup(
    r: &mut Reader,
    node: &Spanned<Node>,
    path: &str,
    resolve: &dyn Fn(&str) -> PathBuf,
) -> Vec<Setup> {
    match &node.value {
        Node::Map(entries) => {
            let files = entries
                .iter()
                .filter_map(|(k, v)| {
                    let content = r.string(v, &format!("{path}.{}", k.value))?;
                    Some((PathBuf::from(&k.value), content))
                })
                .collect();
            vec![Setup::Files(files)]
        }
        _ => r
            .strings(node, path)
            .into_iter()
            .map(|(s, _)| Setup::Folder(resolve(&s)))
            .collect(),
    }
}

/// Reads a duration: seconds, or text like `90s`, `5m`, `1h`.
pub(crate) fn duration(r: &mut Reader, node: &Spanned<Node>, path: &str) -> Option<Duration> {
    let text = node.value.scalar().unwrap_or_default();
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let scale = match unit.trim() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => 0,
    };
    match digits.parse::<u64>() {
        Ok(n) if n > 0 && scale > 0 => Some(Duration::from_secs(n * scale)),
        _ => {
            r.error(
                Location::of(node),
                path,
                format!("`{text}` is not a duration"),
                Some("seconds, or `90s`, `5m`, `1h`".into()),
            );
            None
        }
    }
}

fn read_assertions(r: &mut Reader, node: &Spanned<Node>, path: &str) -> Vec<Assertion> {
    let Node::Seq(items) = &node.value else {
        r.error(Location::of(node), path, "`assertions` is a list", None);
        return Vec::new();
    };
    if items.is_empty() {
        r.error(
            Location::of(node),
            path,
            "a test needs at least one assertion",
            None,
        );
    }
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| read_assertion(r, item, &format!("{path}[{i}]")))
        .collect()
}

fn read_assertion(r: &mut Reader, node: &Spanned<Node>, path: &str) -> Option<Assertion> {
    let location = Location::of(node);
    let mut m = r.map(node, path)?;
    let description = text_key(r, &mut m, "description");
    let has = |key: &str| m.entries_keys().any(|k| k.eq_ignore_ascii_case(key));
    let kind = if has("tool") {
        let a = r.call_assertion(&mut m, path);
        let mut known: Vec<&str> = CALL_KEYS.to_vec();
        known.push("description");
        r.unknown_keys(&m, &known);
        AssertionKind::Call(Box::new(a?))
    } else if has("sequence") {
        let scope = r.scope(&mut m);
        let steps = m.get("sequence");
        let a = steps.and_then(|(n, p)| r.sequence_assertion(n, &p, scope));
        r.unknown_keys(&m, &["sequence", "agent", "subagent", "description"]);
        AssertionKind::Sequence(Box::new(a?))
    } else if has("gate") {
        let gate = m.get("gate").and_then(|(n, p)| r.predicate(n, &p));
        r.unknown_keys(&m, &["gate", "description"]);
        AssertionKind::Gate(Box::new(gate?))
    } else if has("stdout") {
        let review = m.get("stdout").and_then(|(n, p)| read_stdout(r, n, &p));
        r.unknown_keys(&m, &["stdout", "description"]);
        AssertionKind::Stdout(review?)
    } else {
        r.error(
            location,
            path,
            "an assertion is one of `tool`, `sequence`, `gate` or `stdout`",
            None,
        );
        return None;
    };
    Some(Assertion {
        kind,
        description,
        location,
    })
}

fn read_stdout(r: &mut Reader, node: &Spanned<Node>, path: &str) -> Option<StdoutReview> {
    let mut m = r.map(node, path)?;
    for removed in [
        "exists",
        "contains",
        "not_contains",
        "matches",
        "not_matches",
    ] {
        if let Some((n, p)) = m.get(removed) {
            r.error(
                Location::of(n),
                &p,
                format!("`stdout.{removed}` was removed: stdout assertions are LLM reviews"),
                Some(
                    "write `review: \"<criteria in words>\"` (and `threshold:` from 1 to 10)"
                        .into(),
                ),
            );
        }
    }
    let review = text_key(r, &mut m, "review").filter(|s| !s.trim().is_empty());
    if review.is_none() {
        r.error(
            m.location,
            path,
            "a stdout assertion needs `review`: the criteria, in words",
            None,
        );
    }
    let threshold = m
        .get("threshold")
        .map_or(7, |(node, at)| read_threshold(r, node, &at));
    let model = text_key(r, &mut m, "model");
    let agent = text_key(r, &mut m, "agent");
    let samples = match m.get("samples") {
        Some((n, p)) => match r.number(n, &p) {
            Some(0) => {
                r.error(
                    Location::of(n),
                    &p,
                    "`samples` is how many times to grade: at least 1",
                    None,
                );
                1
            }
            other => other.unwrap_or(1),
        },
        None => 1,
    };
    r.unknown_keys(
        &m,
        &[
            "review",
            "threshold",
            "model",
            "agent",
            "samples",
            "exists",
            "contains",
            "not_contains",
            "matches",
            "not_matches",
        ],
    );
    Some(StdoutReview {
        review: review?,
        threshold,
        model,
        agent,
        samples,
    })
}
