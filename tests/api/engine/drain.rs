//! The graceful stop (`herald serve` on SIGTERM): the process reports draining at once, finishes the
//! worker batches it has started, and leaves no job claimed, so none waits out its lease.

use std::time::Duration;

use serde_json::{json, Value};

use super::fixtures::*;
use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread")]
async fn a_clean_stop_finishes_started_deliveries_and_leaves_no_job_claimed() {
    let mut server = TestServer::start().await;
    let receiver = SlowChatReceiver::start(Duration::from_millis(1500)).await;
    chat_webhook_workflow(&server).await;
    let to: Vec<Value> =
        (0..10).map(|n| chat_recipient(&format!("s{n}"), &format!("http://{}/chat/s{n}", receiver.addr))).collect();
    trigger_processed(&server, json!({"name": "chat", "to": to})).await;
    let started = std::time::Instant::now();
    while receiver.posts() == 0 {
        assert!(started.elapsed() < Duration::from_secs(10), "no chat post went out");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let health = server.health();
    let stopping = tokio::spawn(async move {
        server.shutdown().await;
        server
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(health.readiness().await.status, "draining", "not ready as soon as the stop begins");
    let server = stopping.await.unwrap();

    // Every post that went out was committed as a completed job; nothing is left claimed.
    let posts = receiver.posts() as i64;
    assert_eq!(count(&server, "jobs WHERE status = 'running'").await, 0);
    assert_eq!(count(&server, "jobs WHERE type = 'chat' AND status = 'completed'").await, posts);
    assert_eq!(count(&server, "jobs WHERE type = 'chat'").await, 10);
}
