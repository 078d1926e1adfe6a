//! Rate limits: a token bucket per environment and kind of request, its headers, the 429 and the refill.

use std::time::Duration;

use herald::config::RateLimitSettings;
use herald::proto::herald::v1 as pb;
use reqwest::Method;
use serde_json::{json, Value};
use tonic_types::StatusExt;

use crate::engine::fixtures::{create_workflow, in_app_step};
use crate::support::{http_client, read_json, TestServer};

/// `(status, [limit, remaining, reset], Retry-After, body)` of a GET of the current environment.
async fn read_me(server: &TestServer) -> (u16, [String; 3], Option<String>, Value) {
    let response = server.get("/v1/environments/me").send().await.expect("request sent");
    let header = |name: &str| response.headers().get(name).map(|value| value.to_str().unwrap().to_string());
    let limits = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]
        .map(|name| header(name).unwrap_or_else(|| panic!("{name} on every answer")));
    let retry_after = header("retry-after");
    let (status, body) = read_json(response).await;
    (status, limits, retry_after, body)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_bucket_answers_429_with_headers_until_it_refills() {
    let server = TestServer::start_with_rate_limits(RateLimitSettings { triggers: 0, writes: 0, reads: 3 }).await;
    let mut remaining = Vec::new();
    for _ in 0..3 {
        let (status, [limit, left, reset], retry_after, _) = read_me(&server).await;
        assert_eq!((status, limit.as_str(), reset.as_str(), retry_after), (200, "3", "1", None));
        remaining.push(left);
    }
    assert_eq!(remaining, ["2", "1", "0"]);

    let (status, [limit, left, _], retry_after, body) = read_me(&server).await;
    assert_eq!((status, limit.as_str(), left.as_str(), retry_after.as_deref()), (429, "3", "0", Some("1")));
    assert_eq!(body["statusCode"], 429);
    assert_eq!(body["error"], "Too Many Requests");
    assert_eq!(body["path"], "/v1/environments/me");
    assert!(body["message"].as_str().unwrap().starts_with("Too many requests"), "{body}");

    // Writes are not limited here (0 = off): no headers, no refusal.
    let response = server.request(Method::POST, "/v2/subscribers").json(&json!({ "subscriberId": "a" })).send().await;
    let response = response.unwrap();
    assert_eq!(response.status(), 201);
    assert!(response.headers().get("x-ratelimit-limit").is_none());

    // Another environment has buckets of its own.
    let (_, other_key) = server.other_environment("production").await;
    let other = http_client()
        .get(server.url("/v1/environments/me"))
        .header("authorization", format!("ApiKey {other_key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 200);

    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let (status, [_, left, _], _, _) = read_me(&server).await;
    assert_eq!((status, left.as_str()), (200, "2"), "a second later the bucket is full again");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bulk_trigger_counts_its_events() {
    let server = TestServer::start_with_rate_limits(RateLimitSettings { triggers: 5, writes: 0, reads: 0 }).await;
    create_workflow(&server, "welcome", json!([in_app_step()])).await;
    let bulk = |events: usize| json!({ "events": (0..events).map(|_| json!({ "name": "welcome", "to": "a" })).collect::<Vec<_>>() });
    let response =
        server.request(Method::POST, "/v1/events/trigger/bulk").json(&bulk(4)).send().await.expect("request sent");
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["x-ratelimit-remaining"], "1");
    let response =
        server.request(Method::POST, "/v1/events/trigger/bulk").json(&bulk(5)).send().await.expect("request sent");
    // One token left, refilled at 5 a second: five events are refused unless 800 ms went by.
    assert_eq!(response.status(), 429, "five events with one token left");
    // Single triggers have a bucket of their own.
    let response = server
        .request(Method::POST, "/v1/events/trigger")
        .json(&json!({ "name": "welcome", "to": "a" }))
        .send()
        .await
        .expect("request sent");
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["x-ratelimit-remaining"], "4");
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_over_the_limit_is_resource_exhausted_with_the_retry_delay() {
    let server = TestServer::start_with_rate_limits(RateLimitSettings { triggers: 0, writes: 0, reads: 1 }).await;
    let mut client = pb::environments_service_client::EnvironmentsServiceClient::new(server.grpc_channel().await);
    let first = client.get_current_environment(server.grpc_request(pb::GetCurrentEnvironmentRequest {})).await;
    let first = first.expect("the first read is allowed");
    assert_eq!(first.metadata().get("x-ratelimit-remaining").unwrap(), "0");
    let refused =
        client.get_current_environment(server.grpc_request(pb::GetCurrentEnvironmentRequest {})).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused:?}");
    let delay = refused.get_details_retry_info().and_then(|info| info.retry_delay).expect("RetryInfo details");
    assert!(delay > Duration::ZERO && delay <= Duration::from_secs(1), "{delay:?}");
    assert_eq!(refused.metadata().get("x-ratelimit-limit").unwrap(), "1");
}
