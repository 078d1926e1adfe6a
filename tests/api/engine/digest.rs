//! Digest steps: race-free merging under concurrent triggers, keys, backoff, timed windows in the
//! subscriber's timezone, several digests in one workflow. Windows close by moving the engine's clock.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use futures_util::StreamExt;
use serde_json::{json, Value};

use super::fixtures::*;
use crate::support::TestServer;
use herald::db::schema::{jobs, messages};

/// An in-app step listing what the digest before it collected.
fn digest_summary_step(name: &str) -> Value {
    json!({"name": name, "type": "in_app", "controlValues": {
        "body": "{{ step.total_count }} updates:{% for event in step.events %} {{ event.n }}{% endfor %}"
    }})
}

fn digest_step(controls: Value) -> Value {
    json!({"name": "Digest", "type": "digest", "controlValues": controls})
}

/// The bodies of every message of the environment, oldest first.
async fn message_bodies(server: &TestServer) -> Vec<String> {
    let mut conn = server.pool.get().await.unwrap();
    let contents: Vec<Option<Value>> = messages::table
        .filter(messages::environment_id.eq(server.environment_id))
        .order((messages::created_at, messages::id))
        .select(messages::content)
        .load(&mut conn)
        .await
        .unwrap();
    contents
        .into_iter()
        .map(|content| content.and_then(|c| c.as_str().map(str::to_string)).unwrap_or_default())
        .collect()
}

/// The numbers a digest summary message lists, sorted.
fn listed_numbers(body: &str) -> Vec<i64> {
    let (_, list) = body.split_once(':').unwrap();
    let mut numbers: Vec<i64> = list.split_whitespace().map(|n| n.parse().unwrap()).collect();
    numbers.sort_unstable();
    numbers
}

async fn job_statuses(server: &TestServer, kind: &str) -> Vec<String> {
    let mut conn = server.pool.get().await.unwrap();
    let mut statuses: Vec<String> = jobs::table
        .filter(jobs::environment_id.eq(server.environment_id))
        .filter(jobs::type_.eq(kind))
        .select(jobs::status)
        .load(&mut conn)
        .await
        .unwrap();
    statuses.sort();
    statuses
}

fn count(statuses: &[String], status: &str) -> usize {
    statuses.iter().filter(|s| *s == status).count()
}

#[tokio::test(flavor = "multi_thread")]
async fn five_hundred_concurrent_triggers_make_exactly_one_digest_holding_every_payload() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "burst",
        json!([
            digest_step(json!({"type": "regular", "amount": 10, "unit": "minutes"})),
            digest_summary_step("Summary")
        ]),
    )
    .await;
    let transactions: Vec<String> = futures_util::stream::iter(0..500)
        .map(|n| {
            let server = &server;
            async move { trigger_processed(server, json!({"name": "burst", "to": "ada", "payload": {"n": n}})).await }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    wait_until_only_waiting(&server).await;
    let digests = job_statuses(&server, "digest").await;
    assert_eq!((count(&digests, "delayed"), count(&digests, "merged")), (1, 499), "{digests:?}");
    assert!(message_bodies(&server).await.is_empty(), "nothing is sent before the window closes");

    server.clock.advance(TimeDelta::minutes(10) + TimeDelta::seconds(1));
    wait_until_settled(&server).await;
    let bodies = message_bodies(&server).await;
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert!(bodies[0].starts_with("500 updates:"), "{}", bodies[0]);
    assert_eq!(listed_numbers(&bodies[0]), (0..500).collect::<Vec<_>>());
    let summaries = job_statuses(&server, "in_app").await;
    assert_eq!((count(&summaries, "completed"), count(&summaries, "merged")), (1, 499));

    // The activity API: the window's digest job lists all 500 events in arrival order; merged events
    // point at the digest's notification.
    let mut window_event = None;
    let mut merged_events = Vec::new();
    for transaction_id in &transactions {
        let event = events_of(&server, transaction_id).await.remove(0);
        if job(&event, "digest")["status"] == "completed" {
            window_event = Some(event);
        } else {
            merged_events.push(event);
        }
    }
    let window_event = window_event.expect("one digest completed");
    let digest = &job(&window_event, "digest")["digest"];
    assert_eq!(digest["type"], "regular");
    assert_eq!((digest["amount"].clone(), digest["unit"].clone()), (json!(10), json!("minutes")));
    assert_eq!(digest["events"].as_array().unwrap().len(), 500);
    assert_eq!(merged_events.len(), 499);
    for event in &merged_events {
        assert_eq!(event["_digestedNotificationId"], window_event["_id"]);
        assert_eq!(job(event, "digest")["status"], "merged");
        assert_eq!(job(event, "in_app")["status"], "merged");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn events_are_listed_in_arrival_order_and_different_keys_never_merge() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "per-post",
        json!([
            digest_step(json!({"type": "regular", "amount": 5, "unit": "minutes", "digestKey": "post.id"})),
            digest_summary_step("Summary")
        ]),
    )
    .await;
    // Sequential triggers: arrival order is known. Post "1", the number 1, and no post are three keys.
    let posts = [json!("1"), json!("2"), json!("1"), json!(1), Value::Null, json!("2"), json!("1")];
    for (n, post) in posts.iter().enumerate() {
        let payload = if post.is_null() { json!({"n": n}) } else { json!({"n": n, "post": {"id": post}}) };
        trigger_processed(&server, json!({"name": "per-post", "to": "ada", "payload": payload})).await;
    }
    wait_until_only_waiting(&server).await;
    server.clock.advance(TimeDelta::minutes(5) + TimeDelta::seconds(1));
    wait_until_settled(&server).await;

    let mut bodies = message_bodies(&server).await;
    bodies.sort();
    assert_eq!(bodies, ["1 updates: 3", "1 updates: 4", "2 updates: 1 5", "3 updates: 0 2 6"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn backoff_sends_a_lone_event_at_once_and_digests_a_burst() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "backoff",
        json!([
            digest_step(json!({"type": "backoff", "amount": 5, "unit": "minutes",
                               "lookBackWindow": {"amount": 1, "unit": "minutes"}})),
            digest_summary_step("Summary")
        ]),
    )
    .await;
    let first = trigger_processed(&server, json!({"name": "backoff", "to": "ada", "payload": {"n": 1}})).await;
    wait_until_only_waiting(&server).await;
    assert_eq!(message_bodies(&server).await, ["1 updates: 1"], "nothing recent: sent at once");
    let event = &events_of(&server, &first).await[0];
    assert_eq!(job(event, "digest")["status"], "skipped");
    assert_eq!(job(event, "digest")["digest"]["backoff"], true);
    assert_eq!(job(event, "digest")["digest"]["backoffUnit"], "minutes");

    // Two more within the look-back minute: the first of them opens a window, the second joins it.
    for n in [2, 3] {
        trigger_processed(&server, json!({"name": "backoff", "to": "ada", "payload": {"n": n}})).await;
    }
    wait_until_only_waiting(&server).await;
    assert_eq!(message_bodies(&server).await.len(), 1, "the burst waits for its window");
    server.clock.advance(TimeDelta::minutes(5) + TimeDelta::seconds(1));
    wait_until_settled(&server).await;
    assert_eq!(message_bodies(&server).await, ["1 updates: 1", "2 updates: 2 3"]);

    // Quiet for longer than the look-back window: the next event goes on at once again.
    server.clock.advance(TimeDelta::minutes(2));
    trigger_processed(&server, json!({"name": "backoff", "to": "ada", "payload": {"n": 4}})).await;
    wait_until_settled(&server).await;
    assert_eq!(message_bodies(&server).await.last().unwrap(), "1 updates: 4");
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timed_digest_closes_at_the_next_cron_time_in_the_subscribers_timezone() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "morning",
        json!([digest_step(json!({"type": "timed", "cron": "0 9 * * 1-5"})), digest_summary_step("Summary")]),
    )
    .await;
    // Friday 2026-12-04 22:00 UTC is 17:00 in New York: the next weekday 09:00 there is Monday
    // 2026-12-07 09:00 EST, 14:00 UTC.
    server.clock.set(at("2026-12-04T22:00:00Z"));
    let ada = json!({"subscriberId": "ada", "timezone": "America/New_York"});
    let first = trigger_processed(&server, json!({"name": "morning", "to": ada, "payload": {"n": 1}})).await;
    let second = trigger_processed(&server, json!({"name": "morning", "to": "ada", "payload": {"n": 2}})).await;
    wait_until_only_waiting(&server).await;
    // Two workers may run the two digest steps at once: the one decided first opens the window.
    let mut digests = Vec::new();
    for transaction_id in [&first, &second] {
        digests.push(job(&events_of(&server, transaction_id).await[0], "digest").clone());
    }
    let mut statuses: Vec<&str> = digests.iter().map(|digest| digest["status"].as_str().unwrap()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, ["delayed", "merged"]);
    let window = digests.iter().find(|digest| digest["status"] == "delayed").unwrap();
    assert_eq!(details(window), ["Digest window opened until 2026-12-07T14:00:00Z"]);
    assert_eq!(window["digest"]["type"], "timed");
    assert_eq!(window["digest"]["timed"]["cronExpression"], "0 9 * * 1-5");

    server.clock.set(at("2026-12-07T13:59:00Z"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    wait_until_only_waiting(&server).await;
    assert!(message_bodies(&server).await.is_empty(), "08:59 in New York: still open");
    server.clock.set(at("2026-12-07T14:00:01Z"));
    wait_until_settled(&server).await;
    assert_eq!(message_bodies(&server).await, ["2 updates: 1 2"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delay_then_two_digests_each_feed_the_steps_after_them() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "two-digests",
        json!([
            {"name": "Wait", "type": "delay", "controlValues": {"type": "regular", "amount": 1, "unit": "minutes"}},
            digest_step(json!({"type": "regular", "amount": 5, "unit": "minutes"})),
            digest_summary_step("First"),
            {"name": "Second digest", "type": "digest", "controlValues": {"type": "regular", "amount": 30, "unit": "minutes"}},
            digest_summary_step("Second")
        ]),
    )
    .await;
    for n in [1, 2, 3] {
        trigger_processed(&server, json!({"name": "two-digests", "to": "ada", "payload": {"n": n}})).await;
    }
    wait_until_only_waiting(&server).await;
    assert_eq!(count(&job_statuses(&server, "delay").await, "delayed"), 3);
    assert_eq!(count(&job_statuses(&server, "digest").await, "pending"), 6, "no digest before the delay ends");

    server.clock.advance(TimeDelta::minutes(1) + TimeDelta::seconds(1));
    wait_until_only_waiting(&server).await;
    let digests = job_statuses(&server, "digest").await;
    // One window; the two events merged into it take their second digest along (merged, never run).
    let counts = (count(&digests, "delayed"), count(&digests, "merged"), count(&digests, "pending"));
    assert_eq!(counts, (1, 4, 1), "{digests:?}");

    server.clock.advance(TimeDelta::minutes(5));
    wait_until_only_waiting(&server).await;
    assert_eq!(message_bodies(&server).await, ["3 updates: 1 2 3"]);

    // Only the first window's notification reaches the second digest: it holds that one event.
    server.clock.advance(TimeDelta::minutes(30));
    wait_until_settled(&server).await;
    let bodies = message_bodies(&server).await;
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert!(bodies[1].starts_with("1 updates: "), "{bodies:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unusable_cron_is_refused_when_the_workflow_is_saved() {
    let server = TestServer::start().await;
    let body = json!({"workflowId": "bad-cron", "name": "bad-cron", "steps": [
        digest_step(json!({"type": "timed", "cron": "0 9 * * 9"}))
    ]});
    let (status, response) = server.send_json(reqwest::Method::POST, "/v2/workflows", &body).await;
    assert_eq!(status, 422, "{response}");
    assert_eq!(response["errors"]["steps[0].controlValues.cron"]["value"], "0 9 * * 9", "{response}");
    let (status, _) = server.get_json("/v2/workflows/bad-cron").await;
    assert_eq!(status, 404, "nothing was saved");
}

#[tokio::test(flavor = "multi_thread")]
async fn canceling_the_trigger_that_opened_a_window_hands_the_window_to_the_next_event() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "handover",
        json!([
            digest_step(json!({"type": "regular", "amount": 5, "unit": "minutes"})),
            digest_summary_step("Summary")
        ]),
    )
    .await;
    let mut transactions = Vec::new();
    for n in [1, 2, 3] {
        transactions
            .push(trigger_processed(&server, json!({"name": "handover", "to": "ada", "payload": {"n": n}})).await);
        wait_until_only_waiting(&server).await;
    }
    let (status, body) =
        server.send_json(reqwest::Method::DELETE, &format!("/v1/events/trigger/{}", transactions[0]), &json!({})).await;
    assert_eq!(status, 200, "{body}");
    let heir = &events_of(&server, &transactions[1]).await[0];
    assert_eq!(job(heir, "digest")["status"], "delayed");
    assert_eq!(job(heir, "in_app")["status"], "pending", "the heir's own later steps wait again");
    assert!(heir["_digestedNotificationId"].is_null(), "{heir}");
    let third = &events_of(&server, &transactions[2]).await[0];
    assert_eq!(third["_digestedNotificationId"], heir["_id"]);

    server.clock.advance(TimeDelta::minutes(5) + TimeDelta::seconds(1));
    wait_until_settled(&server).await;
    assert_eq!(message_bodies(&server).await, ["2 updates: 2 3"]);
    let canceled = &events_of(&server, &transactions[0]).await[0];
    assert_eq!(job(canceled, "digest")["status"], "canceled");
}
