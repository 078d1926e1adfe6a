//! Retention: a sweep deletes the notifications created before its cutoff with their jobs, details and
//! messages, their completed topic fan-outs, and their transactionId claims (the id may be used again);
//! a notification still waiting on a delay is kept, with its claim, and so is a fan-out still to run.

use chrono::TimeDelta;
use diesel_async::RunQueryDsl;
use herald::engine::retention::{sweep, Swept};
use reqwest::Method;
use serde_json::json;

use super::fixtures::*;
use crate::support::TestServer;
use crate::topics::fanout::wait_until_fanned_out;

#[tokio::test(flavor = "multi_thread")]
async fn a_sweep_deletes_old_finished_notifications_with_everything_they_hold() {
    let server = TestServer::start().await;
    // A short delay first: its job stores execution details, which a delivered in-app message does not.
    let pause =
        json!({"name": "Pause", "type": "delay", "controlValues": {"type": "regular", "amount": 1, "unit": "minutes"}});
    create_workflow(&server, "feed", json!([pause, in_app_step()])).await;
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
    server.clock.advance(TimeDelta::minutes(2));
    wait_until_only_waiting(&server).await;
    assert_eq!(count(&server, "messages").await, 3);
    assert!(
        count(&server, "execution_details d JOIN jobs j ON j.id = d.job_id WHERE j.transaction_id <> 'waiting'").await
            > 0,
        "the pauses' details are stored"
    );
    let swept_before_everything = sweep(&server.pool, server.clock.now() - TimeDelta::days(30)).await.unwrap();
    assert_eq!(swept_before_everything, Swept::default(), "nothing is 30 days old");
    let after_the_triggers = sweep(&server.pool, server.clock.now() + TimeDelta::minutes(1)).await.unwrap();

    assert_eq!(after_the_triggers, Swept { notifications: 3, topic_fanouts: 0, transactions: 3, inbox_events: 3 });
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

#[tokio::test(flavor = "multi_thread")]
async fn a_sweep_deletes_completed_topic_fan_outs_and_keeps_one_still_to_run() {
    let server = TestServer::start().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    for id in ["m1", "m2"] {
        server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": id})).await;
    }
    let (status, body) =
        server.send_json(Method::POST, "/v1/topics/crowd/subscribers", &json!({"subscribers": ["m1", "m2"]})).await;
    assert_eq!(status, 200, "{body}");
    trigger_processed(
        &server,
        json!({"name": "feed", "to": {"type": "Topic", "topicKey": "crowd"}, "transactionId": "fan"}),
    )
    .await;
    wait_until_fanned_out(&server).await;
    wait_until_settled(&server).await;
    // A fan-out accepted long ago that has not run yet (its lease runs for a day), with its claim.
    execute(
        &server,
        "INSERT INTO topic_fanouts (id, environment_id, organization_id, transaction_id, topic_keys, template,
                                    accepted_at, status, run_at)
         SELECT gen_random_uuid(), id, organization_id, 'pending-fan', '{crowd}', '{}', now() - interval '1 day',
                'queued', now() + interval '1 day' FROM environments",
    )
    .await;
    execute(
        &server,
        "INSERT INTO trigger_transactions (environment_id, transaction_id, created_at)
         SELECT id, 'pending-fan', now() - interval '1 day' FROM environments",
    )
    .await;

    let swept = sweep(&server.pool, server.clock.now() + TimeDelta::minutes(1)).await.unwrap();

    assert_eq!(swept, Swept { notifications: 2, topic_fanouts: 1, transactions: 1, inbox_events: 2 });
    assert_eq!(count(&server, "topic_fanouts").await, 1, "the fan-out still to run is kept");
    assert_eq!(count(&server, "topic_fanouts WHERE transaction_id = 'pending-fan'").await, 1);
    assert_eq!(count(&server, "trigger_transactions").await, 1, "and so is its transactionId claim");
    assert_eq!(count(&server, "trigger_transactions WHERE transaction_id = 'pending-fan'").await, 1);
}

/// Runs `sql` in the server's schema (seeding a state the API cannot reach on its own).
async fn execute(server: &TestServer, sql: &str) {
    let mut conn = server.pool.get().await.unwrap();
    diesel::sql_query(sql).execute(&mut conn).await.unwrap();
}
