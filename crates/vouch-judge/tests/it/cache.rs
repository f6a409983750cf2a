//! The cache (R6): a warm re-run asks nothing; any change of criteria, output, model or sample
//! misses.

use std::sync::Arc;

use vouch_judge::{Cache, ReviewSpec};
use vouch_standin::{Reply, Server, openai};

use crate::support::{openai_judge, signed};

#[tokio::test]
async fn a_second_run_of_twenty_reviews_makes_no_request() {
    let server = Server::start(|r, _| Reply::json(200, &openai::chat(&signed(r, "8", "fine"))));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".vouch/cache.db");
    let reviews: Vec<(ReviewSpec, String)> = (0..20)
        .map(|i| {
            (
                ReviewSpec::new(format!("criterion {i}")),
                format!("output {i}"),
            )
        })
        .collect();
    for run in 0..2 {
        let judge = openai_judge(&server).with_cache(Arc::new(Cache::open(&path).unwrap()));
        for (spec, output) in &reviews {
            let graded = judge.review(spec, Some(output)).await;
            assert!(graded.passed());
            assert_eq!(graded.cached(), run, "run {run}");
        }
    }
    assert_eq!(server.requests(), 20, "the second run asked the grader");
}

#[tokio::test]
async fn criteria_output_model_and_sample_are_each_part_of_the_key() {
    let server = Server::start(|r, _| Reply::json(200, &openai::chat(&signed(r, "8", "fine"))));
    let dir = tempfile::tempdir().unwrap();
    let judge =
        openai_judge(&server).with_cache(Arc::new(Cache::open(&dir.path().join("c.db")).unwrap()));
    let base = ReviewSpec::new("Says the tests pass");
    judge.review(&base, Some("All pass.")).await;
    assert_eq!(server.requests(), 1);
    judge.review(&base, Some("All pass.")).await;
    assert_eq!(server.requests(), 1, "a hit asked the grader");

    judge
        .review(&ReviewSpec::new("Says the tests fail"), Some("All pass."))
        .await;
    assert_eq!(server.requests(), 2, "other criteria hit");
    judge.review(&base, Some("All pass!")).await;
    assert_eq!(server.requests(), 3, "another output hit");
    let mut model = base.clone();
    model.model = Some("gpt-other".into());
    judge.review(&model, Some("All pass.")).await;
    assert_eq!(server.requests(), 4, "another model hit");
    let mut samples = base.clone();
    samples.samples = 2;
    let graded = judge.review(&samples, Some("All pass.")).await;
    assert_eq!(server.requests(), 5, "sample 1 hit, or sample 0 missed");
    assert_eq!(graded.cached(), 1);
}

#[test]
fn writers_with_their_own_connections_lose_nothing() {
    // Four writers, each with its own connection (as four `vouch` processes have), 200
    // gradings each, all at once: every one is kept.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".vouch/cache.db");
    std::thread::scope(|s| {
        for w in 0..4 {
            let path = &path;
            s.spawn(move || {
                let cache = Cache::open(path).unwrap();
                for i in 0..200 {
                    let k = vouch_judge::cache::key("c", &format!("{w}-{i}"), "g", "m", 0);
                    let kept = vouch_judge::cache::Cached {
                        score: 7.0,
                        reasoning: format!("writer {w}"),
                        grader: "g".into(),
                        model: "m".into(),
                        created: "2026-11-22T00:00:00Z".into(),
                    };
                    cache.put(&k, &kept).unwrap();
                }
            });
        }
    });
    let cache = Cache::open(&path).unwrap();
    assert_eq!(cache.stats().unwrap().entries, 800);
    let k = vouch_judge::cache::key("c", "3-199", "g", "m", 0);
    assert_eq!(cache.get(&k).unwrap().unwrap().reasoning, "writer 3");
}
