//! Notification events (activity): the listing with its filters, paging and time window, retrieval
//! of one event, and isolation between environments. The engine's rows are fixtures (SQL).

use chrono::{Duration, Utc};
use diesel::sql_types::{Integer, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use herald::domain::activity::{list_notifications, EventQuery};
use herald::domain::tenancy::Tenant;
use herald::proto::herald::v1 as pb;
use serde_json::{json, Value};
use tonic::Code;
use uuid::Uuid;

use crate::activity_fixtures::{
    assert_invalid_fields, assert_timestamp, digest_json, event, keys, message, millis, subscriber, workflow, Env,
    InsertedEvent, MessageSpec,
};
use crate::support::{rows_read_in_transaction, TestServer};

const EVENT_KEYS: [&str; 19] = [
    "_environmentId",
    "_id",
    "_organizationId",
    "_subscriberId",
    "_templateId",
    "channels",
    "controls",
    "createdAt",
    "critical",
    "jobs",
    "payload",
    "severity",
    "subscriber",
    "tags",
    "template",
    "to",
    "topics",
    "transactionId",
    "updatedAt",
];

const JOB_KEYS: [&str; 10] = [
    "_id",
    "executionDetails",
    "overrides",
    "payload",
    "providerId",
    "scheduleExtensionsCount",
    "status",
    "step",
    "type",
    "updatedAt",
];

/// The `_id`s of the events a listing returns, in order.
async fn listed(server: &TestServer, query: &str) -> Vec<String> {
    let (status, body) = server.get_json(&format!("/v1/notifications{query}")).await;
    assert_eq!(status, 200, "{query}: {body}");
    body["data"].as_array().unwrap().iter().map(|event| event["_id"].as_str().unwrap().to_string()).collect()
}

fn ids(events: &[&InsertedEvent]) -> Vec<String> {
    events.iter().map(|event| event.id.to_string()).collect()
}

/// Asserts one listed or retrieved event against what the fixtures wrote.
fn assert_event_shape(body: &Value, inserted: &InsertedEvent, sub: &Value, flow: &Value, at: chrono::DateTime<Utc>) {
    assert_eq!(keys(body), EVENT_KEYS, "{body}");
    assert_eq!(body["_id"], inserted.id.to_string());
    assert_eq!(body["_subscriberId"], sub["_id"]);
    assert_eq!(body["_templateId"], flow["_id"]);
    assert_eq!(body["transactionId"], "txn-1");
    assert_eq!(body["createdAt"], millis(at));
    assert_eq!(body["updatedAt"], millis(at));
    assert_eq!(body["channels"], json!(["trigger", "in_app", "digest", "email"]));
    assert_eq!(
        body["subscriber"],
        json!({"subscriberId": "user-1", "_id": sub["_id"], "firstName": "Ada", "lastName": "Lovelace",
               "email": "ada@example.com"})
    );
    assert_eq!(
        body["template"],
        json!({"_id": flow["_id"], "name": "Order shipped", "origin": "external",
               "triggers": [{"type": "event", "identifier": "order-shipped", "variables": [{"name": "orderId"}],
                             "subscriberVariables": [{"name": "firstName"}]}]})
    );
    assert_eq!(body["payload"], json!({"orderId": "A-1", "total": 12}));
    assert_eq!(body["tags"], json!(["orders"]));
    assert_eq!(body["controls"], json!({}));
    assert_eq!(body["to"], json!({"subscriberId": "user-1"}));
    assert_eq!(body["topics"], json!([]));
    assert_eq!(body["severity"], "high");
    assert_eq!(body["critical"], false);

    let jobs = body["jobs"].as_array().unwrap();
    let job_ids: Vec<&str> = jobs.iter().map(|job| job["_id"].as_str().unwrap()).collect();
    assert_eq!(job_ids, inserted.job_ids.iter().map(Uuid::to_string).collect::<Vec<_>>(), "position order");
    let types: Vec<&str> = jobs.iter().map(|job| job["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["trigger", "in_app", "digest", "email"]);
    let steps = flow["steps"].as_array().unwrap();
    for (index, job) in jobs.iter().enumerate() {
        let mut expected: Vec<&str> = JOB_KEYS.to_vec();
        if job["type"] == "digest" {
            expected.push("digest");
            expected.sort();
        }
        assert_eq!(keys(job), expected, "{job}");
        assert_eq!(job["status"], "completed");
        assert_eq!(job["providerId"], if job["type"] == "email" { "sendgrid" } else { "svc" });
        assert_eq!(job["payload"], json!({"orderId": "A-1", "total": 12}));
        assert_eq!(job["overrides"], json!({}));
        assert_eq!(job["scheduleExtensionsCount"], if job["type"] == "digest" { 1 } else { 0 });
        assert_timestamp(&job["updatedAt"]);

        let details = job["executionDetails"].as_array().unwrap();
        let detail_ids: Vec<&str> = details.iter().map(|detail| detail["_id"].as_str().unwrap()).collect();
        assert_eq!(detail_ids, inserted.detail_ids[index].iter().map(Uuid::to_string).collect::<Vec<_>>());
        assert_eq!(details[0]["detail"], "Step queued", "oldest first");
        assert_eq!(details[1]["detail"], "Step completed");
        assert_eq!(
            keys(&details[0]),
            ["_id", "createdAt", "detail", "isRetry", "isTest", "providerId", "source", "status"]
        );
        assert_eq!(details[0]["status"], "Pending");
        assert_eq!(details[1]["status"], "Success");
        assert_eq!(details[1]["raw"], r#"{"ok":true}"#);
        assert_eq!((details[1]["source"].as_str(), details[1]["isRetry"].as_bool()), (Some("Internal"), Some(false)));
        assert_eq!(details[1]["isTest"], false);
        assert_timestamp(&details[0]["createdAt"]);

        let step = &job["step"];
        if index == 0 {
            assert_eq!(
                *step,
                json!({"_id": flow["_id"], "_templateId": flow["_id"], "active": true, "name": "trigger",
                       "filters": [], "variants": []})
            );
        } else {
            let defined = &steps[index - 1];
            assert_eq!(step["_id"], defined["_id"]);
            assert_eq!(step["_templateId"], defined["_id"]);
            assert_eq!(step["name"], defined["name"]);
            assert_eq!(step["controlVariables"], defined["controlValues"]);
            assert_eq!((&step["active"], &step["filters"]), (&json!(true), &json!([])));
            // The step's issues when the trigger took the snapshot (the workflow API also lists empty sections).
            let mut issues = defined["issues"].as_object().cloned().unwrap_or_default();
            issues.retain(|_, section| section.as_object().is_some_and(|section| !section.is_empty()));
            assert_eq!(step["issues"], Value::Object(issues));
            assert!(step.get("stepId").is_none() && step.get("type").is_none(), "engine keys stay internal: {step}");
        }
    }
    assert_eq!(jobs[2]["digest"], digest_json());
    // The snapshot the engine takes shows a digest's settings in the spec's metadata form; channel
    // steps have none.
    assert_eq!(
        jobs[2]["step"]["metadata"],
        json!({"type": "regular", "amount": 5, "unit": "minutes", "digestKey": "orderId", "backoff": false})
    );
    assert!(jobs[1]["step"].get("metadata").is_none() && jobs[3]["step"].get("metadata").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listing_shows_each_event_with_subscriber_template_and_jobs_in_order() {
    let server = TestServer::start().await;
    let env = Env::main(&server);
    let sub = subscriber(&server, &env, "user-1", Some("ada@example.com")).await;
    let flow = workflow(
        &server,
        &env,
        "Order shipped",
        "high",
        &[("Inbox", "in_app"), ("Batch", "digest"), ("Mail", "email")],
    )
    .await;
    let at = Utc::now() - Duration::hours(1);
    let inserted = event(&server, &env, &sub, &flow, "txn-1", at).await;

    let (status, body) = server.get_json("/v1/notifications").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(keys(&body), ["data", "hasMore", "page", "pageSize"]);
    assert_eq!((&body["hasMore"], &body["page"], &body["pageSize"]), (&json!(false), &json!(0), &json!(10)));
    let events = body["data"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{body}");
    assert_event_shape(&events[0], &inserted, &sub, &flow, at);
    assert_eq!(events[0]["_environmentId"], server.environment_id.to_string());
    assert_eq!(events[0]["_organizationId"], server.organization_id.to_string());
}

#[tokio::test(flavor = "multi_thread")]
async fn retrieving_an_event_returns_it_bare_with_jobs_and_execution_details() {
    let server = TestServer::start().await;
    let env = Env::main(&server);
    let sub = subscriber(&server, &env, "user-1", Some("ada@example.com")).await;
    let flow = workflow(
        &server,
        &env,
        "Order shipped",
        "high",
        &[("Inbox", "in_app"), ("Batch", "digest"), ("Mail", "email")],
    )
    .await;
    let at = Utc::now() - Duration::minutes(5);
    let inserted = event(&server, &env, &sub, &flow, "txn-1", at).await;

    let (status, body) = server.get_json(&format!("/v1/notifications/{}", inserted.id)).await;
    assert_eq!(status, 200, "{body}");
    assert_event_shape(&body, &inserted, &sub, &flow, at);
    let (_, listing) = server.get_json("/v1/notifications").await;
    assert_eq!(listing["data"][0], body, "the listing and the retrieval show the same event");

    let unknown = Uuid::now_v7();
    let (status, body) = server.get_json(&format!("/v1/notifications/{unknown}")).await;
    assert_eq!(status, 404, "{body}");
    assert!(body["message"].as_str().unwrap().contains(&unknown.to_string()), "{body}");
    let (status, body) = server.get_json("/v1/notifications/not-a-uuid").await;
    assert_eq!(status, 404, "{body}");
    assert!(body["message"].as_str().unwrap().contains("not-a-uuid"), "{body}");
}

/// Four events over three subscribers and three workflows, newest last:
/// e1 ada/Orders(high: in_app, email), e2 bob/Digests(low: digest, sms), e3 cy/Chat(none: chat),
/// e4 ada/Digests.
struct World {
    server: TestServer,
    e: Vec<InsertedEvent>,
    flows: Vec<Value>,
    subs: Vec<Value>,
}

async fn world() -> World {
    let server = TestServer::start().await;
    let env = Env::main(&server);
    let subs = vec![
        subscriber(&server, &env, "user-1", Some("ada@example.com")).await,
        subscriber(&server, &env, "user-2", Some("bob@example.com")).await,
        subscriber(&server, &env, "user-3", None).await,
    ];
    let flows = vec![
        workflow(&server, &env, "Orders", "high", &[("Inbox", "in_app"), ("Mail", "email")]).await,
        workflow(&server, &env, "Digests", "low", &[("Batch", "digest"), ("Text", "sms")]).await,
        workflow(&server, &env, "Chat", "none", &[("Post", "chat")]).await,
    ];
    let now = Utc::now();
    let mut e = Vec::new();
    for (index, (sub, flow, txn)) in
        [(0, 0, "txn-a"), (1, 1, "txn-b"), (2, 2, "txn-c"), (0, 1, "txn-d")].into_iter().enumerate()
    {
        let at = now - Duration::minutes(10 - index as i64);
        e.push(event(&server, &env, &subs[sub], &flows[flow], txn, at).await);
    }
    World { server, e, flows, subs }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_channels_filter_matches_events_having_a_job_of_that_type() {
    let World { server, e, .. } = world().await;
    assert_eq!(listed(&server, "").await, ids(&[&e[3], &e[2], &e[1], &e[0]]), "newest first");
    assert_eq!(listed(&server, "?channels=email").await, ids(&[&e[0]]));
    assert_eq!(listed(&server, "?channels=sms").await, ids(&[&e[3], &e[1]]));
    assert_eq!(listed(&server, "?channels=email&channels=chat").await, ids(&[&e[2], &e[0]]));
    assert_eq!(listed(&server, "?channels[]=digest").await, ids(&[&e[3], &e[1]]));
    assert_eq!(listed(&server, "?channels=trigger").await.len(), 4);
    assert!(listed(&server, "?channels=push").await.is_empty());
    let (status, body) = server.get_json("/v1/notifications?channels=email&channels=fax").await;
    assert_invalid_fields(status, &body, &["channels"]);
    assert_eq!(body["errors"]["channels"]["value"], json!(["fax"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_templates_filter_takes_workflow_ids() {
    let World { server, e, flows, .. } = world().await;
    let id = |index: usize| flows[index]["_id"].as_str().unwrap().to_string();
    assert_eq!(listed(&server, &format!("?templates={}", id(1))).await, ids(&[&e[3], &e[1]]));
    assert_eq!(listed(&server, &format!("?templates={}&templates={}", id(0), id(2))).await, ids(&[&e[2], &e[0]]));
    assert!(listed(&server, &format!("?templates={}", Uuid::now_v7())).await.is_empty());
    let (status, body) = server.get_json("/v1/notifications?templates=orders").await;
    assert_invalid_fields(status, &body, &["templates"]);
    assert_eq!(body["errors"]["templates"]["value"], json!(["orders"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_emails_filter_matches_the_subscribers_email_exactly() {
    let World { server, e, .. } = world().await;
    assert_eq!(listed(&server, "?emails=ada@example.com").await, ids(&[&e[3], &e[0]]));
    assert_eq!(listed(&server, "?emails=bob@example.com&emails=ada@example.com").await, ids(&[&e[3], &e[1], &e[0]]));
    assert!(listed(&server, "?emails=ADA@example.com").await.is_empty(), "exact match");
    assert!(listed(&server, "?emails=ada@").await.is_empty(), "not a substring");
    assert!(listed(&server, "?emails=nobody@example.com").await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_subscriber_ids_filter_takes_the_clients_ids() {
    let World { server, e, subs, .. } = world().await;
    assert_eq!(listed(&server, "?subscriberIds=user-2").await, ids(&[&e[1]]));
    assert_eq!(listed(&server, "?subscriberIds=user-1&subscriberIds=user-3").await, ids(&[&e[3], &e[2], &e[0]]));
    let internal = subs[0]["_id"].as_str().unwrap();
    assert!(listed(&server, &format!("?subscriberIds={internal}")).await.is_empty(), "internal ids are not clients'");
    assert!(listed(&server, "?subscriberIds=ghost").await.is_empty());
    assert_eq!(listed(&server, "?subscriberIds=user-1&channels=sms").await, ids(&[&e[3]]), "filters combine with AND");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_severity_filter_matches_the_events_severity() {
    let World { server, e, .. } = world().await;
    assert_eq!(listed(&server, "?severity=high").await, ids(&[&e[0]]));
    assert_eq!(listed(&server, "?severity=low&severity=none").await, ids(&[&e[3], &e[2], &e[1]]));
    assert!(listed(&server, "?severity=medium").await.is_empty());
    let (status, body) = server.get_json("/v1/notifications?severity=extreme").await;
    assert_invalid_fields(status, &body, &["severity"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_transaction_id_filter_matches_exactly() {
    let World { server, e, .. } = world().await;
    assert_eq!(listed(&server, "?transactionId=txn-b").await, ids(&[&e[1]]));
    assert!(listed(&server, "?transactionId=txn").await.is_empty(), "not a substring");
    assert!(listed(&server, "?transactionId=txn-zzz").await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_deprecated_search_and_topic_key_behave_as_documented() {
    let World { server, e, .. } = world().await;
    assert_eq!(listed(&server, "?search=txn-c").await, ids(&[&e[2]]), "transactionId substring");
    assert_eq!(listed(&server, "?search=bob%40").await, ids(&[&e[1]]), "email substring");
    assert_eq!(listed(&server, "?search=user-1").await, ids(&[&e[3], &e[0]]), "subscriberId substring");
    assert_eq!(listed(&server, "?search=txn-").await.len(), 4);
    assert!(listed(&server, "?search=nothing").await.is_empty());
    assert!(listed(&server, "?search=%25").await.is_empty(), "LIKE wildcards match literally");
    // These events were triggered to subscribers alone (topics/fanout.rs lists events sent to topics).
    assert!(listed(&server, "?topicKey=news").await.is_empty(), "none of these was sent to a topic");
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_walk_newest_first_without_duplicates() {
    let server = TestServer::start().await;
    let env = Env::main(&server);
    let sub = subscriber(&server, &env, "user-1", None).await;
    let flow = workflow(&server, &env, "Orders", "none", &[("Inbox", "in_app")]).await;
    let now = Utc::now();
    let mut inserted = Vec::new();
    for minutes in [7, 6, 5, 4, 4, 2, 1] {
        // Two events share a timestamp: `_id` orders them.
        inserted.push(
            event(&server, &env, &sub, &flow, &format!("t-{}", inserted.len()), now - Duration::minutes(minutes)).await,
        );
    }
    // Newest first; of the two at 4 minutes, the later-inserted (greater `_id`) comes first.
    let expected: Vec<String> = inserted.iter().rev().map(|event| event.id.to_string()).collect();
    assert_eq!(listed(&server, "").await, expected, "createdAt then _id, descending");

    let mut seen = Vec::new();
    for (page, (size, more)) in [(3, true), (3, true), (1, false)].into_iter().enumerate() {
        let (status, body) = server.get_json(&format!("/v1/notifications?page={page}&limit=3.0")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"].as_array().unwrap().len(), size, "{body}");
        assert_eq!((&body["hasMore"], &body["page"], &body["pageSize"]), (&json!(more), &json!(page), &json!(3)));
        seen.extend(body["data"].as_array().unwrap().iter().map(|event| event["_id"].as_str().unwrap().to_string()));
    }
    assert_eq!(seen, expected, "every event once, in order");
    let (_, beyond) = server.get_json("/v1/notifications?page=3&limit=3").await;
    assert_eq!((&beyond["data"], &beyond["hasMore"]), (&json!([]), &json!(false)));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_time_window_defaults_to_the_retention_period_and_now() {
    let server = TestServer::start().await;
    let env = Env::main(&server);
    let sub = subscriber(&server, &env, "user-1", None).await;
    let flow = workflow(&server, &env, "Orders", "none", &[("Inbox", "in_app")]).await;
    let now = Utc::now();
    let old = event(&server, &env, &sub, &flow, "old", now - Duration::days(31)).await;
    let month = event(&server, &env, &sub, &flow, "month", now - Duration::days(29)).await;
    let hour = event(&server, &env, &sub, &flow, "hour", now - Duration::hours(1)).await;
    let future = event(&server, &env, &sub, &flow, "future", now + Duration::hours(1)).await;

    assert_eq!(listed(&server, "").await, ids(&[&hour, &month]), "after: now - 30 days; before: now");
    let after = millis(now - Duration::days(40));
    assert_eq!(listed(&server, &format!("?after={after}")).await, ids(&[&hour, &month, &old]));
    let before = millis(now - Duration::days(2));
    assert_eq!(listed(&server, &format!("?before={before}")).await, ids(&[&month]));
    let (after, before) = (millis(now - Duration::hours(30)), millis(now + Duration::hours(2)));
    assert_eq!(listed(&server, &format!("?after={after}&before={before}")).await, ids(&[&future, &hour]));
    let day = (now - Duration::days(35)).format("%Y-%m-%d");
    assert_eq!(listed(&server, &format!("?after={day}")).await, ids(&[&hour, &month, &old]), "a bare date");

    let (status, body) = server.get_json("/v1/notifications?after=yesterday&before=2026-13-40").await;
    assert_invalid_fields(status, &body, &["after", "before"]);
    assert_eq!(body["errors"]["after"]["value"], "yesterday");
}

#[tokio::test(flavor = "multi_thread")]
async fn page_and_limit_outside_their_ranges_are_422_naming_every_field() {
    let server = TestServer::start().await;
    let (status, body) = server.get_json("/v1/notifications?page=-1&limit=0").await;
    assert_invalid_fields(status, &body, &["limit", "page"]);
    assert_eq!((&body["errors"]["page"]["value"], &body["errors"]["limit"]["value"]), (&json!(-1), &json!(0)));
    let (status, body) = server.get_json("/v1/notifications?limit=51").await;
    assert_invalid_fields(status, &body, &["limit"]);
    let (status, body) = server.get_json("/v1/notifications?page=-1&limit=51&templates=x").await;
    assert_invalid_fields(status, &body, &["limit", "page", "templates"]);
    let (status, body) = server.get_json("/v1/notifications?limit=ten").await;
    assert_invalid_fields(status, &body, &["limit"]);
    for fine in ["?limit=50", "?limit=1&page=0", "?limit=50.0&page=1000"] {
        let (status, body) = server.get_json(&format!("/v1/notifications{fine}")).await;
        assert_eq!(status, 200, "{fine}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn environments_never_see_each_others_events() {
    let server = TestServer::start().await;
    let main = Env::main(&server);
    let other = Env::other(&server, "production").await;
    let main_sub = subscriber(&server, &main, "user-1", Some("ada@example.com")).await;
    let other_sub = subscriber(&server, &other, "user-1", Some("ada@example.com")).await;
    let main_flow = workflow(&server, &main, "Orders", "high", &[("Inbox", "in_app")]).await;
    let other_flow = workflow(&server, &other, "Orders", "high", &[("Inbox", "in_app")]).await;
    let at = Utc::now() - Duration::minutes(1);
    let mine = event(&server, &main, &main_sub, &main_flow, "txn-1", at).await;
    let theirs = event(&server, &other, &other_sub, &other_flow, "txn-1", at).await;

    for query in ["", "?subscriberIds=user-1", "?emails=ada@example.com", "?transactionId=txn-1", "?search=txn"] {
        assert_eq!(listed(&server, query).await, ids(&[&mine]), "{query}");
        let (status, body) = other.get(&server, &format!("/v1/notifications{query}")).await;
        assert_eq!(status, 200);
        assert_eq!(body["data"][0]["_id"], theirs.id.to_string(), "{query}");
        assert_eq!(body["data"].as_array().unwrap().len(), 1, "{query}");
    }
    let other_template = other_flow["_id"].as_str().unwrap();
    assert!(listed(&server, &format!("?templates={other_template}")).await.is_empty());

    let (status, body) = server.get_json(&format!("/v1/notifications/{}", theirs.id)).await;
    assert_eq!(status, 404, "another environment's event is unknown here: {body}");
    let (status, body) = other.get(&server, &format!("/v1/notifications/{}", theirs.id)).await;
    assert_eq!((status, &body["_environmentId"]), (200, &json!(other.environment_id.to_string())));
}

#[tokio::test(flavor = "multi_thread")]
async fn every_activity_and_message_rpc_succeeds_and_fails_over_grpc() {
    use pb::messages_service_client::MessagesServiceClient;
    use pb::notifications_service_client::NotificationsServiceClient;
    use tonic_types::StatusExt;

    let server = TestServer::start().await;
    let env = Env::main(&server);
    let sub = subscriber(&server, &env, "user-1", Some("ada@example.com")).await;
    let flow = workflow(&server, &env, "Orders", "high", &[("Inbox", "in_app"), ("Mail", "email")]).await;
    let inserted = event(&server, &env, &sub, &flow, "txn-1", Utc::now() - Duration::minutes(2)).await;
    let spec = MessageSpec {
        subscriber: &sub,
        workflow: &flow,
        channel: "in_app",
        transaction_id: "txn-2",
        created_at: Utc::now() - Duration::minutes(1),
    };
    let message_id = message(&server, &env, spec).await;

    let mut notifications = NotificationsServiceClient::new(server.grpc_channel().await);
    let page = notifications
        .list_notifications(server.grpc_request(pb::ListNotificationsRequest {
            channels: vec![pb::step_type_enum::StepType::Email as i32],
            subscriber_ids: vec!["user-1".into()],
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((page.data.len(), page.page_size, page.has_more), (1, 10, false));
    assert_eq!(page.data[0].id, inserted.id.to_string());
    assert_eq!(page.data[0].jobs.len(), 3);
    let invalid = notifications
        .list_notifications(server.grpc_request(pb::ListNotificationsRequest {
            page: Some(-1),
            limit: Some(51),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(invalid.code(), Code::InvalidArgument);
    let violations = invalid.get_details_bad_request().expect("field violations").field_violations;
    let fields: Vec<&str> = violations.iter().map(|violation| violation.field.as_str()).collect();
    assert_eq!(fields, ["page", "limit"]);
    let unknown_channel = notifications
        .list_notifications(
            server.grpc_request(pb::ListNotificationsRequest { channels: vec![42], ..Default::default() }),
        )
        .await
        .unwrap_err();
    assert_eq!(unknown_channel.code(), Code::InvalidArgument);
    assert!(unknown_channel.message().contains("42"), "{unknown_channel:?}");

    let found = notifications
        .get_notification(server.grpc_request(pb::GetNotificationRequest { notification_id: inserted.id.to_string() }))
        .await
        .unwrap()
        .into_inner()
        .notification
        .unwrap();
    assert_eq!(found, page.data[0]);
    let missing = notifications
        .get_notification(server.grpc_request(pb::GetNotificationRequest { notification_id: "nope".into() }))
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);

    let mut messages = MessagesServiceClient::new(server.grpc_channel().await);
    let listed = messages
        .list_messages(server.grpc_request(pb::ListMessagesRequest {
            channel: Some(pb::channel_type_enum::ChannelType::InApp as i32),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((listed.total_count, listed.data.len()), (Some(1), 1));
    assert_eq!(listed.data[0].id, message_id.to_string());
    assert!(listed.data[0].context_keys.is_empty(), "context keys belong to the mark-as answer");
    let too_many = messages
        .list_messages(server.grpc_request(pb::ListMessagesRequest { limit: Some(1001), ..Default::default() }))
        .await
        .unwrap_err();
    assert_eq!(too_many.code(), Code::InvalidArgument);

    let marked = messages
        .mark_messages_as(server.grpc_request(pb::MarkMessagesAsRequest {
            subscriber_id: "user-1".into(),
            message_id: vec![message_id.to_string()],
            mark_as: pb::mark_as_enum::MarkAs::Read as i32,
        }))
        .await
        .unwrap()
        .into_inner()
        .messages;
    assert_eq!(marked.len(), 1);
    assert!(marked[0].read && marked[0].seen);
    assert_eq!(marked[0].context_keys, ["tenant:acme"]);
    let unknown = messages
        .mark_messages_as(server.grpc_request(pb::MarkMessagesAsRequest {
            subscriber_id: "ghost".into(),
            message_id: vec![message_id.to_string()],
            mark_as: pb::mark_as_enum::MarkAs::Read as i32,
        }))
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Code::NotFound);
}

#[tokio::test(flavor = "multi_thread")]
async fn subscriber_and_topic_filters_read_an_environment_newer_than_the_statistics_once() {
    // Statistics taken while the main environment alone had events: the planner believes the other has
    // none. Its subscriber filters, as subqueries, re-read all of that environment's subscribers (and
    // `topicKey` all of its fan-outs) for every event walked: about 2 × 301 × 301 rows a listing; and
    // each page's subscribers were found by walking all of the environment's.
    let server = TestServer::start().await;
    let main = Env::main(&server);
    let flow = workflow(&server, &main, "Orders", "none", &[("Inbox", "in_app")]).await;
    let ada = subscriber(&server, &main, "user-1", Some("ada@example.com")).await;
    let mine = event(&server, &main, &ada, &flow, "mine", Utc::now()).await;
    copy_event_with_its_subscriber(&server, mine.id, 2_000).await;
    let mut conn = AsyncPgConnection::establish(&server.database_url).await.unwrap();
    conn.batch_execute("ANALYZE subscribers; ANALYZE notifications; ANALYZE topic_fanouts").await.unwrap();
    let other = Env::other(&server, "production").await;
    let their_flow = workflow(&server, &other, "Orders", "none", &[("Inbox", "in_app")]).await;
    let their_ada = subscriber(&server, &other, "user-1", Some("ada@example.com")).await;
    let theirs = event(&server, &other, &their_ada, &their_flow, "theirs", Utc::now()).await;
    copy_event_with_its_subscriber(&server, theirs.id, 300).await;

    // The transaction's own statistics count the rows it read.
    conn.begin_test_transaction().await.unwrap();
    let tenant = Tenant { organization_id: other.organization_id, environment_id: other.environment_id };
    let queries = [
        EventQuery { subscriber_ids: vec!["user-1-7".into()], ..Default::default() },
        EventQuery { emails: vec!["7-ada@example.com".into()], ..Default::default() },
    ];
    for query in queries {
        let page = list_notifications(&mut conn, tenant, query.clone()).await.unwrap();
        let listed: Vec<&str> = page.events.iter().map(|event| event.notification.transaction_id.as_str()).collect();
        assert_eq!(listed, ["theirs-7"], "{query:?}");
    }
    // A page's subscribers are read by their ids, not by walking the environment's.
    let before = rows_read_in_transaction(&mut conn, &["subscribers"]).await;
    let topic = EventQuery { topic_key: Some("news".into()), ..Default::default() };
    let page = list_notifications(&mut conn, tenant, topic).await.unwrap();
    assert_eq!((page.events.len(), page.has_more), (10, true), "300 events sent to the topic");
    let subscribers_read = rows_read_in_transaction(&mut conn, &["subscribers"]).await - before;
    assert!(subscribers_read <= 20, "a page of 10 events read {subscribers_read} subscribers (of 301)");
    let unknown = EventQuery { topic_key: Some("sports".into()), ..Default::default() };
    assert!(list_notifications(&mut conn, tenant, unknown).await.unwrap().events.is_empty());
    let read = rows_read_in_transaction(&mut conn, &["notifications", "subscribers", "topic_fanouts"]).await;
    assert!(read <= 5_000, "four listings among 301 events read {read} rows");
}

/// Stores `copies` copies of event `id`, each for a copy of its subscriber (subscriberId
/// `<its subscriberId>-1`, email `1-<its email>`, …) and with the transactionId `<its transactionId>-1`,
/// …, sent to the topic `news` (a completed fan-out), in one statement.
async fn copy_event_with_its_subscriber(server: &TestServer, id: Uuid, copies: i32) {
    let mut conn = server.pool.get().await.unwrap();
    diesel::sql_query(
        "WITH source AS (
             SELECT n AS notification, s AS subscriber FROM notifications n JOIN subscribers s ON s.id = n.subscriber_id
             WHERE n.id = $1),
         copies AS (
             SELECT gen_random_uuid() AS subscriber_id, (notification).transaction_id || '-' || g AS transaction_id,
                    source.*, g
             FROM source, generate_series(1, $2) g),
         subscribed AS (
             INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, email)
             SELECT subscriber_id, (subscriber).environment_id, (subscriber).organization_id,
                    (subscriber).subscriber_id || '-' || g, g || '-' || (subscriber).email
             FROM copies),
         fanned_out AS (
             INSERT INTO topic_fanouts (id, environment_id, organization_id, transaction_id, topic_keys, template,
                                        accepted_at, status, run_at)
             SELECT gen_random_uuid(), (notification).environment_id, (notification).organization_id,
                    transaction_id, '{news}', '{}', now(), 'completed', now()
             FROM copies)
         INSERT INTO notifications
         SELECT (jsonb_populate_record(NULL::notifications, to_jsonb(notification) || jsonb_build_object(
             'id', gen_random_uuid(), 'subscriber_id', subscriber_id, 'transaction_id', transaction_id))).*
         FROM copies",
    )
    .bind::<SqlUuid, _>(id)
    .bind::<Integer, _>(copies)
    .execute(&mut conn)
    .await
    .unwrap();
}
