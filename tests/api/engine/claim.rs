//! The workers' claim: under a backlog its statistics have not seen, it reads the batch it takes, not
//! the backlog (a claim that read and sorted every due job made draining a large topic quadratic); a
//! loop draining in-app jobs claims larger batches, and no batch leases more calls out than a batch.
//! The calls of a leased batch are recorded together, each by what earlier runs left of it.

use std::time::Duration;

use diesel::sql_types::BigInt;
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use serde_json::{json, Value};

use super::fixtures::*;
use crate::support::{rows_read_in_transaction, TestServer};

#[derive(QueryableByName)]
struct Number {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[tokio::test(flavor = "multi_thread")]
async fn a_claim_reads_its_batch_and_not_a_backlog_the_statistics_have_not_seen() {
    // No worker: the jobs stay queued for the claim the test makes itself.
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let mut conn = AsyncPgConnection::establish(&server.database_url).await.unwrap();
    // Statistics taken while the queue was empty: they expect next to no due job.
    conn.batch_execute("ANALYZE jobs").await.unwrap();
    // Triggers of 100 recipients: their batches store their jobs (a wider one is fanned out).
    for batch in 0..20 {
        let to: Vec<String> = (0..100).map(|n| format!("member-{batch}-{n}")).collect();
        trigger_processed(&server, json!({"name": "live", "to": to})).await;
    }
    assert_eq!(count(&server, "jobs WHERE status = 'queued'").await, 2_000);

    // The transaction's own statistics count the rows it read; it is rolled back with its locks.
    conn.begin_test_transaction().await.unwrap();
    let claimed: Number = diesel::sql_query("SELECT count(*) AS n FROM claim_due_jobs('infinity', 10)")
        .get_result(&mut conn)
        .await
        .unwrap();
    assert_eq!(claimed.n, 10);
    let read = rows_read_in_transaction(&mut conn, &["jobs"]).await;
    assert!(read <= 20, "claiming 10 of 2,000 due jobs read {read} rows");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_claim_at_the_backlog_size_leases_no_more_provider_calls_than_a_batch() {
    // The backlog is stored before any worker runs: 100 in-app jobs, then 150 chat jobs due after them.
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    chat_webhook_workflow(&server).await;
    let receiver = SlowChatReceiver::start(Duration::from_millis(300)).await;
    let readers: Vec<String> = (0..100).map(|n| format!("reader-{n}")).collect();
    let feed = trigger_processed(&server, json!({"name": "feed", "to": readers})).await;
    let chatters: Vec<Value> = (0..150)
        .map(|n| chat_recipient(&format!("chatter-{n}"), &format!("http://{}/chat/{n}", receiver.addr)))
        .collect();
    // In two triggers, so that their batches store their jobs (a trigger to more than 100 is fanned out).
    for half in chatters.chunks(75) {
        trigger_processed(&server, json!({"name": "chat", "to": half})).await;
    }

    // One loop, batches of 50, backlog batches of 200 (tests/api/support.rs): it claims 50 in-app jobs,
    // then (its batch full of them) 200: the other 50 in-app jobs and 150 chat jobs, of which it leases
    // 50 and leaves 100 due.
    let _worker = server.start_worker_process().await;
    wait_until_settled(&server).await;
    assert_eq!(receiver.posts(), 150);
    assert_eq!(receiver.most_at_once(), 50, "provider calls at once, with batches of 50");
    assert_eq!(messages_of(&server, &feed).await.len(), 100);
    assert_eq!(count(&server, "jobs WHERE status <> 'completed'").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_of_provider_calls_larger_than_the_pool_commits_without_waiting_for_a_connection() {
    // A batch's provider jobs take a pooled connection to record their calls before making them, and
    // its commit takes one as the first calls finish. The worker process has 2 connections for its loop
    // (4, less the 2 its LISTENs hold) and leases 50 jobs at once. When each job recorded its own call,
    // the commit waited behind jobs that held or were being given a connection and were not polled
    // meanwhile, gave up after the pool's 10 s, and the jobs cut off mid-call were left in doubt.
    let server = TestServer::start_api_only().await;
    chat_webhook_workflow(&server).await;
    let receiver = SlowChatReceiver::start(Duration::from_millis(50)).await;
    let chatters: Vec<Value> = (0..100)
        .map(|n| chat_recipient(&format!("chatter-{n}"), &format!("http://{}/chat/{n}", receiver.addr)))
        .collect();
    trigger_processed(&server, json!({"name": "chat", "to": chatters})).await;

    let _worker = server.start_worker_process_with_connections(4).await;
    wait_until_settled(&server).await;
    assert_eq!(count(&server, "provider_deliveries WHERE status <> 'accepted'").await, 0);
    assert_eq!(receiver.posts(), 100);
    assert_eq!(count(&server, "jobs WHERE status <> 'completed'").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_records_its_calls_together_and_each_call_by_what_earlier_runs_left() {
    // Before any worker runs, two jobs are given the records an earlier run would have left: one call
    // started by a worker that died during it (in doubt), one call the provider accepted.
    let server = TestServer::start_api_only().await;
    chat_webhook_workflow(&server).await;
    let receiver = SlowChatReceiver::start(Duration::from_millis(20)).await;
    let chatters: Vec<Value> = (0..100)
        .map(|n| chat_recipient(&format!("chatter-{n}"), &format!("http://{}/chat/{n}", receiver.addr)))
        .collect();
    trigger_processed(&server, json!({"name": "chat", "to": chatters})).await;
    let mut conn = AsyncPgConnection::establish(&server.database_url).await.unwrap();
    conn.batch_execute(
        "INSERT INTO provider_deliveries (id, environment_id, job_id, attempt, provider_id, status)
         SELECT gen_random_uuid(), j.environment_id, j.id, 1, 'chat-webhook',
                CASE s.subscriber_id WHEN 'chatter-0' THEN 'started' ELSE 'accepted' END
         FROM jobs j JOIN subscribers s ON s.id = j.subscriber_id
         WHERE j.type = 'chat' AND s.subscriber_id IN ('chatter-0', 'chatter-1')",
    )
    .await
    .unwrap();

    // One loop leasing 50 at a time: two batches of 50 calls.
    let _worker = server.start_worker_process().await;
    wait_until_settled(&server).await;
    assert_eq!(receiver.posts(), 98, "neither the call in doubt nor the accepted one is made again");
    let of = |subscriber_id: &str| {
        format!(
            "provider_deliveries d JOIN jobs j ON j.id = d.job_id JOIN subscribers s ON s.id = j.subscriber_id
             WHERE s.subscriber_id = '{subscriber_id}'"
        )
    };
    assert_eq!(
        count(&server, &format!("{} AND d.status = 'unknown' AND d.finished_at IS NOT NULL", of("chatter-0"))).await,
        1
    );
    assert_eq!(count(&server, &of("chatter-0")).await, 1);
    assert_eq!(count(&server, &format!("{} AND d.status = 'accepted'", of("chatter-1"))).await, 1);
    assert_eq!(count(&server, &of("chatter-1")).await, 1);
    let sent = "provider_deliveries WHERE status = 'accepted' AND attempt = 1 AND message_id IS NOT NULL";
    assert_eq!(count(&server, sent).await, 98, "each other call recorded once, with its message");
    assert_eq!(count(&server, "provider_deliveries").await, 100);
    assert_eq!(count(&server, "jobs WHERE status <> 'completed'").await, 0);
    // The records written together share their transaction's time: a few writes for the two batches,
    // not one per call.
    let writes =
        count(&server, "(SELECT DISTINCT started_at FROM provider_deliveries WHERE message_id IS NOT NULL) w").await;
    assert!(writes <= 10, "98 calls recorded in {writes} writes");
}
