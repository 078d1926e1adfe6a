//! Step snapshots stored once (`step_snapshots`): every trigger of one version of a step names the same
//! row, an edit of the workflow makes a new one and leaves the notifications under way on theirs, and
//! jobs stored before the table existed keep their step through its migration.

use chrono::TimeDelta;
use diesel_async::{AsyncConnection, AsyncMigrationHarness, AsyncPgConnection};
use diesel_migrations::MigrationHarness;
use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::*;
use crate::support::TestServer;

/// An hour's delay, then an in-app message whose body starts with `greeting`.
fn steps(greeting: &str) -> Value {
    json!([
        {"name": "Wait", "type": "delay", "controlValues": {"type": "regular", "amount": 1, "unit": "hours"}},
        {"name": "Inbox", "type": "in_app", "controlValues": {"body": format!("{greeting}, order {{{{ payload.orderId }}}}")}},
    ])
}

fn trigger_body(subscriber: &str) -> Value {
    json!({"name": "later", "to": subscriber, "payload": {"orderId": subscriber}})
}

/// The in-app message bodies of a transaction.
async fn bodies(server: &TestServer, transaction_id: &str) -> Vec<String> {
    let messages = messages_of(server, transaction_id).await;
    messages.iter().map(|message| message["content"].as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn triggers_share_a_snapshot_per_step_and_an_edit_leaves_notifications_under_way_on_theirs() {
    let server = TestServer::start().await;
    create_workflow(&server, "later", steps("Hello")).await;
    let mut before = Vec::new();
    for subscriber in ["a", "b", "c"] {
        before.push(trigger_processed(&server, trigger_body(subscriber)).await);
        // Any workflow write empties the workflow cache: the next trigger takes its snapshots anew.
        create_workflow(&server, &format!("other-{subscriber}"), json!([in_app_step()])).await;
    }
    wait_until_only_waiting(&server).await;
    assert_eq!(count(&server, "jobs").await, 6);
    assert_eq!(count(&server, "step_snapshots").await, 2, "one row per step, whatever the triggers");

    let edited = json!({"workflowId": "later", "name": "later", "active": true, "steps": steps("Changed"),
                        "origin": "svc-cloud", "preferences": {}});
    let (status, body) = server.send_json(Method::PUT, "/v2/workflows/later", &edited).await;
    assert_eq!(status, 200, "{body}");
    let after = trigger_processed(&server, trigger_body("d")).await;
    wait_until_only_waiting(&server).await;
    let in_app_snapshots = "(SELECT DISTINCT step_snapshot_id FROM jobs WHERE type = 'in_app') AS s";
    assert_eq!(count(&server, in_app_snapshots).await, 2, "the edited step has a snapshot of its own");

    server.clock.advance(TimeDelta::hours(1) + TimeDelta::seconds(1));
    wait_until_settled(&server).await;
    for (transaction_id, subscriber) in before.iter().zip(["a", "b", "c"]) {
        assert_eq!(bodies(&server, transaction_id).await, [format!("Hello, order {subscriber}")]);
    }
    assert_eq!(bodies(&server, &after).await, ["Changed, order d"]);
    let event = &events_of(&server, &before[0]).await[0];
    assert_eq!(job(event, "in_app")["step"]["controlVariables"]["body"], "Hello, order {{ payload.orderId }}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_job_stored_before_the_snapshots_table_keeps_its_step_through_the_migration() {
    let server = TestServer::start().await;
    create_workflow(&server, "later", steps("Hello")).await;
    let transaction_id = trigger_processed(&server, trigger_body("a")).await;
    wait_until_only_waiting(&server).await;
    let jobs_before = events_of(&server, &transaction_id).await[0]["jobs"].clone();

    let conn = AsyncPgConnection::establish(&server.database_url).await.unwrap();
    let mut harness = AsyncMigrationHarness::new(conn);
    // Back to before `2026-12-04-000001_step_snapshots` (and any migration after it).
    while harness.revert_last_migration(herald::db::MIGRATIONS).unwrap().to_string() != "20261204000001" {}
    // As an earlier build stored it: the whole snapshot in the job's row.
    let in_app_row = "jobs WHERE type = 'in_app' AND step->>'name' = 'Inbox' AND step->'controlVariables' IS NOT NULL";
    assert_eq!(count(&server, in_app_row).await, 1);
    harness.run_pending_migrations(herald::db::MIGRATIONS).unwrap();

    assert_eq!(events_of(&server, &transaction_id).await[0]["jobs"], jobs_before);
    server.clock.advance(TimeDelta::hours(1) + TimeDelta::seconds(1));
    wait_until_settled(&server).await;
    assert_eq!(bodies(&server, &transaction_id).await, ["Hello, order a"]);
}
