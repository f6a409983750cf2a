//! A review: one `stdout:` assertion graded — by the grader it names, `samples` times, each
//! sample from the cache when it was graded before — into one verdict.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use futures_util::future::join_all;
use serde::Serialize;
use vouch_llm::{ModelClient, Request, Usage};

use crate::cache::{Cache, Cached, key};
use crate::parse::parse;
use crate::prompt;

/// What to grade, as a test's `stdout:` says it (R1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewSpec {
    /// `review`: the criteria, in words.
    pub criteria: String,
    /// `threshold`: the lowest passing score, 1–10.
    pub threshold: u8,
    /// `model`: the grader's model, instead of its own.
    pub model: Option<String>,
    /// `agent`: the grader, by name; the judge's default when `None`.
    pub grader: Option<String>,
    /// `samples`: how many times to grade (at least 1).
    pub samples: u32,
}

impl ReviewSpec {
    /// A review of `criteria` with the defaults: threshold 7, one sample, the default grader.
    pub fn new(criteria: impl Into<String>) -> ReviewSpec {
        ReviewSpec {
            criteria: criteria.into(),
            threshold: 7,
            model: None,
            grader: None,
            samples: 1,
        }
    }
}

/// How a review ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The median score reached the threshold.
    Passed,
    /// It did not.
    Failed,
    /// A sample could not be graded: the grader failed or its reply could not be read.
    Error,
    /// There was nothing to grade (R5).
    Skipped,
}

/// One grading.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    /// Its index (from 0), part of its cache key.
    pub index: u32,
    /// The score, clamped to 1–10.
    pub score: f64,
    /// The grader's reasoning.
    pub reasoning: String,
    /// True when it was replayed from the cache.
    pub cached: bool,
    /// The tokens it cost, when the grader said (none when replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// A graded review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Graded {
    /// How it ended.
    pub outcome: Outcome,
    /// The median of the samples' scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The threshold.
    pub threshold: u8,
    /// Every sample graded, in index order.
    pub samples: Vec<Sample>,
    /// The highest score minus the lowest.
    pub spread: f64,
    /// True when samples fell on both sides of the threshold: the verdict is the median's, but
    /// the grader does not agree with itself here.
    pub borderline: bool,
    /// The reasoning of the sample nearest the median, or why there is no verdict.
    pub reasoning: String,
    /// The grader's name.
    pub grader: String,
    /// The model that graded.
    pub model: String,
}

impl Graded {
    /// Returns true when the review passed.
    pub fn passed(&self) -> bool {
        self.outcome == Outcome::Passed
    }

    /// Returns how many samples were replayed from the cache.
    pub fn cached(&self) -> usize {
        self.samples.iter().filter(|s| s.cached).count()
    }

    /// Returns the tokens its samples cost, when the grader said for any.
    pub fn usage(&self) -> Option<Usage> {
        self.samples
            .iter()
            .filter_map(|s| s.usage)
            .reduce(|a, b| a + b)
    }
}

/// The cache a judge uses: none, one already open, or one opened when first needed (so that a
/// run without reviews never makes a database).
#[derive(Debug)]
enum CacheSlot {
    None,
    Open(Arc<Cache>),
    At(PathBuf, OnceLock<Option<Cache>>),
}

/// The graders of a run, the default one, and the cache.
#[derive(Debug)]
pub struct Judge {
    graders: BTreeMap<String, Arc<dyn ModelClient>>,
    default: String,
    cache: CacheSlot,
    /// The first problem the cache had (it could not be opened, or a grading not kept).
    cache_problem: std::sync::Mutex<Option<String>>,
}

impl Judge {
    /// Returns a judge with `graders` by name, `default` answering reviews that name none.
    pub fn new(
        graders: BTreeMap<String, Arc<dyn ModelClient>>,
        default: impl Into<String>,
    ) -> Judge {
        Judge {
            graders,
            default: default.into(),
            cache: CacheSlot::None,
            cache_problem: std::sync::Mutex::new(None),
        }
    }

    /// Returns a judge with one grader, `name`, which is also its default.
    pub fn single(name: impl Into<String>, client: Arc<dyn ModelClient>) -> Judge {
        let name = name.into();
        Judge::new(BTreeMap::from([(name.clone(), client)]), name)
    }

    /// Returns this judge reading and writing `cache`.
    #[must_use]
    pub fn with_cache(mut self, cache: Arc<Cache>) -> Judge {
        self.cache = CacheSlot::Open(cache);
        self
    }

    /// Returns this judge reading and writing the cache at `path`, opened (and made) when a
    /// grading first needs it; a cache that cannot be opened is warned of and done without.
    #[must_use]
    pub fn with_cache_at(mut self, path: PathBuf) -> Judge {
        self.cache = CacheSlot::At(path, OnceLock::new());
        self
    }

    fn cache(&self) -> Option<&Cache> {
        match &self.cache {
            CacheSlot::None => None,
            CacheSlot::Open(c) => Some(c),
            CacheSlot::At(path, cell) => cell
                .get_or_init(|| match Cache::open(path) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        self.note_cache_problem(format!("{e}; graded without a cache"));
                        None
                    }
                })
                .as_ref(),
        }
    }

    fn note_cache_problem(&self, problem: String) {
        tracing::warn!("{problem}");
        let mut slot = self
            .cache_problem
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.get_or_insert(problem);
    }

    /// Returns the first problem the cache had in this judge's gradings — it could not be
    /// opened, or a grading could not be kept — for the caller to warn of. Such problems never
    /// fail a grading.
    pub fn cache_problem(&self) -> Option<String> {
        self.cache_problem
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Returns the name of the default grader.
    pub fn default_grader(&self) -> &str {
        &self.default
    }

    /// Returns the names of the graders.
    pub fn grader_names(&self) -> impl Iterator<Item = &str> {
        self.graders.keys().map(String::as_str)
    }

    /// Grades `output` (the agent's final answer, when there is one) against `spec`.
    pub async fn review(&self, spec: &ReviewSpec, output: Option<&str>) -> Graded {
        let name = spec.grader.as_deref().unwrap_or(&self.default).to_owned();
        let client = self.graders.get(&name).cloned();
        let model = spec
            .model
            .clone()
            .or_else(|| {
                client
                    .as_ref()
                    .and_then(|c| c.default_model().map(str::to_owned))
            })
            .unwrap_or_else(|| "default".to_owned());
        let verdict = |outcome, reasoning: String| Graded {
            outcome,
            score: None,
            threshold: spec.threshold,
            samples: Vec::new(),
            spread: 0.0,
            borderline: false,
            reasoning,
            grader: name.clone(),
            model: model.clone(),
        };
        let Some(output) = output.filter(|o| !o.trim().is_empty()) else {
            return verdict(
                Outcome::Skipped,
                "no final answer to grade: the session ends without one".to_owned(),
            );
        };
        let Some(client) = client else {
            let known: Vec<&str> = self.grader_names().collect();
            return verdict(
                Outcome::Error,
                format!(
                    "no grader named `{name}` is configured (graders: {})",
                    known.join(", ")
                ),
            );
        };
        let samples = join_all(
            (0..spec.samples.max(1))
                .map(|i| self.sample(client.as_ref(), &name, &model, spec, output, i)),
        )
        .await;
        let mut graded = Vec::with_capacity(samples.len());
        for s in samples {
            match s {
                Ok(s) => graded.push(s),
                Err(e) => {
                    let mut v = verdict(Outcome::Error, e);
                    v.samples = graded;
                    return v;
                }
            }
        }
        let mut scores: Vec<f64> = graded.iter().map(|s| s.score).collect();
        scores.sort_by(f64::total_cmp);
        let median = median(&scores);
        let (lo, hi) = (scores[0], scores[scores.len() - 1]);
        let threshold = f64::from(spec.threshold);
        let nearest = graded
            .iter()
            .min_by(|a, b| {
                (a.score - median)
                    .abs()
                    .total_cmp(&(b.score - median).abs())
            })
            .map(|s| s.reasoning.clone())
            .unwrap_or_default();
        Graded {
            outcome: if median >= threshold {
                Outcome::Passed
            } else {
                Outcome::Failed
            },
            score: Some(median),
            threshold: spec.threshold,
            spread: hi - lo,
            borderline: lo < threshold && hi >= threshold,
            reasoning: nearest,
            samples: graded,
            grader: name.clone(),
            model: model.clone(),
        }
    }

    /// Grades sample `index`: from the cache, or by asking the grader (and keeping the answer).
    async fn sample(
        &self,
        client: &dyn ModelClient,
        grader: &str,
        model: &str,
        spec: &ReviewSpec,
        output: &str,
        index: u32,
    ) -> Result<Sample, String> {
        let k = key(&spec.criteria, output, grader, model, index);
        // A cache that cannot be read is not a verdict: the sample is graded.
        if let Some(Ok(Some(hit))) = self.cache().map(|c| c.get(&k)) {
            return Ok(Sample {
                index,
                score: hit.score,
                reasoning: hit.reasoning,
                cached: true,
                usage: None,
            });
        }
        let nonce = prompt::nonce(&[output, &spec.criteria]);
        let request = Request {
            system: Some(prompt::SYSTEM.to_owned()),
            prompt: prompt::build(&spec.criteria, output, &nonce),
            model: spec.model.clone(),
            schema: Some(prompt::schema()),
            max_tokens: 1024,
            nonce: Some(nonce.clone()),
        };
        let reply = client
            .complete(&request)
            .await
            .map_err(|e| format!("grading failed: {e}"))?;
        let grade = parse(&reply.text, &nonce, output).map_err(|e| e.to_string())?;
        if let Some(cache) = self.cache() {
            let kept = Cached {
                score: grade.score,
                reasoning: grade.reasoning.clone(),
                grader: grader.to_owned(),
                model: model.to_owned(),
                created: jiff::Timestamp::now().to_string(),
            };
            // A grading that cannot be kept is still a grading.
            if let Err(e) = cache.put(&k, &kept) {
                self.note_cache_problem(format!("{e}; gradings were not kept"));
            }
        }
        Ok(Sample {
            index,
            score: grade.score,
            reasoning: grade.reasoning,
            cached: false,
            usage: reply.usage,
        })
    }
}

/// The median of sorted, non-empty `scores`.
fn median(scores: &[f64]) -> f64 {
    let n = scores.len();
    if n % 2 == 1 {
        scores[n / 2]
    } else {
        f64::midpoint(scores[n / 2 - 1], scores[n / 2])
    }
}
