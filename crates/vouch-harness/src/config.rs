//! The project's `vouch.yaml`, as agent tests read it: `tests:` (which files are tests),
//! `graders:` and `default_grader:` (who grades `stdout:` reviews), `cache:` (where gradings are
//! kept). Other sections belong to the gates and are left alone.
//!
//! ```yaml
//! tests:
//!   patterns: ["*.vouch.yaml"]
//! graders:
//!   sonnet: {kind: anthropic, model: claude-sonnet-4-5}      # key from ANTHROPIC_API_KEY
//!   local: {kind: openai, base_url: "http://localhost:11434/v1", model: llama3.1}
//! default_grader: sonnet
//! cache: {path: .vouch/cache.db}
//! ```

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;
use vouch_gate::ConfigErrors;
use vouch_gate::yaml::{Location, Map, Node, Reader, parse_yaml};
use vouch_judge::registry::BUILT_IN;
use vouch_judge::{GraderConfig, GraderKind, GradingConfig};
use vouch_llm::Structured;

use crate::spec::duration;

/// The name of the configuration file.
pub const CONFIG_FILE: &str = "vouch.yaml";

/// The `tests:` section of `vouch.yaml`: which files are tests.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TestConfig {
    /// `patterns`: file-name globs of test files.
    pub patterns: Vec<String>,
    /// `exclude`: folder or file names never searched.
    pub exclude: Vec<String>,
    /// `paths`: where `vouch test` looks when it is given no path (relative to the file's
    /// folder, resolved); empty: the current folder.
    pub paths: Vec<PathBuf>,
}

impl Default for TestConfig {
    fn default() -> TestConfig {
        TestConfig {
            patterns: vec![
                "*.vouch.yaml".into(),
                "*.vouch.yml".into(),
                "*.aptitude.yaml".into(),
                "*.aptitude.yml".into(),
            ],
            exclude: vec![
                "target".into(),
                "node_modules".into(),
                ".git".into(),
                ".vouch".into(),
            ],
            paths: Vec::new(),
        }
    }
}

/// File names that are configurations, never tests (vouch's, and the peer's).
pub(crate) const CONFIG_NAMES: &[&str] = &[
    "vouch.yaml",
    "vouch.yml",
    ".aptitude.yaml",
    ".aptitude.yml",
    "default.aptitude.yaml",
];

/// A project's configuration.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProjectConfig {
    /// The file read, when there is one.
    pub path: Option<PathBuf>,
    /// Its folder (the current folder without a file): relative paths start here.
    pub dir: PathBuf,
    /// `tests:`.
    pub tests: TestConfig,
    /// `graders:`, `default_grader:`, `cache:`.
    pub grading: GradingConfig,
}

impl ProjectConfig {
    /// The configuration of a project without `vouch.yaml`, in `dir`.
    pub fn defaults(dir: &Path) -> ProjectConfig {
        ProjectConfig {
            path: None,
            dir: dir.to_owned(),
            tests: TestConfig::default(),
            grading: GradingConfig::defaults(dir),
        }
    }
}

/// The names the project file may have, preferred first.
pub const CONFIG_FILES: [&str; 2] = [CONFIG_FILE, "vouch.yml"];

/// Returns the project file in `dir` itself (`vouch.yaml`, else `vouch.yml`).
fn in_dir(dir: &Path) -> Option<PathBuf> {
    CONFIG_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Returns the project file in `dir` or the nearest folder above it: how every command finds
/// `vouch.yaml` (or `vouch.yml`) when it is not named.
pub fn find_above(dir: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    dir.ancestors().find_map(in_dir)
}

/// Finds the configuration: `explicit` when given; else the nearest project file in the
/// folder of the first of `paths` or above it (the current folder's, for a path beneath it
/// with none nearer); else the one in the current folder.
pub fn find(explicit: Option<&Path>, paths: &[PathBuf]) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_owned());
    }
    let nearest = paths.first().and_then(|first| {
        let start = if first.is_dir() {
            first.clone()
        } else {
            match first.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }
        };
        find_above(&start)
    });
    nearest.or_else(|| {
        CONFIG_FILES
            .iter()
            .map(PathBuf::from)
            .find(|candidate| candidate.is_file())
    })
}

/// Reads the configuration at `path` (the defaults, in the current folder, for `None`).
pub fn load(path: Option<&Path>) -> Result<ProjectConfig, ConfigErrors> {
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let Some(path) = path else {
        return Ok(ProjectConfig::defaults(&here));
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigErrors::whole(path, format!("failed to read the file: {e}")))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => here,
    };
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut config = ProjectConfig::defaults(&dir);
    config.path = Some(path.to_owned());
    let mut r = Reader::default();
    match parse_yaml(&text) {
        Ok(root) => {
            if let Some(mut top) = r.map(&root, "") {
                read(&mut r, &mut top, &mut config);
            }
        }
        Err(e) => r.errors.push(e),
    }
    if r.errors.is_empty() {
        Ok(config)
    } else {
        r.errors
            .sort_by_key(|e| (e.location.line, e.location.column));
        Err(ConfigErrors::new(path, &text, r.errors))
    }
}

fn read(r: &mut Reader, top: &mut Map<'_>, config: &mut ProjectConfig) {
    if let Some((node, p)) = top.get("tests")
        && let Some(mut m) = r.map(node, &p)
    {
        if let Some((n, p)) = m.get("patterns") {
            config.tests.patterns = r.strings(n, &p).into_iter().map(|(s, _)| s).collect();
        }
        if let Some((n, p)) = m.get("exclude") {
            config.tests.exclude = r.strings(n, &p).into_iter().map(|(s, _)| s).collect();
        }
        if let Some((n, p)) = m.get("paths") {
            let dir = config.dir.clone();
            config.tests.paths = r
                .strings(n, &p)
                .into_iter()
                .map(|(s, _)| dir.join(s))
                .collect();
        }
        r.unknown_keys(&m, &["patterns", "exclude", "paths"]);
    }
    if let Some((node, p)) = top.get("graders")
        && let Some(m) = r.map(node, &p)
    {
        for (key, value) in m.entries() {
            let at = format!("graders.{}", key.value);
            if let Some(g) = read_grader(r, &key.value, value, &at, &config.dir) {
                config.grading.graders.push(g);
            }
        }
    }
    if let Some((node, p)) = top.get("default_grader")
        && let Some(name) = r.string(node, &p)
    {
        let known = config.grading.graders.iter().any(|g| g.name == name)
            || BUILT_IN.contains(&name.as_str());
        if !known {
            let names: Vec<&str> = config
                .grading
                .graders
                .iter()
                .map(|g| g.name.as_str())
                .chain(BUILT_IN.iter().copied())
                .collect();
            r.error(
                Location::of(node),
                &p,
                format!("no grader named `{name}`"),
                Some(format!("graders: {}", names.join(", "))),
            );
        }
        config.grading.default_grader = Some(name);
    }
    if let Some((node, p)) = top.get("cache")
        && let Some(mut m) = r.map(node, &p)
    {
        if let Some((n, p)) = m.get("path")
            && let Some(path) = r.string(n, &p)
        {
            config.grading.cache_path = config.dir.join(path);
        }
        if let Some((n, p)) = m.get("enabled")
            && let Some(on) = r.boolean(n, &p)
        {
            config.grading.cache_enabled = on;
        }
        r.unknown_keys(&m, &["path", "enabled"]);
    }
}

const GRADER_KEYS: &[&str] = &[
    "kind",
    "model",
    "base_url",
    "api_key_env",
    "timeout",
    "retries",
    "concurrency",
    "structured_output",
    "file",
    "program",
];

fn read_grader(
    r: &mut Reader,
    name: &str,
    node: &Spanned<Node>,
    at: &str,
    dir: &Path,
) -> Option<GraderConfig> {
    let mut m = r.map(node, at)?;
    let kind = match m.get("kind") {
        Some((n, p)) => {
            let text = r.string(n, &p)?;
            let Some(kind) = GraderKind::from_name(&text) else {
                r.error(
                    Location::of(n),
                    &p,
                    format!("unknown grader kind `{text}`"),
                    Some(format!("kinds: {}", GraderKind::NAMES.join(", "))),
                );
                return None;
            };
            kind
        }
        // A grader named after a kind is of that kind.
        None => match GraderKind::from_name(name) {
            Some(kind) => kind,
            None => {
                r.error(
                    m.location,
                    at,
                    "a grader needs a `kind`",
                    Some(format!("kinds: {}", GraderKind::NAMES.join(", "))),
                );
                return None;
            }
        },
    };
    let mut g = GraderConfig::new(name, kind);
    let text =
        |r: &mut Reader, m: &mut Map<'_>, key: &str| m.get(key).and_then(|(n, p)| r.string(n, &p));
    g.model = text(r, &mut m, "model");
    g.base_url = text(r, &mut m, "base_url");
    g.api_key_env = text(r, &mut m, "api_key_env");
    g.file = text(r, &mut m, "file").map(|f| dir.join(f));
    g.program = text(r, &mut m, "program").map(|f| dir.join(f));
    g.timeout = m.get("timeout").and_then(|(n, p)| duration(r, n, &p));
    g.retries = m.get("retries").and_then(|(n, p)| r.number(n, &p));
    g.concurrency = m
        .get("concurrency")
        .and_then(|(n, p)| r.number(n, &p).filter(|c| *c >= 1))
        .and_then(|c| usize::try_from(c).ok());
    if let Some((n, p)) = m.get("structured_output")
        && let Some(s) = r.string(n, &p)
    {
        g.structured = match s.as_str() {
            "auto" => Structured::Auto,
            "json_schema" => Structured::JsonSchema,
            "json_object" => Structured::JsonObject,
            "off" => Structured::Off,
            other => {
                r.error(
                    Location::of(n),
                    &p,
                    format!("unknown `structured_output` `{other}`"),
                    Some("auto, json_schema, json_object or off".into()),
                );
                Structured::Auto
            }
        };
    }
    let mismatch = |key: &str, ok: bool, r: &mut Reader| {
        if !ok {
            r.error(
                m.location,
                at,
                format!("`{key}` does not apply to a grader of this kind"),
                None,
            );
        }
    };
    let http = matches!(kind, GraderKind::OpenAi | GraderKind::Anthropic);
    if g.base_url.is_some() || g.api_key_env.is_some() {
        mismatch("base_url` or `api_key_env", http, r);
    }
    if g.file.is_some() {
        mismatch("file", kind == GraderKind::Scripted, r);
    }
    if kind == GraderKind::Scripted && g.file.is_none() {
        r.error(
            m.location,
            at,
            "a scripted grader needs a `file` of replies",
            None,
        );
    }
    if g.program.is_some() {
        mismatch(
            "program",
            matches!(kind, GraderKind::Claude | GraderKind::Codex),
            r,
        );
    }
    r.unknown_keys(&m, GRADER_KEYS);
    Some(g)
}
