//! The judge's own cost, without a model's latency: 1,000 reviews replayed from a warm cache,
//! and 1,000 reviews graded by an instant in-process grader (prompt, nonce, reply parsing,
//! verdict), with and without writing each grading to the cache.
//!
//! Each review grades a different ~1 KB answer against one of five criteria, as a suite of
//! agent tests does. Run: `cargo bench -p vouch-judge --bench grade`; divide by 1,000 for the
//! cost of one graded row.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::future::join_all;
use vouch_judge::{Cache, Judge, ReviewSpec};
use vouch_llm::{Scripted, ScriptedReply};

const REVIEWS: usize = 1_000;

fn main() {
    divan::main();
}

/// A grader that answers at once, signing its grade with the request's nonce.
fn instant() -> Arc<Scripted> {
    Arc::new(Scripted::new(
        "instant",
        vec![ScriptedReply {
            matches: None,
            reply: r#"{"score": 8, "reasoning": "Meets the criteria.", "nonce": "{{nonce}}"}"#
                .to_owned(),
            delay_ms: 0,
        }],
    ))
}

const CRITERIA: [&str; 5] = [
    "Says what was fixed and that the tests pass",
    "Names both API keys the app needs without printing any secret value",
    "Explains why the change is safe for existing callers",
    "Shows the release notes and says which file holds them",
    "Reports the failing test by name and what it expected",
];

/// The reviews of a run: `REVIEWS` distinct answers (`salt` makes a run's answers its own).
fn reviews(salt: u64) -> Vec<(ReviewSpec, String)> {
    (0..REVIEWS)
        .map(|i| {
            let spec = ReviewSpec::new(CRITERIA[i % CRITERIA.len()]);
            let answer = format!(
                "Run {salt}, answer {i}: fixed total() so that it multiplies price by quantity. {}\nnpm test passes: 12 tests, 0 failures.",
                "The change is confined to src/total.js and its test. ".repeat(16)
            );
            (spec, answer)
        })
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Grades every review at once, as a test run does; returns how many came from the cache.
fn grade_all(
    rt: &tokio::runtime::Runtime,
    judge: &Judge,
    reviews: &[(ReviewSpec, String)],
) -> usize {
    let graded = rt.block_on(join_all(
        reviews
            .iter()
            .map(|(spec, answer)| judge.review(spec, Some(answer))),
    ));
    assert!(graded.iter().all(vouch_judge::Graded::passed));
    graded.iter().map(vouch_judge::Graded::cached).sum()
}

/// 1,000 reviews, every one replayed from a warm cache: no grader is asked.
#[divan::bench(sample_count = 20)]
fn cache_hits_1000(bencher: divan::Bencher) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cache = Arc::new(Cache::open(&dir.path().join("cache.db")).expect("a cache"));
    let grader = instant();
    let judge = Judge::single("instant", grader.clone()).with_cache(cache);
    let rt = runtime();
    let reviews = reviews(0);
    assert_eq!(grade_all(&rt, &judge, &reviews), 0);
    let asked = grader.calls();
    bencher.bench_local(|| {
        assert_eq!(grade_all(&rt, &judge, &reviews), REVIEWS);
    });
    assert_eq!(grader.calls(), asked, "a warm cache asks no grader");
}

/// 1,000 reviews graded by an instant grader, no cache: the judge's cost per graded row.
#[divan::bench(sample_count = 20)]
fn graded_without_cache_1000(bencher: divan::Bencher) {
    let judge = Judge::single("instant", instant());
    let rt = runtime();
    let reviews = reviews(0);
    bencher.bench_local(|| grade_all(&rt, &judge, &reviews));
}

/// 1,000 reviews graded by an instant grader, each grading written to the cache (fresh
/// answers every iteration, so every review misses).
#[divan::bench(sample_count = 20)]
fn graded_and_cached_1000(bencher: divan::Bencher) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cache = Arc::new(Cache::open(&dir.path().join("cache.db")).expect("a cache"));
    let judge = Judge::single("instant", instant()).with_cache(cache);
    let rt = runtime();
    let run = AtomicU64::new(1);
    bencher
        .with_inputs(|| reviews(run.fetch_add(1, Ordering::Relaxed)))
        .bench_local_refs(|reviews| assert_eq!(grade_all(&rt, &judge, reviews), 0));
}
