//! Load on a real loopback listener: many event-stream clients on one deploy, and a burst of
//! validations. Bounded in count and time; everything stops with the test.

mod deploy_support;

use std::time::{Duration, Instant};

use deploy_support::*;
use futures_util::future::join_all;
use futures_util::stream::{self, StreamExt};
use serde_json::Value;

const SSE_CLIENTS: usize = 200;
const EXTRA_LINES: usize = 300;
const VALIDATIONS: usize = 500;
const VALIDATION_CONCURRENCY: usize = 50;

/// Only a guard against a hang, not a performance bound.
const HANG_GUARD: Duration = Duration::from_secs(120);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_event_stream_clients_each_get_every_event_in_order() {
    tokio::time::timeout(HANG_GUARD, async {
        let eksctl = chatty_eksctl(&scratch_dir("load-sse-tools"), EXTRA_LINES, 5);
        let harness = Harness::with("load-sse", |config| config.tools.eksctl = eksctl);
        let server = LoopbackServer::start(harness.app()).await;
        let client = http_client();
        let body = serde_json::to_vec(&g5_spec("eks-load")).unwrap();
        let (status, job) = send(&client, "POST", &server.url("/api/deploys"), body).await;
        assert_eq!(status, 202, "{}", String::from_utf8_lossy(&job));
        let job: Value = serde_json::from_slice(&job).unwrap();
        let url = server.url(&format!(
            "/api/deploys/{}/events",
            job["id"].as_str().unwrap()
        ));

        let started = Instant::now();
        let readers = join_all((0..SSE_CLIENTS).map(|_| open_events(&client, &url))).await;
        let streams = join_all(readers.into_iter().map(SseReader::rest)).await;
        let elapsed = started.elapsed();

        let reference: Vec<i64> = streams[0].iter().map(|event| event.id).collect();
        assert!(
            reference.windows(2).all(|pair| pair[0] < pair[1]),
            "ids grow: {reference:?}"
        );
        assert_eq!(job_states(&streams[0]), ["running", "succeeded"]);
        let lines = log_lines(&streams[0]);
        for number in 1..=EXTRA_LINES {
            let wanted = format!("(check {number} of {EXTRA_LINES})");
            assert!(
                lines.iter().any(|line| line.ends_with(&wanted)),
                "line {number} was streamed"
            );
        }
        for (client_index, events) in streams.iter().enumerate() {
            assert_eq!(
                events, &streams[0],
                "client {client_index} received the same events as client 0"
            );
        }
        // Stored and streamed agree: the job's last event is the streams' last.
        let stored = harness.job(job["id"].as_str().unwrap()).await;
        assert_eq!(stored["last_event_id"], *reference.last().unwrap());
        eprintln!(
            "{SSE_CLIENTS} clients × {} events each in {elapsed:?}",
            reference.len()
        );
    })
    .await
    .expect("the test ends within its guard");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_validations_all_get_the_same_findings() {
    tokio::time::timeout(HANG_GUARD, async {
        let harness = Harness::new("load-validate");
        let server = LoopbackServer::start(harness.app()).await;
        let client = http_client();
        let spec = shared::template("p5-capacity-block").unwrap().spec();
        let expected = serde_json::to_value(shared::rules::validate(&spec)).unwrap();
        assert!(
            !expected.as_array().unwrap().is_empty(),
            "the template has findings"
        );
        let body = spec.to_json().into_bytes();
        let url = server.url("/api/validate");

        let started = Instant::now();
        let answers: Vec<(u16, Vec<u8>)> = stream::iter(0..VALIDATIONS)
            .map(|_| {
                let (client, url, body) = (&client, &url, body.clone());
                async move {
                    let (status, answer) = send(client, "POST", url, body).await;
                    (status.as_u16(), answer)
                }
            })
            .buffer_unordered(VALIDATION_CONCURRENCY)
            .collect()
            .await;
        let elapsed = started.elapsed();

        assert_eq!(answers.len(), VALIDATIONS);
        for (status, answer) in &answers {
            assert_eq!(*status, 200, "{}", String::from_utf8_lossy(answer));
            let answer: Value = serde_json::from_slice(answer).unwrap();
            assert_eq!(answer["findings"], expected);
        }
        eprintln!("{VALIDATIONS} validations, {VALIDATION_CONCURRENCY} at a time, in {elapsed:?}");
    })
    .await
    .expect("the test ends within its guard");
}
