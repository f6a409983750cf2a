//! Forty gradings against a grader that takes half a second each: the provider's default
//! limit (8) keeps them in flight together, and never more. Asserted on what the server saw
//! at once, not on the time it took (printed for the record).

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use vouch_judge::ReviewSpec;
use vouch_standin::{Reply, Server, openai};

use crate::support::{openai_judge, signed};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_slow_gradings_finish_together_within_the_limit() {
    let server = Server::start(|r, _| {
        Reply::json(200, &openai::chat(&signed(r, "8", "ok")))
            .after(Duration::from_millis(500))
            .once_in_flight(vouch_llm::DEFAULT_CONCURRENCY)
    });
    let judge = Arc::new(openai_judge(&server));
    let specs: Vec<ReviewSpec> = (0..40)
        .map(|i| ReviewSpec::new(format!("criterion {i}")))
        .collect();
    let started = Instant::now();
    let graded = join_all(specs.iter().map(|s| judge.review(s, Some("output")))).await;
    let took = started.elapsed();
    eprintln!("40 gradings of 500 ms each took {took:?}");
    assert!(graded.iter().all(vouch_judge::Graded::passed));
    assert_eq!(server.requests(), 40);
    assert_eq!(server.most_in_flight(), vouch_llm::DEFAULT_CONCURRENCY);
}
