//! Retention: a sweep deletes the notifications created before its cutoff with their jobs, details and
//! messages, and their transactionId claims (the id may be used again); a notification still waiting on
//! a delay is kept, with its claim.

use chrono::TimeDelta;
use herald::engine::retention::{sweep, Swept};
use serde_json::json;

use super::fixtures::*;
use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread")]
async fn a_sweep_deletes_old_finished_notifications_with_everything_they_hold() {
    let server = TestServer::start().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    create_workflow(
        &server,
        "later",
        json!([
            {"name": "Wait", "type": "delay", "controlValues": {"type": "regular", "amount": 90, "unit": "days"}},
            in_app_step()
        ]),
    )
    .await;
    for n in 0..3 {
        trigger_processed(&server, json!({"name": "feed", "to": format!("s{n}"), "transactionId": format!("old-{n}")}))
            .await;
    }
    trigger_processed(&server, json!({"name": "later", "to": "s0", "transactionId": "waiting"})).await;
    wait_until_only_waiting(&server).await;
    assert_eq!(count(&server, "messages").await, 3);
    let swept_before_everything = sweep(&server.pool, server.clock.now() - TimeDelta::days(30)).await.unwrap();
    assert_eq!(swept_before_everything, Swept::default(), "nothing is 30 days old");
    let after_the_triggers = sweep(&server.pool, server.clock.now() + TimeDelta::minutes(1)).await.unwrap();

    assert_eq!(after_the_triggers, Swept { notifications: 3, transactions: 3, inbox_events: 3 });
    assert_eq!(count(&server, "inbox_events").await, 0, "the inbox events of the three messages went with them");
    assert_eq!(count(&server, "notifications").await, 1, "the delayed notification is kept");
    assert_eq!(count(&server, "notifications WHERE transaction_id = 'waiting'").await, 1);
    assert_eq!(count(&server, "jobs WHERE transaction_id <> 'waiting'").await, 0);
    assert_eq!(
        count(&server, "execution_details d JOIN jobs j ON j.id = d.job_id WHERE j.transaction_id <> 'waiting'").await,
        0
    );
    assert_eq!(
        count(&server, "execution_details").await,
        count(&server, "execution_details d JOIN jobs j ON j.id = d.job_id").await
    );
    assert_eq!(count(&server, "messages").await, 0);
    assert_eq!(count(&server, "trigger_transactions").await, 1);
    // A swept transactionId may be used again; the kept one may not.
    trigger_processed(&server, json!({"name": "feed", "to": "s1", "transactionId": "old-1"})).await;
    let (_, answer) = trigger(&server, json!({"name": "feed", "to": "s1", "transactionId": "waiting"})).await;
    assert_eq!(answer["status"], "error", "{answer}");
}
