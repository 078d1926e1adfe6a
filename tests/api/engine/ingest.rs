//! Group commit of triggers: concurrent triggers stored in shared batches, each answered with its own
//! outcome; a bad trigger fails alone; a transactionId repeated inside a batch or across batches is
//! stored once; a workflow change is seen by the very next trigger (the definition cache); a batch's
//! transaction plans generically until it ends, and rolls back whole; a batch to known subscribers is
//! pipelined, and one that is not as expected is rolled back and stored by the full path.

use std::time::{Duration, Instant};

use diesel::sql_types::{Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use futures_util::future::join_all;
use herald::db::batch::{begin_batch_transaction, end_batch_transaction, PipelinedTransaction};
use herald::db::build_pool;
use herald::error::AppError;
use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::*;
use crate::metrics::Scrape;
use crate::support::TestServer;

async fn bulk(server: &TestServer, events: Vec<Value>) -> Vec<Value> {
    let (status, results) = server.send_json(Method::POST, "/v1/events/trigger/bulk", &json!({"events": events})).await;
    assert_eq!(status, 201, "{results}");
    results.as_array().unwrap().clone()
}

fn statuses(results: &[Value]) -> Vec<&str> {
    results.iter().map(|result| result["status"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trigger_postgresql_refuses_fails_alone_and_the_rest_of_its_batch_is_stored() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    // A NUL character passes every check before the database and is refused by PostgreSQL's jsonb.
    let events: Vec<Value> = (0..10)
        .map(|n| {
            let text = if n == 4 { "bad\u{0}text".to_string() } else { format!("fine {n}") };
            json!({"name": "live", "to": format!("s{n}"), "payload": {"text": text}, "transactionId": format!("t{n}")})
        })
        .collect();
    let results = bulk(&server, events).await;
    let mut expected = vec!["processed"; 10];
    expected[4] = "error";
    assert_eq!(statuses(&results), expected, "{results:?}");
    assert!(results[4]["error"][0].as_str().unwrap().contains("NUL"), "{}", results[4]);
    assert_eq!(count(&server, "notifications").await, 9);
    assert_eq!(count(&server, "trigger_transactions").await, 9);
    assert_eq!(count(&server, "subscribers WHERE subscriber_id = 's4'").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transaction_id_repeated_inside_a_batch_or_across_batches_is_stored_once() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let same = |to: &str| json!({"name": "live", "to": to, "transactionId": "same"});
    let results = bulk(&server, vec![same("a"), same("b"), json!({"name": "live", "to": "c"}), same("d")]).await;
    assert_eq!(statuses(&results), ["processed", "error", "processed", "error"], "{results:?}");
    assert!(results[1]["error"][0].as_str().unwrap().contains("already used"), "{}", results[1]);
    assert_eq!(count(&server, "notifications WHERE transaction_id = 'same'").await, 1);
    assert_eq!(count(&server, "subscribers WHERE subscriber_id IN ('b', 'd')").await, 0);

    // Thirty concurrent triggers with one new transactionId: one is stored, whichever batch it is in.
    let answers = join_all((0..30).map(|n| trigger(&server, same(&format!("r{n}"))))).await;
    let processed: Vec<_> = answers.iter().filter(|(_, answer)| answer["status"] == "processed").collect();
    assert!(answers.iter().all(|(status, _)| *status == 201), "{answers:?}");
    assert_eq!(processed.len(), 0, "`same` was stored by the bulk trigger: {answers:?}");
    let answers = join_all(
        (0..30).map(|n| trigger(&server, json!({"name": "live", "to": format!("r{n}"), "transactionId": "contended"}))),
    )
    .await;
    let processed = answers.iter().filter(|(_, answer)| answer["status"] == "processed").count();
    assert_eq!(processed, 1, "{answers:?}");
    assert_eq!(count(&server, "notifications WHERE transaction_id = 'contended'").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_triggers_each_get_their_own_outcome() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let known = json!({"identifier": "known", "name": "Known"});
    trigger_processed(&server, json!({"name": "live", "to": "first", "tenant": known})).await;
    // Every third names a tenant that does not exist; the others are stored, tenant or not.
    let answers = join_all((0..90).map(|n| {
        let tenant = match n % 3 {
            0 => json!("missing"),
            1 => json!("known"),
            _ => json!({"identifier": format!("new-{n}")}),
        };
        trigger(
            &server,
            json!({"name": "live", "to": format!("s{n}"), "tenant": tenant, "transactionId": format!("t{n}")}),
        )
    }))
    .await;
    for (n, (status, answer)) in answers.iter().enumerate() {
        assert_eq!(*status, 201, "{answer}");
        let expected = if n % 3 == 0 { "no_tenant_found" } else { "processed" };
        assert_eq!(answer["status"], expected, "trigger {n}: {answer}");
        assert_eq!(answer["transactionId"], format!("t{n}"));
    }
    assert_eq!(count(&server, "notifications").await, 61);
    assert_eq!(count(&server, "trigger_transactions").await, 61);
    assert_eq!(count(&server, "tenants").await, 31);
    let of_known = "notifications n JOIN tenants t ON t.id = n.tenant_id WHERE t.identifier = 'known'";
    assert_eq!(count(&server, of_known).await, 31);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_next_trigger_runs_the_workflow_as_last_saved() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    trigger_processed(&server, json!({"name": "live", "to": "a"})).await;

    let update = |active: bool, steps: Value| json!({"workflowId": "live", "name": "live", "active": active, "steps": steps, "origin": "svc-cloud", "preferences": {}});
    let (status, body) =
        server.send_json(Method::PUT, "/v2/workflows/live", &update(false, json!([in_app_step()]))).await;
    assert_eq!(status, 200, "{body}");
    let (_, answer) = trigger(&server, json!({"name": "live", "to": "a"})).await;
    assert_eq!(answer["status"], "trigger_not_active", "{answer}");

    let (status, body) =
        server.send_json(Method::PUT, "/v2/workflows/live", &update(true, json!([in_app_step(), in_app_step()]))).await;
    assert_eq!(status, 200, "{body}");
    let transaction_id = trigger_processed(&server, json!({"name": "live", "to": "a"})).await;
    // One job per step of the new definition.
    assert_eq!(count(&server, &format!("jobs WHERE transaction_id = '{transaction_id}'")).await, 2);

    let deleted = server.request(Method::DELETE, "/v2/workflows/live").send().await.unwrap();
    assert_eq!(deleted.status(), 200);
    let (status, answer) = trigger(&server, json!({"name": "live", "to": "a"})).await;
    assert_eq!((status, answer["message"].as_str()), (422, Some("workflow_not_found")), "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stored_trigger_shows_its_trigger_job_completed_and_its_first_step_due_with_no_worker_running() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "two-steps", json!([in_app_step(), in_app_step()])).await;
    let transaction_id = trigger_processed(&server, json!({"name": "two-steps", "to": "ada"})).await;

    let events = events_of(&server, &transaction_id).await;
    let jobs = events[0]["jobs"].as_array().unwrap();
    let statuses: Vec<(&str, &str)> =
        jobs.iter().map(|job| (job["type"].as_str().unwrap(), job["status"].as_str().unwrap())).collect();
    assert_eq!(statuses, [("trigger", "completed"), ("in_app", "queued"), ("in_app", "pending")], "{jobs:?}");
    assert_eq!(details(job(&events[0], "trigger")), ["Triggered workflow two-steps for subscriber ada"]);
    let due_now = "jobs WHERE position = 1 AND run_at <= created_at AND status = 'queued'";
    assert_eq!(count(&server, due_now).await, 1, "the first step is due when the trigger is stored");
    assert_eq!(count(&server, "jobs").await, 2, "the trigger job is rendered, not stored");
    assert_eq!(count(&server, "execution_details").await, 0);
    let again = events_of(&server, &transaction_id).await;
    assert_eq!(again[0]["jobs"][0], jobs[0], "the rendered trigger job, ids included, is the same on every read");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trigger_to_an_unchanged_subscriber_neither_writes_nor_waits_for_its_row() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    let ada = |first_name: &str| json!({"name": "feed", "to": {"subscriberId": "ada", "firstName": first_name}});
    trigger_processed(&server, ada("Ada")).await;
    let version = "subscribers WHERE subscriber_id = 'ada' AND version = 0 AND first_name = 'Ada'";
    assert_eq!(count(&server, version).await, 1);
    // Another transaction holds the subscriber's row until it commits.
    let mut holder = server.pool.get().await.unwrap();
    holder.batch_execute("BEGIN; SELECT 1 FROM subscribers WHERE subscriber_id = 'ada' FOR UPDATE").await.unwrap();

    let unchanged = tokio::time::timeout(Duration::from_secs(10), trigger_processed(&server, ada("Ada"))).await;
    assert!(unchanged.is_ok(), "a trigger that changes nothing of its subscriber must not wait for the row");
    let changing = async {
        trigger_processed(&server, ada("Augusta")).await;
        Instant::now()
    };
    let release = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let released_at = Instant::now();
        holder.batch_execute("COMMIT").await.unwrap();
        released_at
    };
    let (answered_at, released_at) = tokio::join!(changing, release);
    assert!(answered_at > released_at, "a trigger that changes its subscriber writes the row, after its holder");
    let changed = "subscribers WHERE subscriber_id = 'ada' AND version = 1 AND first_name = 'Augusta'";
    assert_eq!(count(&server, changed).await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn triggers_of_different_workflows_stored_together_each_get_their_own_workflows_rows() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "short", json!([in_app_step()])).await;
    create_workflow(&server, "long", json!([email_step(), in_app_step(), email_step()])).await;
    // While the notifications are locked, the first batches wait at their insert and the other
    // triggers queue; once it is released, those leave together: batches holding triggers of both
    // workflows, whose rows the database builds from each trigger's own template.
    let mut lock = server.pool.get().await.unwrap();
    lock.batch_execute("BEGIN; LOCK TABLE notifications IN SHARE MODE").await.unwrap();
    let name = |n: usize| if n.is_multiple_of(2) { "short" } else { "long" };
    let events: Vec<Value> = (0..40)
        .map(|n| json!({"name": name(n), "to": [format!("a{n}"), format!("b{n}")], "payload": {"n": n}, "transactionId": format!("tx{n}")}))
        .collect();
    let release = async {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        lock.batch_execute("COMMIT").await.unwrap();
    };
    let (results, ()) = tokio::join!(bulk(&server, events), release);
    assert_eq!(statuses(&results), vec!["processed"; 40], "{results:?}");

    for n in 0..40 {
        let events = events_of(&server, &format!("tx{n}")).await;
        let mut recipients: Vec<&str> =
            events.iter().map(|event| event["subscriber"]["subscriberId"].as_str().unwrap()).collect();
        recipients.sort_unstable();
        assert_eq!(recipients, [format!("a{n}"), format!("b{n}")], "tx{n}");
        for event in &events {
            assert_eq!(event["payload"], json!({"n": n}), "{event}");
            let jobs = event["jobs"].as_array().unwrap();
            let shape: Vec<(&str, &str)> =
                jobs.iter().map(|job| (job["type"].as_str().unwrap(), job["status"].as_str().unwrap())).collect();
            let expected = match name(n) {
                "short" => vec![("trigger", "completed"), ("in_app", "queued")],
                _ => vec![("trigger", "completed"), ("email", "queued"), ("in_app", "pending"), ("email", "pending")],
            };
            assert_eq!(shape, expected, "tx{n}: {jobs:?}");
            assert!(jobs.iter().all(|job| job["payload"] == json!({"n": n})), "tx{n}: {jobs:?}");
            let subscriber = event["subscriber"]["subscriberId"].as_str().unwrap();
            let triggered = format!("Triggered workflow {} for subscriber {subscriber}", name(n));
            assert_eq!(details(job(event, "trigger")), [triggered]);
        }
    }
}

#[derive(diesel::QueryableByName)]
struct Setting {
    #[diesel(sql_type = Text)]
    plan_cache_mode: String,
}

async fn plan_cache_mode(conn: &mut AsyncPgConnection) -> String {
    let setting: Setting = diesel::sql_query("SHOW plan_cache_mode").get_result(conn).await.unwrap();
    setting.plan_cache_mode
}

/// The transaction a trigger batch (or a worker's commit, or a topic page) runs in is begun with its
/// plan setting in one round trip: the setting holds inside it and ends with it (the pooled connection
/// goes back planning for values), and a failure rolls back everything the transaction wrote.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_transaction_plans_generically_until_it_ends_and_rolls_back_whole_on_failure() {
    let server = TestServer::start_api_only().await;
    let mut conn = server.pool.get().await.unwrap();
    assert_eq!(plan_cache_mode(&mut conn).await, "force_custom_plan", "a pooled connection's default");
    let claim = "INSERT INTO trigger_transactions (environment_id, transaction_id, created_at) VALUES ($1, $2, now())";

    begin_batch_transaction(&mut conn).await.unwrap();
    assert_eq!(plan_cache_mode(&mut conn).await, "force_generic_plan");
    let written = diesel::sql_query(claim)
        .bind::<SqlUuid, _>(server.environment_id)
        .bind::<Text, _>("kept")
        .execute(&mut conn)
        .await
        .map_err(AppError::from);
    end_batch_transaction(&mut conn, written).await.unwrap();
    assert_eq!(plan_cache_mode(&mut conn).await, "force_custom_plan", "the setting ended with its transaction");

    begin_batch_transaction(&mut conn).await.unwrap();
    let first = diesel::sql_query(claim)
        .bind::<SqlUuid, _>(server.environment_id)
        .bind::<Text, _>("rolled back")
        .execute(&mut conn)
        .await;
    assert!(first.is_ok());
    let failed = diesel::sql_query("SELECT 1 / 0").execute(&mut conn).await.map_err(AppError::from);
    assert!(end_batch_transaction(&mut conn, failed).await.is_err(), "the batch's own error is returned");
    assert_eq!(plan_cache_mode(&mut conn).await, "force_custom_plan");
    assert_eq!(count(&server, "trigger_transactions WHERE transaction_id = 'kept'").await, 1);
    let rolled_back = count(&server, "trigger_transactions WHERE transaction_id = 'rolled back'").await;
    assert_eq!(rolled_back, 0, "the failed transaction wrote nothing");
}

/// Group-commit batches stored by `path` (`pipelined`, `full`, `rolled_back`) since `before`.
async fn batches_since(server: &TestServer, before: &Scrape, path: &str) -> f64 {
    let path = [("path", path)];
    Scrape::of(server).await.value("herald_ingest_batches_total", &path)
        - before.value("herald_ingest_batches_total", &path)
}

fn greeting(to: Value, transaction_id: &str) -> Value {
    json!({"name": "feed", "to": to, "payload": {"tx": transaction_id}, "transactionId": transaction_id})
}

/// Subscribers this process stored a trigger for are known: the next batches to them are sent in two
/// round trips, and store what the full path stores: each recipient's notification and jobs, the
/// subscriber's sent fields.
#[tokio::test(flavor = "multi_thread")]
async fn a_batch_to_known_subscribers_is_pipelined_and_stores_what_the_full_path_stores() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "feed", json!([in_app_step(), email_step()])).await;
    let before = Scrape::of(&server).await;
    bulk(&server, vec![greeting(json!(["ada", "bob"]), "first")]).await;
    assert_eq!(batches_since(&server, &before, "full").await, 1.0, "unknown subscribers: the full path");
    assert_eq!(batches_since(&server, &before, "pipelined").await, 0.0);

    let events: Vec<Value> = (0..10)
        .map(|n| {
            let to =
                if n == 3 { json!({"subscriberId": "ada", "firstName": "Augusta"}) } else { json!(["ada", "bob"]) };
            greeting(to, &format!("tx{n}"))
        })
        .collect();
    let results = bulk(&server, events).await;
    assert_eq!(statuses(&results), vec!["processed"; 10], "{results:?}");
    assert!(batches_since(&server, &before, "pipelined").await >= 1.0);
    assert_eq!(batches_since(&server, &before, "full").await, 1.0, "only the first batch took the full path");
    assert_eq!(batches_since(&server, &before, "rolled_back").await, 0.0);

    let ada = "subscribers WHERE subscriber_id = 'ada' AND first_name = 'Augusta' AND version = 1";
    assert_eq!(count(&server, ada).await, 1, "the field a pipelined trigger sent is written");
    for n in 0..10 {
        let events = events_of(&server, &format!("tx{n}")).await;
        let mut recipients: Vec<&str> =
            events.iter().map(|event| event["subscriber"]["subscriberId"].as_str().unwrap()).collect();
        recipients.sort_unstable();
        let expected = if n == 3 { vec!["ada"] } else { vec!["ada", "bob"] };
        assert_eq!(recipients, expected, "tx{n}");
        for event in &events {
            assert_eq!(event["payload"], json!({"tx": format!("tx{n}")}));
            let shape: Vec<(&str, &str)> = event["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|job| (job["type"].as_str().unwrap(), job["status"].as_str().unwrap()))
                .collect();
            assert_eq!(shape, [("trigger", "completed"), ("in_app", "queued"), ("email", "pending")], "tx{n}");
        }
    }
    let of_live_rows = "notifications n JOIN subscribers s ON s.id = n.subscriber_id \
                        WHERE NOT s.deleted AND s.subscriber_id IN ('ada', 'bob')";
    assert_eq!(count(&server, of_live_rows).await, 21);
}

/// A keyed trigger: its status, whether it was replayed, and its body's bytes.
async fn trigger_keyed(server: &TestServer, key: &str, body: &Value) -> (u16, bool, Vec<u8>) {
    let response = server
        .request(Method::POST, "/v1/events/trigger")
        .header("idempotency-key", key)
        .json(body)
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let replayed = response.headers().get("idempotency-replay").is_some_and(|value| value == "true");
    (status, replayed, response.bytes().await.expect("a body").to_vec())
}

/// Keyed triggers to known subscribers are pipelined too, each key expected free and stored with its
/// trigger's outcome. A key that is not free (here it holds its first request's answer, and the
/// retry has no transactionId to refuse it by) rolls the batch back, and the full path replays the
/// answer: nothing is stored twice.
#[tokio::test(flavor = "multi_thread")]
async fn a_keyed_batch_to_known_subscribers_is_pipelined_and_a_used_key_rolls_it_back() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    trigger_processed(&server, greeting(json!("ada"), "first")).await;
    let before = Scrape::of(&server).await;

    let body = json!({"name": "feed", "to": "ada", "payload": {"tx": "keyed"}});
    let first = trigger_keyed(&server, "keyed-1", &body).await;
    assert_eq!((first.0, first.1), (201, false), "{}", String::from_utf8_lossy(&first.2));
    assert_eq!(batches_since(&server, &before, "pipelined").await, 1.0, "a fresh key: pipelined");
    assert_eq!(batches_since(&server, &before, "full").await, 0.0);
    let stored = "idempotency_keys WHERE key = 'keyed-1' AND trigger_outcome->>'status' = 'processed'";
    assert_eq!(count(&server, stored).await, 1, "the key is stored with its trigger's outcome");

    // Until the answer is added just after the batch the key holds the outcome, afterwards the answer:
    // either way it is not free.
    let retried = trigger_keyed(&server, "keyed-1", &body).await;
    assert_eq!(retried, (201, true, first.2), "the first answer, replayed");
    assert_eq!(batches_since(&server, &before, "rolled_back").await, 1.0, "the used key rolled it back");
    assert_eq!(count(&server, "notifications WHERE payload->>'tx' = 'keyed'").await, 1, "stored once");
}

/// A used transactionId aborts a pipelined batch: it is rolled back whole (the refused trigger's
/// subscriber fields are not written) and stored by the full path, where that trigger alone is refused.
#[tokio::test(flavor = "multi_thread")]
async fn a_used_transaction_id_rolls_a_pipelined_batch_back_and_is_refused_alone() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    bulk(&server, vec![greeting(json!(["ada", "bob"]), "used")]).await;
    let before = Scrape::of(&server).await;

    let mut events: Vec<Value> = (0..8).map(|n| greeting(json!("bob"), &format!("fresh{n}"))).collect();
    events.insert(4, greeting(json!({"subscriberId": "ada", "firstName": "Changed"}), "used"));
    let results = bulk(&server, events).await;
    let mut expected = vec!["processed"; 9];
    expected[4] = "error";
    assert_eq!(statuses(&results), expected, "{results:?}");
    assert!(results[4]["error"][0].as_str().unwrap().contains("already used"), "{}", results[4]);
    assert!(batches_since(&server, &before, "rolled_back").await >= 1.0);
    assert_eq!(count(&server, "subscribers WHERE first_name = 'Changed'").await, 0);
    assert_eq!(count(&server, "notifications WHERE transaction_id = 'used'").await, 2);
    assert_eq!(count(&server, "notifications WHERE transaction_id LIKE 'fresh%'").await, 8);
}

/// A known subscriber's id is only a guess: deleted, then created again under a new id, the pipelined
/// batches expecting the old id are rolled back, and each notification goes to the live row.
#[tokio::test(flavor = "multi_thread")]
async fn a_subscriber_deleted_and_created_again_is_notified_on_its_live_row() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    trigger_processed(&server, greeting(json!("ada"), "before")).await;
    let before = Scrape::of(&server).await;
    let live = "notifications n JOIN subscribers s ON s.id = n.subscriber_id WHERE NOT s.deleted AND n.transaction_id";

    let (status, body) = server.send_json(Method::DELETE, "/v2/subscribers/ada", &json!(null)).await;
    assert_eq!(status, 200, "{body}");
    trigger_processed(&server, greeting(json!("ada"), "after delete")).await;
    assert_eq!(batches_since(&server, &before, "rolled_back").await, 1.0, "the old id is a deleted row's");
    assert_eq!(count(&server, &format!("{live} = 'after delete'")).await, 1);

    let (status, body) = server.send_json(Method::DELETE, "/v2/subscribers/ada", &json!(null)).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    trigger_processed(&server, greeting(json!("ada"), "after re-creation")).await;
    assert_eq!(batches_since(&server, &before, "rolled_back").await, 2.0, "the upsert found another id");
    assert_eq!(count(&server, &format!("{live} = 'after re-creation'")).await, 1);

    trigger_processed(&server, greeting(json!("ada"), "known again")).await;
    assert_eq!(batches_since(&server, &before, "rolled_back").await, 2.0);
    assert_eq!(batches_since(&server, &before, "pipelined").await, 1.0, "the live row's id is known now");
    assert_eq!(count(&server, &format!("{live} = 'known again'")).await, 1);
    assert_eq!(count(&server, "subscribers WHERE subscriber_id = 'ada'").await, 3);
}

/// A pipelined transaction's `BEGIN` is not known to diesel-async's transaction manager: a connection
/// given back to the pool before the transaction ended (a panic mid-batch) must be discarded, not lent
/// out again inside the open transaction; one whose transaction ended is lent out again.
#[tokio::test(flavor = "multi_thread")]
async fn a_connection_left_inside_a_pipelined_transaction_is_discarded_by_the_pool() {
    let server = TestServer::start_api_only().await;
    let pool = build_pool(&server.database_url, 1).unwrap();
    let mut conn = pool.get().await.unwrap();
    let first = backend_pid(&mut conn).await;
    let transaction = PipelinedTransaction::new(&mut conn);
    PipelinedTransaction::begin(transaction.connection()).await.unwrap();
    transaction.commit().await.unwrap();
    assert_eq!(plan_cache_mode(&mut conn).await, "force_custom_plan");
    drop(conn);

    let mut conn = pool.get().await.unwrap();
    assert_eq!(backend_pid(&mut conn).await, first, "a connection whose transaction ended is lent out again");
    let transaction = PipelinedTransaction::new(&mut conn);
    PipelinedTransaction::begin(transaction.connection()).await.unwrap();
    // Neither committed nor rolled back: the connection goes back to the pool inside its transaction.
    drop(conn);

    let mut conn = pool.get().await.unwrap();
    assert_ne!(backend_pid(&mut conn).await, first, "the connection left inside its transaction is discarded");
    assert_eq!(plan_cache_mode(&mut conn).await, "force_custom_plan", "and its replacement is in none");
}
