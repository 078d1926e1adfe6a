//! Delay steps, driven by the engine's test clock instead of real waiting.

use std::time::Duration;

use chrono::TimeDelta;
use serde_json::json;

use super::fixtures::*;
use crate::support::TestServer;

async fn wait_for_job_status(server: &TestServer, transaction_id: &str, kind: &str, status: &str) {
    for _ in 0..300 {
        let events = events_of(server, transaction_id).await;
        if events.first().is_some_and(|event| job(event, kind)["status"] == status) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the {kind} job never became {status}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_regular_delay_parks_the_job_until_its_time_and_overrides_win() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "later",
        json!([
            {"name": "Wait", "type": "delay", "controlValues": {"type": "regular", "amount": 2, "unit": "hours"}},
            in_app_step()
        ]),
    )
    .await;
    let transaction_id =
        trigger_processed(&server, json!({"name": "later", "to": "ada", "payload": {"orderId": "D"}})).await;
    let overridden = trigger_processed(
        &server,
        json!({"name": "later", "to": "bob", "payload": {"orderId": "D"}, "overrides": {"delay": {"amount": 3, "unit": "days"}}}),
    )
    .await;
    wait_for_job_status(&server, &transaction_id, "delay", "delayed").await;
    wait_for_job_status(&server, &overridden, "delay", "delayed").await;
    assert!(messages_of(&server, &transaction_id).await.is_empty());

    server.clock.advance(TimeDelta::hours(2) + TimeDelta::seconds(1));
    wait_for_job_status(&server, &transaction_id, "in_app", "completed").await;
    assert_eq!(messages_of(&server, &transaction_id).await.len(), 1);
    let event = &events_of(&server, &overridden).await[0];
    assert_eq!(job(event, "delay")["status"], "delayed", "3 days have not passed");
    // The step snapshot the trigger took shows the step's settings (not the override) as metadata.
    assert_eq!(job(event, "delay")["step"]["metadata"], json!({"type": "regular", "amount": 2, "unit": "hours"}));
    assert!(job(event, "in_app")["step"].get("metadata").is_none());

    server.clock.advance(TimeDelta::days(3));
    wait_until_settled(&server).await;
    let event = &events_of(&server, &overridden).await[0];
    let delay_details = details(job(event, "delay"));
    assert!(delay_details[0].starts_with("Delayed until"), "{delay_details:?}");
    assert_eq!(delay_details[1], "Delay finished");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scheduled_delay_in_the_past_runs_at_once_and_a_missing_date_cancels_the_rest() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "scheduled",
        json!([
            {"name": "Wait", "type": "delay", "controlValues": {"type": "scheduled", "delayPath": "sendAt"}},
            in_app_step()
        ]),
    )
    .await;
    let past = trigger_processed(
        &server,
        json!({"name": "scheduled", "to": "ada", "payload": {"sendAt": "2020-01-01T00:00:00Z"}}),
    )
    .await;
    let missing = trigger_processed(&server, json!({"name": "scheduled", "to": "ada", "payload": {}})).await;
    wait_until_settled(&server).await;

    let event = &events_of(&server, &past).await[0];
    let delay = job(event, "delay");
    assert_eq!(delay["status"], "completed");
    assert_eq!(delay["step"]["metadata"], json!({"type": "scheduled", "delayPath": "sendAt"}));
    assert_eq!(delay["executionDetails"][0]["status"], "Warning");
    assert_eq!(job(event, "in_app")["status"], "completed");

    let event = &events_of(&server, &missing).await[0];
    assert_eq!(job(event, "delay")["status"], "failed");
    assert_eq!(details(job(event, "delay")), ["The payload has no sendAt for the scheduled delay"]);
    assert_eq!(job(event, "in_app")["status"], "canceled");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_unit_counts_as_documented_and_scheduled_dates_are_read_from_the_payload() {
    let server = TestServer::start().await;
    let ten_o_clock = chrono::DateTime::parse_from_rfc3339("2026-01-31T10:00:00Z").unwrap().into();
    let units = [
        ("seconds", 30, "2026-01-31T10:00:30Z"),
        ("minutes", 5, "2026-01-31T10:05:00Z"),
        ("hours", 2, "2026-01-31T12:00:00Z"),
        ("days", 1, "2026-02-01T10:00:00Z"),
        ("weeks", 2, "2026-02-14T10:00:00Z"),
        ("months", 1, "2026-02-28T10:00:00Z"),
    ];
    let mut waiting = Vec::new();
    for (unit, amount, until) in units {
        let identifier = format!("wait-{unit}");
        let delay = json!({"name": "Wait", "type": "delay", "controlValues": {"type": "regular", "amount": amount, "unit": unit}});
        create_workflow(&server, &identifier, json!([delay, in_app_step()])).await;
        // The clock runs on from where it is set: set right before each trigger, a loaded machine's
        // seconds between the triggers do not move the dates.
        server.clock.set(ten_o_clock);
        let transaction_id = trigger_processed(&server, json!({"name": identifier, "to": "ada"})).await;
        waiting.push((transaction_id, format!("Delayed until {until}")));
    }
    create_workflow(
        &server,
        "scheduled",
        json!([{"name": "Wait", "type": "delay", "controlValues": {"type": "scheduled", "delayPath": "send.at"}}, in_app_step()]),
    )
    .await;
    let future = trigger_processed(
        &server,
        json!({"name": "scheduled", "to": "ada", "payload": {"send": {"at": "2026-02-01T08:00:00+02:00"}}}),
    )
    .await;
    waiting.push((future, "Delayed until 2026-02-01T06:00:00Z".to_string()));
    let unparsable = trigger_processed(
        &server,
        json!({"name": "scheduled", "to": "ada", "payload": {"send": {"at": "next tuesday"}}}),
    )
    .await;
    wait_until_only_waiting(&server).await;

    for (transaction_id, expected) in &waiting {
        let event = &events_of(&server, transaction_id).await[0];
        assert_eq!(job(event, "delay")["status"], "delayed", "{expected}");
        assert_eq!(details(job(event, "delay")), [expected.as_str()]);
    }
    let event = &events_of(&server, &unparsable).await[0];
    assert_eq!(job(event, "delay")["status"], "failed");
    assert_eq!(details(job(event, "delay")), ["payload.send.at is not an ISO 8601 date-time: \"next tuesday\""]);
    assert_eq!(job(event, "in_app")["status"], "canceled");
}
