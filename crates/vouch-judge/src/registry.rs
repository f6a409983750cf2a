//! The graders a project configures (`vouch.yaml` `graders:`, `default_grader:`, `cache:`)
//! and the [`Judge`] built from them: each grader's client, one limit of simultaneous requests
//! per provider, the built-in `claude` and `codex`, the cache. Reading the file is the caller's;
//! this module takes the sections as values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use vouch_llm::{
    AgentCli, Anthropic, BoxFuture, CliKind, DEFAULT_CONCURRENCY, HttpProvider, Limits,
    ModelClient, OpenAiCompatible, Reply, Request, RetryPolicy, Scripted, Structured, Transport,
};

use crate::error::Error;
use crate::review::Judge;

/// What kind of grader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraderKind {
    /// An OpenAI-compatible chat-completions server.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
    /// `claude -p`.
    Claude,
    /// `codex exec`.
    Codex,
    /// Replies from a file.
    Scripted,
}

impl GraderKind {
    /// Every kind's name, as `kind:` spells it.
    pub const NAMES: &'static [&'static str] =
        &["openai", "anthropic", "claude", "codex", "scripted"];

    /// Returns the kind `kind:` names.
    pub fn from_name(name: &str) -> Option<GraderKind> {
        match name {
            "openai" => Some(GraderKind::OpenAi),
            "anthropic" => Some(GraderKind::Anthropic),
            "claude" => Some(GraderKind::Claude),
            "codex" => Some(GraderKind::Codex),
            "scripted" => Some(GraderKind::Scripted),
            _ => None,
        }
    }
}

/// One entry of `graders:`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GraderConfig {
    /// Its name (the key), which a review's `agent:` names.
    pub name: String,
    /// `kind`.
    pub kind: GraderKind,
    /// `model`.
    pub model: Option<String>,
    /// `base_url` (HTTP kinds).
    pub base_url: Option<String>,
    /// `api_key_env`: the environment variable holding the key (HTTP kinds; default
    /// `OPENAI_API_KEY` or `ANTHROPIC_API_KEY`).
    pub api_key_env: Option<String>,
    /// `timeout` of one attempt.
    pub timeout: Option<Duration>,
    /// `retries` of a transient failure.
    pub retries: Option<u32>,
    /// `concurrency`: requests at once to this provider.
    pub concurrency: Option<usize>,
    /// `structured_output` (openai): `auto`, `json_schema`, `json_object` or `off`.
    pub structured: Structured,
    /// `file` (scripted), absolute.
    pub file: Option<PathBuf>,
    /// `program` (claude, codex): the executable, instead of the one on `PATH`.
    pub program: Option<PathBuf>,
}

impl GraderConfig {
    /// A grader of `kind` named `name`, with every option at its default.
    pub fn new(name: &str, kind: GraderKind) -> GraderConfig {
        GraderConfig {
            name: name.to_owned(),
            kind,
            model: None,
            base_url: None,
            api_key_env: None,
            timeout: None,
            retries: None,
            concurrency: None,
            structured: Structured::Auto,
            file: None,
            program: None,
        }
    }
}

/// The grading sections.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GradingConfig {
    /// `graders:`, in the file's order.
    pub graders: Vec<GraderConfig>,
    /// `default_grader:`.
    pub default_grader: Option<String>,
    /// `cache.path`, absolute (default `.vouch/cache.db` beside `vouch.yaml`).
    pub cache_path: PathBuf,
    /// `cache.enabled` (default true).
    pub cache_enabled: bool,
}

impl GradingConfig {
    /// The grading of a project in `dir` that configures none: the built-in graders, the cache
    /// at `.vouch/cache.db` there.
    pub fn defaults(dir: &Path) -> GradingConfig {
        GradingConfig {
            graders: Vec::new(),
            default_grader: None,
            cache_path: dir.join(".vouch").join("cache.db"),
            cache_enabled: true,
        }
    }
}

/// Graders that exist without configuration: the agent CLIs.
pub const BUILT_IN: &[&str] = &["claude", "codex"];

/// Returns why `name` cannot grade for `judge` — no grader has that name — or `None` when one
/// does.
pub fn unknown_grader(judge: &Judge, name: &str) -> Option<String> {
    if judge.grader_names().any(|n| n == name) {
        return None;
    }
    let names: Vec<&str> = judge.grader_names().collect();
    Some(format!(
        "no grader named `{name}` (graders: {}; vouch.yaml `graders:` adds more)",
        names.join(", ")
    ))
}

/// A grader that cannot be used, and says why when asked (a key that is not set).
#[derive(Debug)]
struct Unusable {
    why: String,
}

impl ModelClient for Unusable {
    fn kind(&self) -> &'static str {
        "unusable"
    }

    fn default_model(&self) -> Option<&str> {
        None
    }

    fn complete<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Reply, vouch_llm::Error>> {
        Box::pin(async move { Err(vouch_llm::Error::Config(self.why.clone())) })
    }
}

/// Builds the judge of `config`: its graders (plus `claude` and `codex`, which need no
/// configuration), its default grader, and — unless `no_cache` — its cache, opened when a
/// grading first needs it.
///
/// Graders that reach the same provider (one base URL, or one CLI) share one limit of
/// simultaneous requests: the smallest `concurrency` any of them sets, else
/// [`DEFAULT_CONCURRENCY`].
pub fn build(config: &GradingConfig, no_cache: bool) -> Result<Judge, Error> {
    let built_in = BUILT_IN.iter().map(|name| {
        let kind = if *name == "codex" {
            GraderKind::Codex
        } else {
            GraderKind::Claude
        };
        GraderConfig::new(name, kind)
    });
    let all: Vec<GraderConfig> = built_in
        .filter(|b| config.graders.iter().all(|g| g.name != b.name))
        .chain(config.graders.iter().cloned())
        .collect();
    let mut permits: BTreeMap<String, usize> = BTreeMap::new();
    for g in &all {
        let p = permits.entry(provider(g)).or_insert(DEFAULT_CONCURRENCY);
        if let Some(c) = g.concurrency {
            *p = (*p).min(c);
        }
    }
    let limits = Limits::default();
    let mut graders: BTreeMap<String, Arc<dyn ModelClient>> = BTreeMap::new();
    for g in &all {
        let key = provider(g);
        let limit = limits.of(
            &key,
            permits.get(&key).copied().unwrap_or(DEFAULT_CONCURRENCY),
        );
        graders.insert(g.name.clone(), client(g, limit)?);
    }
    let default =
        config
            .default_grader
            .clone()
            .unwrap_or_else(|| match config.graders.as_slice() {
                [only] => only.name.clone(),
                _ => "claude".to_owned(),
            });
    let mut judge = Judge::new(graders, default);
    if config.cache_enabled && !no_cache {
        judge = judge.with_cache_at(config.cache_path.clone());
    }
    Ok(judge)
}

/// The provider a grader reaches, which its limit of simultaneous requests is shared with.
fn provider(g: &GraderConfig) -> String {
    match g.kind {
        GraderKind::OpenAi => format!("openai {}", base_url(g)),
        GraderKind::Anthropic => format!("anthropic {}", base_url(g)),
        GraderKind::Claude => CliKind::Claude.program().to_owned(),
        GraderKind::Codex => CliKind::Codex.program().to_owned(),
        GraderKind::Scripted => format!("scripted {}", g.name),
    }
}

/// The HTTP provider a grader reaches (the OpenAI format for every kind but Anthropic's).
fn http_provider(g: &GraderConfig) -> HttpProvider {
    if g.kind == GraderKind::Anthropic {
        HttpProvider::Anthropic
    } else {
        HttpProvider::OpenAi
    }
}

/// The base URL of an HTTP grader: its own, or its provider's.
fn base_url(g: &GraderConfig) -> String {
    g.base_url
        .clone()
        .unwrap_or_else(|| http_provider(g).default_base().to_owned())
}

/// Builds the client of one grader, its requests bounded by `limit`.
fn client(g: &GraderConfig, limit: Arc<Semaphore>) -> Result<Arc<dyn ModelClient>, Error> {
    let retry = RetryPolicy {
        max_retries: g.retries.unwrap_or(3),
        ..RetryPolicy::default()
    };
    let label = format!("grader `{}`", g.name);
    Ok(match g.kind {
        GraderKind::OpenAi | GraderKind::Anthropic => {
            let openai = g.kind == GraderKind::OpenAi;
            let base = base_url(g);
            // A grader without its key says why when it is used, not before.
            let key = match http_provider(g).key(&base, g.api_key_env.as_deref()) {
                Ok(key) => key,
                Err(why) => {
                    return Ok(Arc::new(Unusable {
                        why: format!("{label}: {why}"),
                    }));
                }
            };
            let transport = Transport::new(
                label,
                g.timeout.unwrap_or(Duration::from_secs(120)),
                retry,
                limit,
            )
            .map_err(|e| Error::Grader(e.to_string()))?;
            if openai {
                Arc::new(OpenAiCompatible::new(
                    &base,
                    key,
                    g.model.clone(),
                    g.structured,
                    transport,
                ))
            } else {
                Arc::new(Anthropic::new(&base, key, g.model.clone(), transport))
            }
        }
        GraderKind::Claude | GraderKind::Codex => {
            let kind = if g.kind == GraderKind::Claude {
                CliKind::Claude
            } else {
                CliKind::Codex
            };
            Arc::new(AgentCli::new(
                kind,
                g.program.clone(),
                g.model.clone(),
                g.timeout.unwrap_or(Duration::from_secs(300)),
                limit,
            ))
        }
        GraderKind::Scripted => {
            let file = g.file.clone().ok_or_else(|| {
                Error::Grader(format!("{label}: a scripted grader needs a `file`"))
            })?;
            Arc::new(Scripted::load(&file).map_err(|e| Error::Grader(format!("{label}: {e}")))?)
        }
    })
}

/// A judge with a runtime of its own, for synchronous callers: the test suite's threads, and
/// `vouch judge calibrate`.
#[derive(Debug)]
pub struct BlockingJudge {
    runtime: tokio::runtime::Runtime,
    judge: Arc<Judge>,
}

impl BlockingJudge {
    /// Returns `judge` with a runtime of its own.
    pub fn new(judge: Judge) -> std::io::Result<BlockingJudge> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("vouch-grade")
            .enable_all()
            .build()?;
        Ok(BlockingJudge {
            runtime,
            judge: Arc::new(judge),
        })
    }

    /// Returns the judge.
    pub fn judge(&self) -> &Judge {
        &self.judge
    }

    /// Runs `future` on the judge's runtime, blocking this thread until it is done.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}
