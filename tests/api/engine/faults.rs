//! Database faults under load: the server's connections are terminated again and again (as an
//! administrator's `pg_terminate_backend` does), or PostgreSQL restarts, while triggers arrive and
//! workers run.
//! Requests cut off answer 503 with `Retry-After`, never 500; the workers give a failed batch's jobs
//! back at once instead of leaving them to their 30 s lease; every acknowledged trigger becomes
//! exactly one message.

use std::time::Duration;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reqwest::Method;
use serde_json::json;

use super::fixtures::{create_workflow, email_step, in_app_step, messages_of};
use crate::support::{fresh_schema_url, AnswerCut, DedicatedCluster, TestServer};

const TRIGGERS: usize = 150;

#[tokio::test(flavor = "multi_thread")]
async fn terminated_connections_under_load_lose_nothing_double_nothing_and_wait_for_no_lease() {
    let server = TestServer::start().await;
    let faults = async {
        let mut terminated = 0;
        for _ in 0..15 {
            tokio::time::sleep(Duration::from_millis(80)).await;
            terminated += server.terminate_connections().await;
        }
        assert!(terminated > 0, "the faults hit the server's connections");
    };
    triggers_survive(&server, faults).await;
}

/// PostgreSQL itself restarts three times during the load: a backend killed with SIGKILL makes the
/// postmaster end every connection and reinitialise (crash recovery), on the same port. On a private
/// cluster of its own, so that no other test's connections are hit.
#[tokio::test(flavor = "multi_thread")]
async fn postgres_restarts_under_load_lose_nothing_double_nothing_and_recover_within_seconds() {
    let cluster = DedicatedCluster::start();
    let server = TestServer::start_on(cluster.database_url()).await;
    let faults = async {
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_millis(350)).await;
            cluster.crash_restart().await;
        }
        // The server serves again within seconds of the last restart.
        let recovered = tokio::time::Instant::now();
        let body = json!({"name": "inbox", "to": "after-restart", "transactionId": "after-restart"});
        while server.send_json(Method::POST, "/v1/events/trigger", &body).await.0 != 201 {
            assert!(recovered.elapsed() < Duration::from_secs(5), "no trigger accepted 5 s after the restart");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    triggers_survive(&server, faults).await;
    assert_eq!(cluster.crash_restarts(), 3, "PostgreSQL restarted each time");
    assert_eq!(messages_of(&server, "after-restart").await.len(), 1);
}

/// A worker's claim that commits but whose answer is lost (the connection cut in between) leaves its
/// leased jobs running under the batch's lease with nobody running them: the worker gives them back at
/// once, as it does for any failed batch, instead of leaving them to the 30 s lease. The email step is
/// leased (its provider call runs after the claim commits); the in-app step after it runs in its
/// claiming transaction.
#[tokio::test(flavor = "multi_thread")]
async fn the_jobs_of_a_claim_whose_answer_was_lost_run_without_waiting_for_the_lease() {
    let database_url = fresh_schema_url().await;
    let cut = AnswerCut::start(&database_url).await;
    let server = TestServer::start_on(cut.url_through(&database_url)).await;
    create_workflow(&server, "inbox", json!([email_step(), in_app_step()])).await;
    // The claim statement, and an answer that returns this trigger's job: its transaction's commit
    // is then lost.
    cut.arm("AS previous_status", "lost-claim");

    let body = json!({"name": "inbox", "to": "ada", "transactionId": "lost-claim"});
    let (status, answer) = server.send_json(Method::POST, "/v1/events/trigger", &body).await;
    assert_eq!(status, 201, "{answer}");
    wait_until_settled_within(&server, Duration::from_secs(10)).await;
    assert_eq!(cut.cuts(), 1, "the claim of the trigger's email job lost its answer");
    let in_app: Vec<_> =
        messages_of(&server, "lost-claim").await.into_iter().filter(|message| message["channel"] == "in_app").collect();
    assert_eq!(in_app.len(), 1);
}

/// Fires `TRIGGERS` triggers, 8 ms apart, while `faults` runs. Each is answered 201, or 503 with
/// `Retry-After` (never 500); the jobs settle well inside their 30 s lease; every acknowledged trigger
/// is exactly one message, and one whose answer was lost at most one.
async fn triggers_survive(server: &TestServer, faults: impl std::future::Future<Output = ()>) {
    create_workflow(server, "inbox", json!([in_app_step()])).await;
    let triggers = futures_util::future::join_all((0..TRIGGERS).map(|n| async move {
        tokio::time::sleep(Duration::from_millis(8 * n as u64)).await;
        let body = json!({"name": "inbox", "to": format!("sub-{n}"), "payload": {"n": n},
                          "transactionId": format!("fault-{n}")});
        let response = server.request(Method::POST, "/v1/events/trigger").json(&body).send().await.unwrap();
        let retry_after = response.headers().get("retry-after").is_some();
        (n, response.status().as_u16(), retry_after)
    }));
    let ((), answers) = tokio::join!(faults, triggers);

    for (n, status, retry_after) in &answers {
        assert!(matches!(status, 201 | 503), "trigger {n} answered {status}");
        assert!(*status != 503 || *retry_after, "trigger {n}: a 503 says when to retry");
    }
    // The lease is 30 s: jobs of a failed batch that waited for it would still be open at 15 s.
    wait_until_settled_within(server, Duration::from_secs(15)).await;

    for (n, status, _) in &answers {
        let messages = messages_of(server, &format!("fault-{n}")).await;
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
        if tokio::time::Instant::now() >= deadline {
            panic!("{open} jobs still open after {limit:?}: {:#?}", open_jobs(server).await);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// An open job as a failure message shows it: type, status, lease owner, attempts, and its `run_at`
/// (seconds from now in [`open_jobs`]).
type OpenJob<RunAt> = (String, String, Option<String>, i32, RunAt);

async fn open_jobs(server: &TestServer) -> Vec<OpenJob<f64>> {
    use herald::db::schema::jobs;
    let mut conn = server.pool.get().await.expect("a connection");
    let rows: Vec<OpenJob<chrono::DateTime<chrono::Utc>>> = jobs::table
        .filter(jobs::status.eq_any(["pending", "queued", "running", "delayed"]))
        .select((jobs::type_, jobs::status, jobs::lease_owner, jobs::attempts, jobs::run_at))
        .load(&mut conn)
        .await
        .expect("open jobs");
    let now = chrono::Utc::now();
    rows.into_iter()
        .map(|(type_, status, owner, attempts, run_at)| {
            (type_, status, owner, attempts, (run_at - now).num_milliseconds() as f64 / 1000.0)
        })
        .collect()
}

/// Ends the connection's own backend when a notification of `transaction_id` is written: at COMMIT when
/// `at_commit` (a deferred constraint trigger), else at the insert itself.
async fn cut_connection_on(server: &TestServer, transaction_id: &str, at_commit: bool) {
    use diesel_async::SimpleAsyncConnection;
    let schema = &server.schema;
    let name = if at_commit { "cut_at_commit" } else { "cut_at_insert" };
    let timing = if at_commit {
        "CONSTRAINT TRIGGER {name} AFTER INSERT ON {schema}.notifications DEFERRABLE INITIALLY DEFERRED"
    } else {
        "TRIGGER {name} BEFORE INSERT ON {schema}.notifications"
    };
    let timing = timing.replace("{name}", name).replace("{schema}", schema);
    let sql = format!(
        "CREATE FUNCTION {schema}.{name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.transaction_id = '{transaction_id}' THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
           RETURN NEW;
         END $$;
         CREATE {timing} FOR EACH ROW EXECUTE FUNCTION {schema}.{name}();"
    );
    server.pool.get().await.unwrap().batch_execute(&sql).await.expect("fault trigger");
}

/// Triggers `transaction_id` once the server answers (a connection the fault left broken may cost a
/// 503 first); returns the status and body.
async fn trigger_retrying(server: &TestServer, transaction_id: &str) -> (u16, serde_json::Value) {
    let body = json!({"name": "inbox", "to": "ada", "transactionId": transaction_id});
    for _ in 0..5 {
        let answer = server.send_json(Method::POST, "/v1/events/trigger", &body).await;
        if answer.0 != 503 {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the server never recovered");
}

/// The case: a trigger whose connection dies after its COMMIT was sent cannot know whether it
/// was stored. Its 503 says the outcome is unknown and that retrying with the same transactionId is
/// safe; one cut before COMMIT is a plain 503 (nothing was stored). Either way a retry makes exactly
/// one notification.
#[tokio::test(flavor = "multi_thread")]
async fn a_connection_lost_at_commit_says_the_trigger_outcome_is_unknown() {
    let server = TestServer::start().await;
    create_workflow(&server, "inbox", json!([in_app_step()])).await;
    cut_connection_on(&server, "cut-at-commit", true).await;
    cut_connection_on(&server, "cut-at-insert", false).await;

    let body = json!({"name": "inbox", "to": "ada", "transactionId": "cut-at-commit"});
    let response = server.request(Method::POST, "/v1/events/trigger").json(&body).send().await.unwrap();
    assert_eq!(response.headers()["retry-after"], "1");
    let (status, answer) = crate::support::read_json(response).await;
    assert_eq!(status, 503, "{answer}");
    let message = answer["message"].as_str().unwrap();
    assert!(message.contains("unknown") && message.contains("same transactionId"), "{message}");

    let body = json!({"name": "inbox", "to": "ada", "transactionId": "cut-at-insert"});
    let (status, answer) = server.send_json(Method::POST, "/v1/events/trigger", &body).await;
    assert_eq!(status, 503, "{answer}");
    assert!(!answer["message"].as_str().unwrap().contains("unknown"), "{answer}");

    {
        use diesel_async::SimpleAsyncConnection;
        let schema = &server.schema;
        let mut conn = server.pool.get().await.unwrap();
        let drop = format!("DROP TRIGGER cut_at_commit ON {schema}.notifications; DROP TRIGGER cut_at_insert ON {schema}.notifications;");
        conn.batch_execute(&drop).await.expect("fault triggers dropped");
    }
    for transaction_id in ["cut-at-commit", "cut-at-insert"] {
        let (status, answer) = trigger_retrying(&server, transaction_id).await;
        assert_eq!((status, &answer["acknowledged"]), (201, &json!(true)), "{answer}");
        let (_, again) = trigger_retrying(&server, transaction_id).await;
        assert_eq!(again["acknowledged"], false, "a repeat is refused: {again}");
    }
    wait_until_settled_within(&server, Duration::from_secs(30)).await;
    for transaction_id in ["cut-at-commit", "cut-at-insert"] {
        assert_eq!(messages_of(&server, transaction_id).await.len(), 1, "{transaction_id}");
    }
}
