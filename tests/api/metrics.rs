//! `/metrics` on the operations port: after real traffic, the series move by exactly that traffic,
//! and no label carries an id.

use std::collections::BTreeMap;
use std::time::Duration;

use herald::proto::herald::v1 as pb;
use pb::environments_service_client::EnvironmentsServiceClient;
use reqwest::Method;
use serde_json::json;

use crate::engine::fixtures::{chat_recipient, chat_webhook_workflow, create_workflow, in_app_step};
use crate::engine::receiver::Receiver;
use crate::support::{http_client, TestServer};

/// One scrape: each sample's value by its name and labels (`name{a="x",b="y"}` as written).
pub struct Scrape(BTreeMap<String, f64>);

impl Scrape {
    pub async fn of(server: &TestServer) -> Self {
        let response = http_client().get(format!("http://{}/metrics", server.metrics_addr)).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
        let text = response.text().await.unwrap();
        let samples = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .map(|line| {
                let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("a sample: {line}"));
                (series.to_owned(), value.parse::<f64>().unwrap_or_else(|_| panic!("a value: {line}")))
            })
            .collect();
        Self(samples)
    }

    /// The sample of `name` whose labels include every one of `labels`; 0 when there is none.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let matching: Vec<f64> = self
            .0
            .iter()
            .filter(|(series, _)| {
                series.split('{').next() == Some(name)
                    && labels.iter().all(|(key, value)| series.contains(&format!("{key}=\"{value}\"")))
            })
            .map(|(_, value)| *value)
            .collect();
        assert!(matching.len() <= 1, "{name} {labels:?} matches several series: {matching:?}");
        matching.first().copied().unwrap_or(0.0)
    }

    fn has(&self, name: &str) -> bool {
        self.0.keys().any(|series| series.split('{').next() == Some(name))
    }
}

async fn wait_for_completed(server: &TestServer, step_type: &str, expected: f64, before: &Scrape) -> Scrape {
    let started = std::time::Instant::now();
    loop {
        let now = Scrape::of(server).await;
        let done = now.value("herald_jobs_total", &[("step_type", step_type), ("event", "completed")])
            - before.value("herald_jobs_total", &[("step_type", step_type), ("event", "completed")]);
        if done >= expected || started.elapsed() > Duration::from_secs(15) {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn series_move_by_exactly_the_traffic_sent() {
    let server = TestServer::start().await;
    create_workflow(&server, "welcome", json!([in_app_step()])).await;
    let receiver = Receiver::start().await;
    chat_webhook_workflow(&server).await;
    let before = Scrape::of(&server).await;

    for n in 0..3 {
        let body = json!({"name": "welcome", "to": format!("subscriber-{n}"), "transactionId": format!("tx-{n}")});
        assert_eq!(server.send_json(Method::POST, "/v1/events/trigger", &body).await.0, 201);
    }
    // A keyed trigger answered a second time from its stored outcome is counted once.
    let keyed = json!({"name": "welcome", "to": "subscriber-k"});
    for _ in 0..2 {
        let response =
            server.request(Method::POST, "/v1/events/trigger").header("idempotency-key", "k").json(&keyed).send().await;
        assert_eq!(response.unwrap().status(), 201);
    }
    let unknown = json!({"name": "no-such-workflow", "to": "subscriber-0"});
    assert_eq!(server.send_json(Method::POST, "/v1/events/trigger", &unknown).await.0, 422);
    let to = chat_recipient("chatty", &receiver.url("/hook"));
    assert_eq!(server.send_json(Method::POST, "/v1/events/trigger", &json!({"name": "chat", "to": to})).await.0, 201);
    assert_eq!(server.get_json("/v2/subscribers/subscriber-0").await.0, 200);
    assert_eq!(server.get_json("/v2/subscribers/nobody").await.0, 404);
    let mut environments = EnvironmentsServiceClient::new(server.grpc_channel().await);
    environments.get_current_environment(server.grpc_request(pb::GetCurrentEnvironmentRequest {})).await.unwrap();
    let unimplemented = http_client()
        .post(server.url("/herald.v1.EnvironmentsService/NoSuchMethod"))
        .header("content-type", "application/grpc")
        .header("authorization", server.authorization())
        .send()
        .await
        .unwrap();
    assert_eq!(unimplemented.headers()["grpc-status"], "12");

    wait_for_completed(&server, "in_app", 4.0, &before).await;
    let after = wait_for_completed(&server, "chat", 1.0, &before).await;
    let moved = |name: &str, labels: &[(&str, &str)]| after.value(name, labels) - before.value(name, labels);

    assert_eq!(moved("herald_triggers_total", &[("status", "processed")]), 5.0);
    assert_eq!(moved("herald_triggers_total", &[("status", "rejected")]), 1.0);
    let requests = "herald_request_duration_seconds_count";
    let trigger_route = [("protocol", "rest"), ("method", "POST"), ("route", "/v1/events/trigger")];
    assert_eq!(moved(requests, &[trigger_route.as_slice(), &[("status", "2xx")]].concat()), 6.0);
    assert_eq!(moved(requests, &[trigger_route.as_slice(), &[("status", "4xx")]].concat()), 1.0);
    let subscriber_route = [("method", "GET"), ("route", "/v2/subscribers/{subscriber_id}")];
    assert_eq!(moved(requests, &[subscriber_route.as_slice(), &[("status", "2xx")]].concat()), 1.0);
    assert_eq!(moved(requests, &[subscriber_route.as_slice(), &[("status", "4xx")]].concat()), 1.0);
    let grpc_route = ("route", "/herald.v1.EnvironmentsService/GetCurrentEnvironment");
    assert_eq!(moved(requests, &[("protocol", "grpc"), grpc_route, ("status", "ok")]), 1.0);
    assert_eq!(moved(requests, &[("protocol", "grpc"), ("route", "unmatched"), ("status", "unimplemented")]), 1.0);

    // Trigger jobs are written completed when the trigger is stored: no worker claims them.
    assert_eq!(moved("herald_jobs_total", &[("step_type", "trigger"), ("event", "claimed")]), 0.0);
    assert_eq!(moved("herald_jobs_total", &[("step_type", "in_app"), ("event", "claimed")]), 4.0);
    assert_eq!(moved("herald_jobs_total", &[("step_type", "in_app"), ("event", "completed")]), 4.0);
    assert_eq!(moved("herald_jobs_total", &[("step_type", "chat"), ("event", "completed")]), 1.0);
    // Every trigger that reached the database is in one batch: the five stored, and the keyed one's
    // retry (its batch found the key holding its outcome and stored nothing).
    assert_eq!(moved("herald_ingest_batch_triggers_sum", &[]), 6.0);
    let delivered = [("provider", "chat-webhook"), ("outcome", "sent")];
    assert_eq!(moved("herald_delivery_attempt_duration_seconds_count", &delivered), 1.0);

    // The queue gauges are read before the counters in one scrape: the scrape that first showed the
    // last completion may have read the queue just before that commit. The next one reads it after.
    let settled = Scrape::of(&server).await;
    assert_eq!(settled.value("herald_queued_jobs", &[("status", "running")]), 0.0);
    assert!(after.has("herald_oldest_due_job_age_seconds"));
    assert_eq!(after.value("herald_db_pool_connections", &[("state", "max")]), 8.0);
    // Every checkout is timed: at least the two subscriber reads, a trigger batch and a worker's claim.
    assert!(moved("herald_db_pool_wait_seconds_count", &[]) >= 4.0);
    assert_eq!(
        after.value("herald_db_pool_wait_seconds_bucket", &[("le", "+Inf")]),
        after.value("herald_db_pool_wait_seconds_count", &[])
    );
    assert!(after.value("process_resident_memory_bytes", &[]) > 1_000_000.0);
    assert!(after.has("process_cpu_seconds_total"));
    for id in ["subscriber-0", "tx-0", "chatty", &server.environment_id.to_string()] {
        assert!(!after.0.keys().any(|series| series.contains(id)), "a label holds the id {id}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_operations_port_answers_health_too_and_the_api_port_has_no_metrics() {
    let server = TestServer::start().await;
    let open = |path: &str| http_client().get(format!("http://{}{path}", server.metrics_addr)).send();
    assert_eq!(open("/healthz").await.unwrap().status(), 200);
    assert_eq!(open("/readyz").await.unwrap().status(), 200);
    let on_api_port = http_client().get(server.url("/metrics")).send().await.unwrap();
    assert_eq!(on_api_port.status(), 404);
}
