//! Database faults under load: the server's connections are terminated again and again (as an
//! administrator's `pg_terminate_backend`, or a restart, does) while triggers arrive and workers run.
//! Requests cut off answer 503 with `Retry-After`, never 500; the workers give a failed batch's jobs
//! back at once instead of leaving them to their 30 s lease; every acknowledged trigger becomes
//! exactly one message.

use std::time::Duration;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reqwest::Method;
use serde_json::json;

use super::fixtures::{create_workflow, in_app_step, messages_of};
use crate::support::TestServer;

const TRIGGERS: usize = 150;

#[tokio::test(flavor = "multi_thread")]
async fn terminated_connections_under_load_lose_nothing_double_nothing_and_wait_for_no_lease() {
    let server = TestServer::start().await;
    create_workflow(&server, "inbox", json!([in_app_step()])).await;

    let faults = async {
        let mut terminated = 0;
        for _ in 0..15 {
            tokio::time::sleep(Duration::from_millis(80)).await;
            terminated += server.terminate_connections().await;
        }
        terminated
    };
    let triggers = futures_util::future::join_all((0..TRIGGERS).map(|n| {
        let server = &server;
        async move {
            tokio::time::sleep(Duration::from_millis(8 * n as u64)).await;
            let body = json!({"name": "inbox", "to": format!("sub-{n}"), "payload": {"n": n},
                              "transactionId": format!("fault-{n}")});
            let response = server.request(Method::POST, "/v1/events/trigger").json(&body).send().await.unwrap();
            let retry_after = response.headers().get("retry-after").is_some();
            (n, response.status().as_u16(), retry_after)
        }
    }));
    let (terminated, answers) = tokio::join!(faults, triggers);
    assert!(terminated > 0, "the faults hit the server's connections");

    for (n, status, retry_after) in &answers {
        assert!(matches!(status, 201 | 503), "trigger {n} answered {status}");
        assert!(*status != 503 || *retry_after, "trigger {n}: a 503 says when to retry");
    }
    // The lease is 30 s: jobs of a failed batch that waited for it would still be open at 15 s.
    wait_until_settled_within(&server, Duration::from_secs(15)).await;

    for (n, status, _) in &answers {
        let messages = messages_of(&server, &format!("fault-{n}")).await;
        match status {
            201 => assert_eq!(messages.len(), 1, "acknowledged trigger {n}: exactly one message"),
            _ => assert!(messages.len() <= 1, "trigger {n} (outcome unknown): at most one message"),
        }
    }
}

async fn wait_until_settled_within(server: &TestServer, limit: Duration) {
    use herald::db::schema::jobs;
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let open: i64 = match server.pool.get().await {
            Ok(mut conn) => jobs::table
                .filter(jobs::status.eq_any(["pending", "queued", "running", "delayed"]))
                .count()
                .get_result(&mut conn)
                .await
                .unwrap_or(i64::MAX),
            Err(_) => i64::MAX,
        };
        if open == 0 {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{open} jobs still open after {limit:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
