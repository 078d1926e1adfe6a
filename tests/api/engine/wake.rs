//! Waking worker processes: the work an API process commits reaches the idle loops of a worker process
//! by `NOTIFY`, the jobs of named subscribers and the fan-out of topics each by their own wake-up, long
//! before the worker's poll.

use diesel_async::{AsyncConnection, AsyncPgConnection};
use serde_json::json;

use super::crash::{count, create_workflow, only_environment, post, wait_for_count};
use crate::process::{free_addr, prepare, wait_healthy, Herald};
use crate::support::fresh_schema_url;
use crate::topics::fanout::seed_topic;

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_process_is_woken_for_named_subscribers_and_for_topics_by_the_api_process() {
    let url = fresh_schema_url().await;
    let key = prepare(&url);
    let addr = free_addr();
    let _api = Herald::start(&url, &addr, "api");
    // Its loops poll once at start, then not for ten minutes: only a wake-up delivers within the test.
    let _worker = Herald::start_with(&url, &free_addr(), "worker", &[("HERALD_WORKER_POLL_MS", "600000")]);
    wait_healthy(&addr).await;
    create_workflow(&addr, &key).await;
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    let environment = only_environment(&mut conn).await;
    seed_topic(&mut conn, environment, "crowd", 3).await;
    // The worker's connections carry the schema as their application name; its listener's last
    // statement is its LISTEN (a NOTIFY sent before it would be missed).
    wait_for_count(
        &mut conn,
        "SELECT count(*) AS n FROM pg_stat_activity
         WHERE application_name = current_schema() AND query LIKE 'LISTEN \"herald_jobs_%'",
        1,
    )
    .await;

    let direct = json!({"name": "crash", "transactionId": "direct", "to": "solo"});
    assert_eq!(post(&addr, &key, "/v1/events/trigger", direct).await.expect("accepted")["acknowledged"], true);
    wait_for_count(&mut conn, "SELECT count(*) AS n FROM messages", 1).await;

    let to_topic = json!({"name": "crash", "transactionId": "topic", "to": [{"type": "Topic", "topicKey": "crowd"}]});
    assert_eq!(post(&addr, &key, "/v1/events/trigger", to_topic).await.expect("accepted")["acknowledged"], true);
    wait_for_count(&mut conn, "SELECT count(*) AS n FROM topic_fanouts WHERE status = 'completed'", 1).await;
    wait_for_count(&mut conn, "SELECT count(*) AS n FROM messages", 4).await;
    assert_eq!(count(&mut conn, "SELECT count(DISTINCT subscriber_id) AS n FROM messages").await, 4);
}
