//! Grading `stdout:` reviews with the graders of `vouch.yaml`: a [`Judge`] built from the
//! configuration, run on a runtime of its own so that the synchronous suite can use it from
//! any of its threads, every review of a test graded at once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use tokio::sync::Semaphore;
use vouch_judge::{Graded, Judge, Outcome, ReviewSpec};
use vouch_llm::{
    AgentCli, Anthropic, BoxFuture, CliKind, DEFAULT_CONCURRENCY, Error, Limits, ModelClient,
    OpenAiCompatible, Reply, Request, RetryPolicy, Scripted, Transport,
};

use crate::config::{BUILT_IN, GraderConfig, GraderKind, GradingConfig};
use crate::evaluate::{Grader, Grading, Review, Row};

/// Grades with a [`Judge`].
#[derive(Debug)]
pub struct JudgeGrader {
    runtime: tokio::runtime::Runtime,
    judge: Arc<Judge>,
}

impl JudgeGrader {
    /// Returns a grader using `judge`, with a runtime of its own.
    pub fn new(judge: Judge) -> std::io::Result<JudgeGrader> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("vouch-grade")
            .enable_all()
            .build()?;
        Ok(JudgeGrader {
            runtime,
            judge: Arc::new(judge),
        })
    }

    /// Returns the judge.
    pub fn judge(&self) -> &Judge {
        &self.judge
    }

    /// Runs `future` on the grader's runtime, blocking this thread until it is done.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

impl Grader for JudgeGrader {
    fn grade(&self, reviews: &[Review<'_>]) -> Vec<Row> {
        let specs: Vec<ReviewSpec> = reviews.iter().map(|r| spec_of(r.spec)).collect();
        let graded = self.runtime.block_on(join_all(
            specs
                .iter()
                .zip(reviews)
                .map(|(spec, r)| self.judge.review(spec, r.answer)),
        ));
        graded
            .iter()
            .zip(reviews)
            .map(|(g, r)| row_of(g, r))
            .collect()
    }
}

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

/// Returns, for every review of `tests` that names a grader `judge` does not have, where it is
/// and what is wrong (`path:line:column: …`), so that a run stops before any agent is started.
pub fn unknown_graders(tests: &[crate::TestFile], judge: &Judge) -> Vec<String> {
    let mut problems = Vec::new();
    for test in tests {
        for a in &test.assertions {
            if let crate::spec::AssertionKind::Stdout(review) = &a.kind
                && let Some(problem) = review
                    .agent
                    .as_deref()
                    .and_then(|name| unknown_grader(judge, name))
            {
                problems.push(format!("{}:{}: {problem}", test.path.display(), a.location));
            }
        }
    }
    problems
}

/// The judge's view of a test's `stdout:` review.
pub fn spec_of(review: &crate::spec::StdoutReview) -> ReviewSpec {
    ReviewSpec {
        criteria: review.review.clone(),
        threshold: review.threshold,
        model: review.model.clone(),
        grader: review.agent.clone(),
        samples: review.samples,
    }
}

/// The row of a graded review: passed, failed with the grader's reasoning, skipped with why,
/// or failed because it could not be graded.
pub fn row_of(graded: &Graded, review: &Review<'_>) -> Row {
    let description = review.describe();
    let mut row = match graded.outcome {
        Outcome::Passed => Row::pass(description, review.line),
        Outcome::Failed | Outcome::Error => {
            Row::fail(description, graded.reasoning.clone(), review.line)
        }
        Outcome::Skipped => {
            let mut row = Row::fail(description, graded.reasoning.clone(), review.line);
            row.skipped = true;
            row
        }
    };
    if graded.outcome == Outcome::Passed && !graded.reasoning.is_empty() {
        row.reason = Some(graded.reasoning.clone());
    }
    row.score = graded.score;
    if matches!(graded.outcome, Outcome::Passed | Outcome::Failed) || !graded.samples.is_empty() {
        row.grading = Some(Grading {
            threshold: graded.threshold,
            samples: graded.samples.iter().map(|s| s.score).collect(),
            borderline: graded.borderline,
            cached: graded.cached(),
            grader: graded.grader.clone(),
            model: graded.model.clone(),
            usage: graded.usage(),
        });
    }
    row
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

    fn complete<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Reply, Error>> {
        Box::pin(async move { Err(Error::Config(self.why.clone())) })
    }
}

/// Builds the judge of `config`: its graders (plus `claude` and `codex`, which need no
/// configuration), its default grader, and — unless `no_cache` — its cache, opened when a
/// grading first needs it.
///
/// Graders that reach the same provider (one base URL, or one CLI) share one limit of
/// simultaneous requests: the smallest `concurrency` any of them sets, else
/// [`DEFAULT_CONCURRENCY`].
pub fn build_judge(config: &GradingConfig, no_cache: bool) -> Result<Judge, String> {
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

/// The base URL of an HTTP grader: its own, or its provider's.
fn base_url(g: &GraderConfig) -> String {
    g.base_url.clone().unwrap_or_else(|| {
        if g.kind == GraderKind::Anthropic {
            "https://api.anthropic.com".to_owned()
        } else {
            "https://api.openai.com/v1".to_owned()
        }
    })
}

/// Builds the client of one grader, its requests bounded by `limit`.
fn client(g: &GraderConfig, limit: Arc<Semaphore>) -> Result<Arc<dyn ModelClient>, String> {
    let retry = RetryPolicy {
        max_retries: g.retries.unwrap_or(3),
        ..RetryPolicy::default()
    };
    let label = format!("grader `{}`", g.name);
    let key_of = |default: &str| {
        let var = g.api_key_env.clone().unwrap_or_else(|| default.to_owned());
        (std::env::var(&var).ok().filter(|k| !k.is_empty()), var)
    };
    Ok(match g.kind {
        GraderKind::OpenAi | GraderKind::Anthropic => {
            let openai = g.kind == GraderKind::OpenAi;
            let base = base_url(g);
            let (key, var) = key_of(if openai {
                "OPENAI_API_KEY"
            } else {
                "ANTHROPIC_API_KEY"
            });
            // Local servers need no key; the providers' own do.
            let public = if openai {
                "api.openai.com"
            } else {
                "api.anthropic.com"
            };
            if key.is_none() && base.contains(public) {
                return Ok(Arc::new(Unusable {
                    why: format!("{label}: the environment variable {var} is not set"),
                }));
            }
            let transport = Transport::new(
                label,
                g.timeout.unwrap_or(Duration::from_secs(120)),
                retry,
                limit,
            )
            .map_err(|e| e.to_string())?;
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
            let file = g
                .file
                .clone()
                .ok_or_else(|| format!("{label}: a scripted grader needs a `file`"))?;
            Arc::new(Scripted::load(&file).map_err(|e| format!("{label}: {e}"))?)
        }
    })
}
