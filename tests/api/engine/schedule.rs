//! The subscriber's weekly schedule: channel steps outside it are canceled, delays and digests with
//! `extendToSchedule` wait for it (at most three times), in-app steps and critical workflows are exempt,
//! and open hours follow the subscriber's timezone across DST changes.

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::*;
use super::receiver::Receiver;
use crate::support::TestServer;

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
}

/// Sets ada's schedule: open 09:00 to 17:00 on `days` only.
async fn open_only_on(server: &TestServer, days: &[&str]) {
    let week: serde_json::Map<String, Value> = days
        .iter()
        .map(|day| (day.to_string(), json!({"isEnabled": true, "hours": [{"start": "09:00", "end": "17:00"}]})))
        .collect();
    let body = json!({"schedule": {"isEnabled": true, "weeklySchedule": week}});
    let (status, response) = server.send_json(Method::PATCH, "/v2/subscribers/ada/preferences", &body).await;
    assert_eq!(status, 200, "{response}");
}

async fn create_ada(server: &TestServer, timezone: &str) {
    let ada = json!({"subscriberId": "ada", "firstName": "Ada", "email": "ada@example.com", "timezone": timezone});
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &ada).await;
    assert_eq!(status, 201, "{body}");
}

fn delay_step(extend: bool) -> Value {
    json!({"name": "Wait", "type": "delay",
           "controlValues": {"type": "regular", "amount": 1, "unit": "hours", "extendToSchedule": extend}})
}

fn critical(identifier: &str, steps: Value) -> Value {
    json!({"workflowId": identifier, "name": identifier, "active": true, "steps": steps,
           "preferences": {"workflow": {"all": {"enabled": true, "readOnly": true}}}})
}

#[tokio::test(flavor = "multi_thread")]
async fn outside_the_schedule_channel_steps_are_canceled_but_in_app_and_critical_workflows_go_through() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    email_integration(&server, &receiver).await;
    create_workflow(&server, "news", json!([in_app_step(), email_step()])).await;
    create_workflow_with(&server, critical("security", json!([delay_step(true), email_step()]))).await;
    create_ada(&server, "UTC").await;
    open_only_on(&server, &["monday", "tuesday", "wednesday", "thursday", "friday"]).await;

    server.clock.set(at("2026-11-28T12:00:00Z")); // a Saturday
    let news = trigger_processed(&server, json!({"name": "news", "to": "ada", "payload": {"orderId": "1"}})).await;
    let security = trigger_processed(&server, json!({"name": "security", "to": "ada"})).await;
    wait_until_only_waiting(&server).await;
    let event = &events_of(&server, &news).await[0];
    assert_eq!(job(event, "in_app")["status"], "completed", "in-app steps are exempt");
    assert_eq!(job(event, "email")["status"], "canceled");
    assert_eq!(
        details(job(event, "email")),
        ["Step canceled: outside the subscriber's schedule (timezone UTC; it opens next at 2026-11-30T09:00:00Z)"]
    );
    let event = &events_of(&server, &security).await[0];
    assert_eq!(job(event, "delay")["scheduleExtensionsCount"], 0, "critical delays are not extended");

    server.clock.set(at("2026-11-28T13:00:01Z"));
    wait_until_settled(&server).await;
    let event = &events_of(&server, &security).await[0];
    assert_eq!(job(event, "email")["status"], "completed", "critical workflows ignore the schedule");
    assert_eq!(receiver.received().len(), 1);

    // Inside the schedule the same workflow sends.
    server.clock.set(at("2026-11-30T10:00:00Z"));
    let monday = trigger_processed(&server, json!({"name": "news", "to": "ada", "payload": {"orderId": "2"}})).await;
    wait_until_settled(&server).await;
    assert_eq!(job(&events_of(&server, &monday).await[0], "email")["status"], "completed");
    assert_eq!(receiver.received().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delay_extends_to_the_schedule_at_most_three_times() {
    let server = TestServer::start().await;
    create_workflow(&server, "later", json!([delay_step(true), in_app_step()])).await;
    create_ada(&server, "UTC").await;
    open_only_on(&server, &["monday"]).await;

    server.clock.set(at("2026-11-28T12:00:00Z")); // Saturday: the delay would end at 13:00, closed
    let transaction_id =
        trigger_processed(&server, json!({"name": "later", "to": "ada", "payload": {"orderId": "x"}})).await;
    wait_until_only_waiting(&server).await;
    let delay = |event: &Value| job(event, "delay").clone();
    let event = &events_of(&server, &transaction_id).await[0];
    assert_eq!(delay(event)["status"], "delayed");
    assert_eq!(delay(event)["scheduleExtensionsCount"], 1);
    assert_eq!(
        details(&delay(event)).last().unwrap(),
        "Extended to the subscriber's schedule: 2026-11-28T13:00:00Z is outside it, waiting until \
         2026-11-30T09:00:00Z (extension 1 of 3)"
    );

    // The schedule moves on each time the delay ends: extended again, twice, then the limit is reached.
    for (day, ends_at, count) in [("tuesday", "2026-11-30T09:00:01Z", 2), ("wednesday", "2026-12-01T09:00:01Z", 3)] {
        open_only_on(&server, &[day]).await;
        server.clock.set(at(ends_at));
        wait_until_only_waiting(&server).await;
        let event = &events_of(&server, &transaction_id).await[0];
        assert_eq!(delay(event)["status"], "delayed", "{day}");
        assert_eq!(delay(event)["scheduleExtensionsCount"], count, "{day}");
        assert!(messages_of(&server, &transaction_id).await.is_empty());
    }
    open_only_on(&server, &["thursday"]).await;
    server.clock.set(at("2026-12-02T09:00:01Z"));
    wait_until_settled(&server).await;
    let event = &events_of(&server, &transaction_id).await[0];
    assert_eq!(delay(event)["status"], "completed");
    assert_eq!(delay(event)["scheduleExtensionsCount"], 3);
    let texts = details(&delay(event));
    assert_eq!(
        texts[texts.len() - 2..],
        ["Outside the subscriber's schedule, but already extended 3 times; going on", "Delay finished"]
    );
    assert_eq!(messages_of(&server, &transaction_id).await.len(), 1, "in-app steps are exempt");
}

#[tokio::test(flavor = "multi_thread")]
async fn open_hours_follow_the_subscribers_timezone_across_a_dst_change() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    email_integration(&server, &receiver).await;
    create_workflow(&server, "later", json!([delay_step(true), in_app_step()])).await;
    let digest = json!({"name": "Digest", "type": "digest",
                        "controlValues": {"type": "regular", "amount": 1, "unit": "hours", "extendToSchedule": true}});
    create_workflow(&server, "bundle", json!([digest, in_app_step()])).await;
    create_workflow(&server, "mail", json!([email_step()])).await;
    create_ada(&server, "America/New_York").await;
    open_only_on(&server, &["monday"]).await;

    // New York moves to EDT (UTC-4) at 02:00 on Sunday 8 March 2026. Monday 09:00 is then 13:00 UTC,
    // not 14:00 UTC as it was in winter.
    server.clock.set(at("2026-03-08T12:00:00Z"));
    let later = trigger_processed(&server, json!({"name": "later", "to": "ada", "payload": {"orderId": "d"}})).await;
    let bundle = trigger_processed(&server, json!({"name": "bundle", "to": "ada", "payload": {"orderId": "b"}})).await;
    wait_until_only_waiting(&server).await;
    for (transaction_id, kind) in [(&later, "delay"), (&bundle, "digest")] {
        let event = &events_of(&server, transaction_id).await[0];
        let waiting = job(event, kind);
        assert_eq!(waiting["scheduleExtensionsCount"], 1, "{kind}");
        assert!(details(waiting).last().unwrap().contains("waiting until 2026-03-09T13:00:00Z"), "{waiting}");
    }

    // 13:30 UTC on Monday is 09:30 in New York: open (in EST it would be 08:30, closed).
    server.clock.set(at("2026-03-09T13:30:00Z"));
    let open = trigger_processed(&server, json!({"name": "mail", "to": "ada", "payload": {"orderId": "o"}})).await;
    wait_until_settled(&server).await;
    assert_eq!(job(&events_of(&server, &open).await[0], "email")["status"], "completed");
    assert_eq!(messages_of(&server, &later).await.len(), 1, "the delay ended at the opening");
    assert_eq!(messages_of(&server, &bundle).await.len(), 1, "the digest closed at the opening");

    // 21:30 UTC is 17:30 in New York: closed (in EST it would be 16:30, open).
    server.clock.set(at("2026-03-09T21:30:00Z"));
    let closed = trigger_processed(&server, json!({"name": "mail", "to": "ada", "payload": {"orderId": "c"}})).await;
    wait_until_settled(&server).await;
    assert_eq!(job(&events_of(&server, &closed).await[0], "email")["status"], "canceled");
    assert_eq!(receiver.received().len(), 1);
}
