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
    assert_eq!(delay["executionDetails"][0]["status"], "Warning");
    assert_eq!(job(event, "in_app")["status"], "completed");

    let event = &events_of(&server, &missing).await[0];
    assert_eq!(job(event, "delay")["status"], "failed");
    assert_eq!(details(job(event, "delay")), ["The payload has no sendAt for the scheduled delay"]);
    assert_eq!(job(event, "in_app")["status"], "canceled");
}
