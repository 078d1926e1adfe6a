//! `Idempotency-Key`: a retried write runs once, whichever transport it came by.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::routing::post;
use axum::Router;
use chrono::TimeDelta;
use herald::error::AppError;
use herald::proto::herald::v1 as pb;
use reqwest::Method;
use serde_json::{json, Value};

use crate::engine::fixtures::{count, create_workflow, in_app_step};
use crate::support::{http_client, read_json, TestServer};

/// A keyed request: status, `Idempotency-Replay`, and the body's bytes.
async fn send_keyed(server: &TestServer, method: Method, path: &str, key: &str, body: &Value) -> (u16, bool, Vec<u8>) {
    let response =
        server.request(method, path).header("idempotency-key", key).json(body).send().await.expect("request sent");
    let status = response.status().as_u16();
    let replayed = response.headers().get("idempotency-replay").is_some_and(|value| value == "true");
    (status, replayed, response.bytes().await.expect("a body").to_vec())
}

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("a JSON body")
}

/// Routes counting their runs: `/test/count` answers at once, `/test/slow` after half a second (and
/// counts in `slow_started` as it begins), `/test/fail` with a 500, `/test/panic` panics.
fn counting_routes(runs: Arc<AtomicUsize>, slow_started: Arc<AtomicUsize>) -> Router {
    let counted = |runs: Arc<AtomicUsize>, pause: Duration| async move {
        tokio::time::sleep(pause).await;
        let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
        (http::StatusCode::CREATED, axum::Json(json!({ "run": run })))
    };
    let (count_runs, slow_runs, fail_runs, panic_runs) = (runs.clone(), runs.clone(), runs.clone(), runs);
    Router::new()
        .route(
            "/test/panic",
            post(move || async move {
                panic_runs.fetch_add(1, Ordering::SeqCst);
                if panic_runs.load(Ordering::SeqCst) > 0 {
                    panic!("deliberate panic");
                }
                http::StatusCode::OK
            }),
        )
        .route("/test/count", post(move || counted(count_runs.clone(), Duration::ZERO)))
        .route(
            "/test/slow",
            post(move || {
                slow_started.fetch_add(1, Ordering::SeqCst);
                counted(slow_runs.clone(), Duration::from_millis(500))
            }),
        )
        .route(
            "/test/fail",
            post(move || async move {
                fail_runs.fetch_add(1, Ordering::SeqCst);
                AppError::internal("deliberate failure")
            }),
        )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repeat_replays_the_stored_answer_byte_for_byte_and_runs_nothing() {
    let server = TestServer::start().await;
    let body = json!({ "subscriberId": "ada", "firstName": "Ada" });
    let first = send_keyed(&server, Method::POST, "/v2/subscribers", "create-ada", &body).await;
    assert_eq!((first.0, first.1), (201, false), "{}", String::from_utf8_lossy(&first.2));
    let again = send_keyed(&server, Method::POST, "/v2/subscribers", "create-ada", &body).await;
    assert_eq!(again, (201, true, first.2.clone()));
    assert_eq!(count(&server, "subscribers").await, 1);

    // A refusal is stored as well: the replay carries the first answer's timestamp.
    let conflict = send_keyed(&server, Method::POST, "/v2/subscribers", "create-ada-twice", &body).await;
    assert_eq!(conflict.0, 409);
    tokio::time::sleep(Duration::from_millis(5)).await;
    let replayed = send_keyed(&server, Method::POST, "/v2/subscribers", "create-ada-twice", &body).await;
    assert_eq!(replayed, (409, true, conflict.2));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repeated_trigger_is_stored_once() {
    let server = TestServer::start().await;
    create_workflow(&server, "welcome", json!([in_app_step()])).await;
    let body = json!({ "name": "welcome", "to": ["a", "b"] });
    let first = send_keyed(&server, Method::POST, "/v1/events/trigger", "trigger-1", &body).await;
    assert_eq!(json_of(&first.2)["status"], "processed");
    let again = send_keyed(&server, Method::POST, "/v1/events/trigger", "trigger-1", &body).await;
    assert_eq!(again, (201, true, first.2));
    assert_eq!(count(&server, "notifications").await, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repeat_while_the_first_runs_is_a_409() {
    let runs = Arc::new(AtomicUsize::new(0));
    let slow_started = Arc::new(AtomicUsize::new(0));
    let server = TestServer::start_with(counting_routes(runs.clone(), slow_started.clone())).await;
    let empty = json!({});
    let (first, second) = tokio::join!(send_keyed(&server, Method::POST, "/test/slow", "slow-1", &empty), async {
        // The first is in its handler, so its key is taken: the second comes while it runs.
        while slow_started.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        send_keyed(&server, Method::POST, "/test/slow", "slow-1", &empty).await
    });
    assert_eq!((first.0, json_of(&first.2)), (201, json!({ "run": 1 })));
    assert_eq!(second.0, 409);
    let message = json_of(&second.2)["message"].as_str().unwrap().to_string();
    assert!(message.contains("still in progress"), "{message}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let after = send_keyed(&server, Method::POST, "/test/slow", "slow-1", &json!({})).await;
    assert_eq!(after, (201, true, first.2));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_key_with_another_request_is_a_422() {
    let server = TestServer::start().await;
    let first = send_keyed(&server, Method::POST, "/v2/subscribers", "k", &json!({ "subscriberId": "ada" })).await;
    assert_eq!(first.0, 201);
    let changed = send_keyed(&server, Method::POST, "/v2/subscribers", "k", &json!({ "subscriberId": "bob" })).await;
    assert_eq!(changed.0, 422);
    let body = json_of(&changed.2);
    assert_eq!(body["statusCode"], 422);
    assert!(body["message"].as_str().unwrap().contains("already used for another request"), "{body}");
    let other_path =
        send_keyed(&server, Method::POST, "/v1/events/trigger", "k", &json!({ "subscriberId": "ada" })).await;
    assert_eq!(other_path.0, 422);
    assert_eq!(count(&server, "subscribers").await, 1, "nothing ran for the mismatches");
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_are_scoped_to_the_environment() {
    let server = TestServer::start().await;
    let (_, other_key) = server.other_environment("production").await;
    let body = json!({ "subscriberId": "ada" });
    let here = send_keyed(&server, Method::POST, "/v2/subscribers", "shared", &body).await;
    let response = http_client()
        .post(server.url("/v2/subscribers"))
        .header("authorization", format!("ApiKey {other_key}"))
        .header("idempotency-key", "shared")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("idempotency-replay").is_none());
    let (status, there) = read_json(response).await;
    assert_eq!((here.0, status), (201, 201));
    assert_ne!(json_of(&here.2)["_id"], there["_id"], "each environment created its own subscriber");
    assert_eq!(count(&server, "subscribers").await, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_key_runs_again_and_is_swept() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = TestServer::start_with(counting_routes(runs.clone(), Arc::default())).await;
    let first = send_keyed(&server, Method::POST, "/test/count", "daily", &json!({})).await;
    server.clock.advance(TimeDelta::hours(23));
    assert_eq!(send_keyed(&server, Method::POST, "/test/count", "daily", &json!({})).await, (201, true, first.2));
    server.clock.advance(TimeDelta::hours(2));
    let swept = herald::engine::retention::sweep_expired(&server.pool, server.clock.now()).await.unwrap();
    assert_eq!((swept, count(&server, "idempotency_keys").await), (1, 0));
    let later = send_keyed(&server, Method::POST, "/test/count", "daily", &json!({ "other": "body" })).await;
    assert_eq!((later.0, later.1, json_of(&later.2)), (201, false, json!({ "run": 2 })));
    // Expired but not swept yet: taken over all the same.
    server.clock.advance(TimeDelta::hours(25));
    let taken_over = send_keyed(&server, Method::POST, "/test/count", "daily", &json!({})).await;
    assert_eq!((taken_over.1, json_of(&taken_over.2)), (false, json!({ "run": 3 })));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_error_is_not_stored_so_the_client_can_retry() {
    let runs = Arc::new(AtomicUsize::new(0));
    let server = TestServer::start_with(counting_routes(runs.clone(), Arc::default())).await;
    for _ in 0..2 {
        let (status, replayed, _) = send_keyed(&server, Method::POST, "/test/fail", "retry-me", &json!({})).await;
        assert_eq!((status, replayed), (500, false));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    assert_eq!(count(&server, "idempotency_keys").await, 0);
    // A panic ends the request's transaction too: the retry runs (a 409 would mean the key's lock
    // outlived its request).
    for _ in 0..2 {
        let (status, replayed, _) = send_keyed(&server, Method::POST, "/test/panic", "panicky", &json!({})).await;
        assert_eq!((status, replayed), (500, false));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_key_is_a_400_and_reads_ignore_keys() {
    let server = TestServer::start().await;
    let long = "k".repeat(256);
    let (status, _, body) =
        send_keyed(&server, Method::POST, "/v2/subscribers", &long, &json!({ "subscriberId": "a" })).await;
    let body = json_of(&body);
    assert_eq!((status, &body["message"]), (400, &json!("Idempotency-Key must be 1 to 255 characters long")));
    assert_eq!(body["path"], "/v2/subscribers");
    assert_eq!(count(&server, "subscribers").await, 0);
    let response = server.get("/v1/environments/me").header("idempotency-key", "read").send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(count(&server, "idempotency_keys").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_replays_the_stored_message_under_the_same_rules() {
    let server = TestServer::start().await;
    create_workflow(&server, "welcome", json!([in_app_step()])).await;
    let mut client = pb::events_service_client::EventsServiceClient::new(server.grpc_channel().await);
    let trigger = |name: &str| {
        let message = pb::TriggerEventRequest { name: name.into(), to: vec![recipient("a")], ..Default::default() };
        keyed(&server, message, "grpc-1")
    };
    let first = client.trigger_event(trigger("welcome")).await.unwrap();
    assert!(first.metadata().get("idempotency-replay").is_none());
    let again = client.trigger_event(trigger("welcome")).await.unwrap();
    assert_eq!(again.metadata().get("idempotency-replay").unwrap(), "true");
    assert_eq!(again.into_inner(), first.into_inner());
    assert_eq!(count(&server, "notifications").await, 1);
    let other = client.trigger_event(trigger("another")).await.unwrap_err();
    assert_eq!(other.code(), tonic::Code::FailedPrecondition, "{other:?}");
}

fn recipient(subscriber_id: &str) -> pb::TriggerRecipient {
    pb::TriggerRecipient { kind: Some(pb::trigger_recipient::Kind::SubscriberId(subscriber_id.into())) }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_keyed_bulk_trigger_stores_each_event_on_its_own_and_replays_them_all() {
    let server = TestServer::start().await;
    create_workflow(&server, "welcome", json!([in_app_step()])).await;
    // The second event reuses the first's transactionId: it fails alone, in the request's transaction.
    let events = json!({ "events": [
        { "name": "welcome", "to": "a", "transactionId": "t-1" },
        { "name": "welcome", "to": "b", "transactionId": "t-1" },
        { "name": "welcome", "to": "c", "transactionId": "t-2" },
    ]});
    let first = send_keyed(&server, Method::POST, "/v1/events/trigger/bulk", "bulk-1", &events).await;
    assert_eq!(first.0, 201, "{}", String::from_utf8_lossy(&first.2));
    let results = json_of(&first.2);
    let statuses: Vec<&Value> = results.as_array().unwrap().iter().map(|result| &result["status"]).collect();
    assert_eq!(statuses, [&json!("processed"), &json!("error"), &json!("processed")]);
    let again = send_keyed(&server, Method::POST, "/v1/events/trigger/bulk", "bulk-1", &events).await;
    assert_eq!(again, (201, true, first.2));
    assert_eq!(count(&server, "notifications").await, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_keyed_workflow_change_reaches_the_next_trigger_once_committed() {
    let server = TestServer::start().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let trigger = json!({ "name": "live", "to": "a" });
    let first = send_keyed(&server, Method::POST, "/v1/events/trigger", "t-1", &trigger).await;
    assert_eq!(json_of(&first.2)["status"], "processed", "the definition is cached now");
    let paused = json!({"workflowId": "live", "name": "live", "active": false, "steps": [in_app_step()],
        "origin": "svc-cloud", "preferences": {}});
    let (status, _, body) = send_keyed(&server, Method::PUT, "/v2/workflows/live", "pause", &paused).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    // The cache forgot the definition after the update's commit, not never.
    let second = send_keyed(&server, Method::POST, "/v1/events/trigger", "t-2", &trigger).await;
    assert_eq!(json_of(&second.2)["status"], "trigger_not_active");
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_reads_ignore_keys_and_grpc_writes_store_their_answers() {
    let server = TestServer::start().await;
    let mut client = pb::subscribers_service_client::SubscribersServiceClient::new(server.grpc_channel().await);
    let create = pb::CreateSubscriberRequest { subscriber_id: "ada".into(), ..Default::default() };
    let created = client.create_subscriber(keyed(&server, create, "grpc-1")).await.unwrap();
    assert!(created.metadata().get("idempotency-replay").is_none());
    assert_eq!(count(&server, "idempotency_keys").await, 1);
    // The same key on a read runs the read: no 422 for another request, and no answer stored.
    let read = pb::GetSubscriberRequest { subscriber_id: "ada".into() };
    let found = client.get_subscriber(keyed(&server, read, "grpc-1")).await.unwrap();
    assert!(found.metadata().get("idempotency-replay").is_none());
    assert_eq!(count(&server, "idempotency_keys").await, 1);
}

fn keyed<T>(server: &TestServer, message: T, key: &'static str) -> tonic::Request<T> {
    let mut request = server.grpc_request(message);
    request.metadata_mut().insert("idempotency-key", key.parse().unwrap());
    request
}

#[tokio::test(flavor = "multi_thread")]
async fn a_keyed_trigger_is_stored_with_its_outcome_and_answered_from_it() {
    let server = TestServer::start().await;
    create_workflow(&server, "welcome", json!([in_app_step()])).await;
    let body = json!({ "name": "welcome", "to": "a" });
    let first = send_keyed(&server, Method::POST, "/v1/events/trigger", "outcome", &body).await;
    assert_eq!((first.0, first.1), (201, false), "{}", String::from_utf8_lossy(&first.2));
    let outcome_alone = "idempotency_keys WHERE trigger_outcome->>'status' = 'processed' AND response_status IS NULL";
    assert_eq!(count(&server, outcome_alone).await, 1, "the key keeps the outcome, not a rendered answer");

    let retried = send_keyed(&server, Method::POST, "/v1/events/trigger", "outcome", &body).await;
    assert_eq!(retried, (201, true, first.2.clone()), "answered from the outcome, by the same handler");

    // Meanwhile the workflow was paused: the retry's own checks would refuse it, but the key says it
    // was processed.
    let paused = json!({"workflowId": "welcome", "name": "welcome", "active": false, "steps": [in_app_step()],
        "origin": "svc-cloud", "preferences": {}});
    let (status, _, _) = send_keyed(&server, Method::PUT, "/v2/workflows/welcome", "pause", &paused).await;
    assert_eq!(status, 200);
    let after_pause = send_keyed(&server, Method::POST, "/v1/events/trigger", "outcome", &body).await;
    assert_eq!(after_pause, (201, true, first.2.clone()));
    assert_eq!(count(&server, "notifications").await, 1);
    let replayed = send_keyed(&server, Method::POST, "/v1/events/trigger", "outcome", &body).await;
    assert_eq!(replayed, (201, true, first.2), "the answer the refused retry stored is replayed");
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_keyed_triggers_with_one_key_store_one_notification() {
    let server = TestServer::start().await;
    create_workflow(&server, "welcome", json!([in_app_step()])).await;
    // No transactionId: only the key keeps the copies from each storing a notification.
    let body = json!({ "name": "welcome", "to": "a" });
    let sends = (0..24).map(|_| send_keyed(&server, Method::POST, "/v1/events/trigger", "burst", &body));
    let answers = futures_util::future::join_all(sends).await;
    let created: Vec<&(u16, bool, Vec<u8>)> = answers.iter().filter(|answer| answer.0 == 201).collect();
    assert!(!created.is_empty(), "one of them was stored");
    for answer in &answers {
        match answer.0 {
            201 => assert_eq!(answer.2, created[0].2, "every 201 is the one stored trigger's answer"),
            409 => assert!(json_of(&answer.2)["message"].as_str().unwrap().contains("still in progress")),
            other => panic!("{other}: {}", String::from_utf8_lossy(&answer.2)),
        }
    }
    assert_eq!(created.iter().filter(|answer| !answer.1).count(), 1, "one ran, the others were replays");
    assert_eq!(count(&server, "notifications").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_keyed_trigger_refused_by_its_checks_keeps_its_refusal() {
    let server = TestServer::start().await;
    let body = json!({ "name": "later", "to": "a" });
    let first = send_keyed(&server, Method::POST, "/v1/events/trigger", "too-early", &body).await;
    assert_eq!((first.0, json_of(&first.2)["message"].clone()), (422, json!("workflow_not_found")));
    create_workflow(&server, "later", json!([in_app_step()])).await;
    let again = send_keyed(&server, Method::POST, "/v1/events/trigger", "too-early", &body).await;
    assert_eq!(again, (422, true, first.2));
    let other =
        send_keyed(&server, Method::POST, "/v1/events/trigger", "too-early", &json!({ "name": "later", "to": "b" }))
            .await;
    assert_eq!(other.0, 422);
    assert!(json_of(&other.2)["message"].as_str().unwrap().contains("already used for another request"));
    assert_eq!(count(&server, "notifications").await, 0);
}
