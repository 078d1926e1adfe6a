//! Durability with real processes: a server killed with SIGKILL mid-run (triggers by calls, or over
//! streams) loses no acknowledged trigger and delivers nothing twice after a restart; two worker processes on one database never run a job twice.

use std::sync::Arc;
use std::time::Duration;

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use futures_util::StreamExt;
use serde_json::json;
use tokio::sync::Mutex;

use crate::process::{free_addr, prepare, wait_healthy, Herald};
use crate::support::{fresh_schema_url, http_client};

const TRIGGERS: usize = 2_000;

pub(super) async fn post(addr: &str, key: &str, path: &str, body: serde_json::Value) -> Option<serde_json::Value> {
    let response = http_client()
        .post(format!("http://{addr}{path}"))
        .header("authorization", format!("ApiKey {key}"))
        .json(&body)
        .send()
        .await
        .ok()?;
    if response.status().as_u16() != 201 {
        return None;
    }
    response.json().await.ok()
}

/// Sends the triggers 16 at a time; returns the transaction ids that were acknowledged. `on_progress`
/// runs after each acknowledgement with the count so far.
async fn send_triggers(
    addr: &str,
    key: &str,
    prefix: &str,
    on_progress: impl Fn(usize) + Send + Sync + 'static,
) -> Vec<String> {
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let on_progress = Arc::new(on_progress);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut senders = Vec::new();
    for _ in 0..16 {
        let (addr, key, prefix) = (addr.to_string(), key.to_string(), prefix.to_string());
        let (acknowledged, on_progress, next) = (acknowledged.clone(), on_progress.clone(), next.clone());
        senders.push(tokio::spawn(async move {
            loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if index >= TRIGGERS {
                    return;
                }
                let transaction_id = format!("{prefix}-{index}");
                let body = json!({"name": "crash", "to": format!("s-{}", index % 50), "transactionId": transaction_id});
                if let Some(answer) = post(&addr, &key, "/v1/events/trigger", body).await {
                    if answer["acknowledged"] == true {
                        let mut list = acknowledged.lock().await;
                        list.push(transaction_id);
                        on_progress(list.len());
                    }
                }
            }
        }));
    }
    for sender in senders {
        sender.await.unwrap();
    }
    Arc::try_unwrap(acknowledged).unwrap().into_inner()
}

#[derive(QueryableByName, Debug)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

pub(super) async fn count(conn: &mut AsyncPgConnection, sql: &str) -> i64 {
    diesel::sql_query(sql).get_result::<Count>(conn).await.unwrap().n
}

async fn wait_until_settled(conn: &mut AsyncPgConnection) {
    for _ in 0..1200 {
        if count(conn, "SELECT count(*) AS n FROM jobs WHERE status IN ('pending', 'queued', 'running', 'delayed')")
            .await
            == 0
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("jobs still open after 120 s");
}

/// The id of the schema's one environment (the one `prepare` created).
pub(super) async fn only_environment(conn: &mut AsyncPgConnection) -> uuid::Uuid {
    #[derive(QueryableByName)]
    struct Environment {
        #[diesel(sql_type = diesel::sql_types::Uuid)]
        id: uuid::Uuid,
    }
    let environment: Environment = diesel::sql_query("SELECT id FROM environments").get_result(conn).await.unwrap();
    environment.id
}

pub(super) async fn create_workflow(addr: &str, key: &str) {
    let workflow = json!({"workflowId": "crash", "name": "crash", "active": true,
        "steps": [{"name": "Inbox", "type": "in_app", "controlValues": {"body": "hello {{ subscriber.subscriberId }}"}}]});
    assert!(post(addr, key, "/v2/workflows", workflow).await.is_some());
}

/// Every notification has exactly one message, every in-app job ran once (one attempt), and each
/// acknowledged transaction exactly one message.
async fn assert_exactly_once(conn: &mut AsyncPgConnection, acknowledged: &[String]) {
    let notifications = count(conn, "SELECT count(*) AS n FROM notifications").await;
    assert!(notifications as usize >= acknowledged.len());
    assert_eq!(count(conn, "SELECT count(*) AS n FROM messages").await, notifications);
    assert_eq!(count(conn, "SELECT count(*) AS n FROM jobs WHERE status <> 'completed'").await, 0);
    assert_eq!(in_app_jobs_run_more_than_once(conn).await, 0, "a job ran its step twice");
    let ids: Vec<String> = acknowledged.to_vec();
    #[derive(QueryableByName)]
    struct PerTransaction {
        #[diesel(sql_type = diesel::sql_types::Text)]
        transaction_id: String,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let rows: Vec<PerTransaction> = diesel::sql_query(
        "SELECT transaction_id, count(*) AS n FROM messages WHERE transaction_id = ANY($1) GROUP BY transaction_id",
    )
    .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(ids)
    .load(conn)
    .await
    .unwrap();
    assert_eq!(rows.len(), acknowledged.len(), "every acknowledged trigger was delivered");
    for row in rows {
        assert_eq!(row.n, 1, "messages of {}", row.transaction_id);
    }
}

/// A server on a fresh schema with the `crash` workflow and one small worker loop, so that delivery lags
/// behind the triggers and a kill lands mid-run: (database URL, API key, address, the process).
async fn start_slow_server() -> (String, String, String, Arc<std::sync::Mutex<Herald>>) {
    let url = fresh_schema_url().await;
    let key = prepare(&url);
    let addr = free_addr();
    let slow = [("HERALD_WORKER_CONCURRENCY", "1"), ("HERALD_WORKER_BATCH_SIZE", "5")];
    let server = Arc::new(std::sync::Mutex::new(Herald::start_with(&url, &addr, "all", &slow)));
    wait_healthy(&addr).await;
    create_workflow(&addr, &key).await;
    (url, key, addr, server)
}

/// A progress callback that kills `server` (SIGKILL) when half the triggers are acknowledged.
fn kill_at_half(server: &Arc<std::sync::Mutex<Herald>>) -> impl Fn(usize) + Send + Sync + 'static {
    let server = server.clone();
    move |acknowledged| {
        if acknowledged == TRIGGERS / 2 {
            server.lock().unwrap().kill();
        }
    }
}

/// Starts the server again and, once every job has settled, checks that each of `acknowledged` was
/// delivered exactly once.
async fn restart_and_assert_exactly_once(url: &str, addr: &str, conn: &mut AsyncPgConnection, acknowledged: &[String]) {
    let _second = Herald::start(url, addr, "all");
    wait_healthy(addr).await;
    wait_until_settled(conn).await;
    assert_exactly_once(conn, acknowledged).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_mid_run_delivers_every_acknowledged_trigger_exactly_once_after_restart() {
    let (url, key, addr, first) = start_slow_server().await;
    let acknowledged = send_triggers(&addr, &key, "crash", kill_at_half(&first)).await;
    assert!(acknowledged.len() >= TRIGGERS / 2, "{} acknowledged", acknowledged.len());
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    let open =
        count(&mut conn, "SELECT count(*) AS n FROM jobs WHERE status IN ('pending', 'queued', 'running')").await;
    assert!(open > 0, "the kill happened before delivery finished, so there is work to recover");
    restart_and_assert_exactly_once(&url, &addr, &mut conn, &acknowledged).await;
}

/// Sends the triggers over four `StreamTriggerEvents` streams; returns the transaction ids answered
/// `processed`. `on_progress` runs after each such answer with the count so far. A stream ends at its
/// first error (the server killed).
async fn stream_triggers(addr: &str, key: &str, on_progress: impl Fn(usize) + Send + Sync + 'static) -> Vec<String> {
    use herald::proto::herald::v1 as pb;
    const STREAMS: usize = 4;
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let on_progress = Arc::new(on_progress);
    let mut streams = Vec::new();
    for stream in 0..STREAMS {
        let channel =
            tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
        let (sender, requests) = tokio::sync::mpsc::channel(64);
        let mut request = tonic::Request::new(tokio_stream::wrappers::ReceiverStream::new(requests));
        request.metadata_mut().insert("authorization", format!("ApiKey {key}").parse().unwrap());
        let mut answers = pb::events_service_client::EventsServiceClient::new(channel)
            .stream_trigger_events(request)
            .await
            .unwrap()
            .into_inner();
        tokio::spawn(async move {
            for index in (stream..TRIGGERS).step_by(STREAMS) {
                let event = pb::TriggerEventRequest {
                    name: "crash".into(),
                    to: vec![pb::TriggerRecipient {
                        kind: Some(pb::trigger_recipient::Kind::SubscriberId(format!("s-{}", index % 50))),
                    }],
                    transaction_id: Some(format!("stream-{index}")),
                    ..Default::default()
                };
                if sender.send(pb::StreamTriggerEventsRequest { event: Some(event) }).await.is_err() {
                    return; // the stream is gone
                }
            }
        });
        let (acknowledged, on_progress) = (acknowledged.clone(), on_progress.clone());
        streams.push(tokio::spawn(async move {
            while let Ok(Some(answer)) = answers.message().await {
                let answer = answer.result.unwrap();
                if answer.acknowledged {
                    let mut list = acknowledged.lock().await;
                    list.push(answer.transaction_id.unwrap());
                    on_progress(list.len());
                }
            }
        }));
    }
    for stream in streams {
        stream.await.unwrap();
    }
    Arc::try_unwrap(acknowledged).unwrap().into_inner()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_mid_stream_delivers_every_trigger_it_answered_exactly_once_after_restart() {
    let (url, key, addr, first) = start_slow_server().await;
    let acknowledged = stream_triggers(&addr, &key, kill_at_half(&first)).await;
    assert!(acknowledged.len() >= TRIGGERS / 2, "{} acknowledged", acknowledged.len());
    assert!(acknowledged.len() < TRIGGERS, "the kill cut the streams short");
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    restart_and_assert_exactly_once(&url, &addr, &mut conn, &acknowledged).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_worker_processes_share_one_database_without_running_a_job_twice() {
    let url = fresh_schema_url().await;
    let key = prepare(&url);
    let addr = free_addr();
    let _api = Herald::start(&url, &addr, "api");
    wait_healthy(&addr).await;
    create_workflow(&addr, &key).await;
    let acknowledged = send_triggers(&addr, &key, "pair", |_| {}).await;
    assert_eq!(acknowledged.len(), TRIGGERS);
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    assert_eq!(count(&mut conn, "SELECT count(*) AS n FROM messages").await, 0, "the api role delivers nothing");

    let _workers = [Herald::start(&url, &free_addr(), "worker"), Herald::start(&url, &free_addr(), "worker")];
    wait_until_settled(&mut conn).await;
    assert_exactly_once(&mut conn, &acknowledged).await;
}

/// How many in-app jobs ran more than once. An in-app step runs in the transaction that claims its job
/// and counts one more attempt there, and it stores no execution detail (the activity API renders
/// them), so a second committed run is a second attempt.
async fn in_app_jobs_run_more_than_once(conn: &mut AsyncPgConnection) -> i64 {
    count(conn, "SELECT count(*) AS n FROM jobs WHERE type = 'in_app' AND attempts > 1").await
}

/// How many `kind` jobs logged `detail` a number of times matching `times` (`= 1`, `> 1`).
async fn jobs_logging(conn: &mut AsyncPgConnection, kind: &str, detail: &str, times: &str) -> i64 {
    let sql = format!(
        "SELECT count(*) AS n FROM (
             SELECT d.job_id FROM execution_details AS d JOIN jobs AS j ON j.id = d.job_id
             WHERE d.detail = '{detail}' AND j.type = '{kind}' GROUP BY d.job_id HAVING count(*) {times}
         ) AS per_job"
    );
    count(conn, &sql).await
}

/// Polls `sql` (a count) until it reaches `expected`, for at most 30 s (a loaded machine is slow).
pub(super) async fn wait_for_count(conn: &mut AsyncPgConnection, sql: &str, expected: i64) {
    for _ in 0..1200 {
        if count(conn, sql).await == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("`{sql}` never reached {expected}");
}

#[tokio::test(flavor = "multi_thread")]
async fn delayed_and_digesting_jobs_survive_a_kill_and_fire_once_after_restart() {
    const EACH: usize = 100;
    let url = fresh_schema_url().await;
    let key = prepare(&url);
    let addr = free_addr();
    let mut first = Herald::start(&url, &addr, "all");
    wait_healthy(&addr).await;
    let inbox = |body: &str| json!({"name": "Inbox", "type": "in_app", "controlValues": {"body": body}});
    let wait = json!({"workflowId": "wait", "name": "wait", "active": true, "steps": [
        {"name": "Wait", "type": "delay", "controlValues": {"type": "regular", "amount": 6, "unit": "seconds"}},
        inbox("waited {{ payload.n }}")]});
    let bundle = json!({"workflowId": "bundle", "name": "bundle", "active": true, "steps": [
        {"name": "Digest", "type": "digest", "controlValues": {"type": "regular", "amount": 6, "unit": "seconds"}},
        inbox("{{ step.total_count }}:{% for event in step.events %} {{ event.n }}{% endfor %}")]});
    assert!(post(&addr, &key, "/v2/workflows", wait).await.is_some());
    assert!(post(&addr, &key, "/v2/workflows", bundle).await.is_some());

    // Real seconds: 100 delays for 100 subscribers, and 100 digest events for two subscribers.
    let triggers = (0..EACH).flat_map(|n| {
        [
            json!({"name": "wait", "to": format!("w-{n}"), "payload": {"n": n}}),
            json!({"name": "bundle", "to": format!("d-{}", n % 2), "payload": {"n": n}}),
        ]
    });
    let answers: Vec<Option<serde_json::Value>> =
        futures_util::stream::iter(triggers.map(|body| post(&addr, &key, "/v1/events/trigger", body)))
            .buffer_unordered(16)
            .collect()
            .await;
    assert!(answers.iter().all(|answer| answer.as_ref().is_some_and(|a| a["acknowledged"] == true)));
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    wait_for_count(&mut conn, "SELECT count(*) AS n FROM jobs WHERE type = 'delay' AND status = 'delayed'", 100).await;
    wait_for_count(
        &mut conn,
        "SELECT count(*) AS n FROM jobs WHERE type = 'digest' AND status IN ('delayed', 'merged')",
        100,
    )
    .await;
    first.kill();
    assert_eq!(count(&mut conn, "SELECT count(*) AS n FROM messages").await, 0, "killed while everything waits");

    let _second = Herald::start(&url, &addr, "all");
    wait_until_settled(&mut conn).await;
    assert_eq!(jobs_logging(&mut conn, "delay", "Delay finished", "= 1").await, 100);
    assert_eq!(jobs_logging(&mut conn, "delay", "Delay finished", "> 1").await, 0);
    assert_eq!(in_app_jobs_run_more_than_once(&mut conn).await, 0);
    assert_eq!(
        count(&mut conn, "SELECT count(*) AS n FROM messages WHERE content #>> '{}' LIKE 'waited %'").await,
        100
    );

    // One digest per subscriber, fired once, holding each of its 50 events exactly once.
    let bodies: Vec<String> = {
        #[derive(QueryableByName)]
        struct Body {
            #[diesel(sql_type = diesel::sql_types::Text)]
            body: String,
        }
        let rows: Vec<Body> = diesel::sql_query(
            "SELECT content #>> '{}' AS body FROM messages WHERE content #>> '{}' NOT LIKE 'waited %'",
        )
        .load(&mut conn)
        .await
        .unwrap();
        rows.into_iter().map(|row| row.body).collect()
    };
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let mut numbers: Vec<usize> = Vec::new();
    for body in &bodies {
        let (total, list) = body.split_once(':').unwrap();
        assert_eq!(total, "50", "{body}");
        numbers.extend(list.split_whitespace().map(|n| n.parse::<usize>().unwrap()));
    }
    numbers.sort_unstable();
    assert_eq!(numbers, (0..EACH).collect::<Vec<_>>());
    assert_eq!(jobs_logging(&mut conn, "digest", "Digest window closed with 50 events", "= 1").await, 2);
    assert_eq!(jobs_logging(&mut conn, "digest", "Digest window closed with 50 events", "> 1").await, 0);
}

/// A worker killed with SIGKILL in the middle of a topic's fan-out (its pages in flight, each running
/// its in-app steps in its own transaction): the next worker takes the fan-out over when its lease
/// expires and resumes after the last committed page; every member ends with exactly one notification,
/// its job and its message, the one also named directly included.
#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_mid_fan_out_resumes_without_losing_or_doubling_a_member() {
    const MEMBERS: i64 = 20_000;
    let url = fresh_schema_url().await;
    let key = prepare(&url);
    let addr = free_addr();
    let _api = Herald::start(&url, &addr, "api");
    wait_healthy(&addr).await;
    create_workflow(&addr, &key).await;
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    let environment = only_environment(&mut conn).await;
    crate::topics::fanout::seed_topic(&mut conn, environment, "crowd", MEMBERS).await;
    let body =
        json!({"name": "crash", "transactionId": "fan", "to": [{"type": "Topic", "topicKey": "crowd"}, "crowd-7"]});
    let answer = post(&addr, &key, "/v1/events/trigger", body).await.expect("trigger accepted");
    assert_eq!(answer["acknowledged"], true, "{answer}");
    assert_eq!(
        count(&mut conn, "SELECT count(*) AS n FROM notifications").await,
        1,
        "only the direct recipient so far"
    );

    let mut first = Herald::start(&url, &free_addr(), "worker");
    let mut at_kill = 0;
    for _ in 0..6_000 {
        at_kill = count(&mut conn, "SELECT count(*) AS n FROM notifications").await;
        if at_kill > 2_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    first.kill();
    let at_kill = count(&mut conn, "SELECT count(*) AS n FROM notifications").await.max(at_kill);
    assert!(at_kill > 1 && at_kill < MEMBERS, "the kill landed mid-fan-out ({at_kill} notifications)");

    let _second = Herald::start(&url, &free_addr(), "worker");
    wait_for_count(&mut conn, "SELECT count(*) AS n FROM topic_fanouts WHERE status = 'completed'", 1).await;
    assert_eq!(count(&mut conn, "SELECT count(*) AS n FROM notifications").await, MEMBERS);
    assert_eq!(count(&mut conn, "SELECT count(DISTINCT subscriber_id) AS n FROM notifications").await, MEMBERS);
    assert_eq!(
        count(&mut conn, "SELECT count(*) AS n FROM jobs").await,
        MEMBERS,
        "an in-app job each (trigger jobs are not stored)"
    );
    wait_for_count(&mut conn, "SELECT count(*) AS n FROM jobs WHERE status = 'completed'", MEMBERS).await;
    assert_exactly_once(&mut conn, &[]).await;
    assert_eq!(count(&mut conn, "SELECT count(DISTINCT subscriber_id) AS n FROM messages").await, MEMBERS);
    assert_eq!(count(&mut conn, "SELECT attempts::bigint AS n FROM topic_fanouts").await, 2, "taken over once");
}

/// A keyed trigger: status, `Idempotency-Replay`, body bytes; None when the server did not answer.
async fn post_keyed(addr: &str, key: &str, index: usize) -> Option<(u16, bool, Vec<u8>)> {
    let response = http_client()
        .post(format!("http://{addr}/v1/events/trigger"))
        .header("authorization", format!("ApiKey {key}"))
        .header("idempotency-key", format!("k-{index}"))
        .json(&json!({"name": "crash", "to": format!("s-{index}")}))
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    let replayed = response.headers().get("idempotency-replay").is_some();
    Some((status, replayed, response.bytes().await.ok()?.to_vec()))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kill_mid_request_leaves_no_work_without_its_key_and_no_key_done_without_its_work() {
    const KEYED: usize = 1_000;
    let url = fresh_schema_url().await;
    let key = prepare(&url);
    let addr = free_addr();
    let first = Arc::new(std::sync::Mutex::new(Herald::start(&url, &addr, "api")));
    wait_healthy(&addr).await;
    create_workflow(&addr, &key).await;

    // Each keyed trigger goes to a subscriber of its own (`k-i` → `s-i`), without a transactionId: only
    // the key can keep a retry from storing it twice.
    let answered = Arc::new(Mutex::new(Vec::new()));
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut senders = Vec::new();
    for _ in 0..16 {
        let (addr, key, answered, next, first) =
            (addr.clone(), key.clone(), answered.clone(), next.clone(), first.clone());
        senders.push(tokio::spawn(async move {
            loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if index >= KEYED {
                    return;
                }
                match post_keyed(&addr, &key, index).await {
                    Some((201, _, body)) => {
                        let mut list = answered.lock().await;
                        list.push((index, body));
                        if list.len() == KEYED / 4 {
                            first.lock().unwrap().kill();
                        }
                    }
                    _ => continue,
                }
            }
        }));
    }
    for sender in senders {
        sender.await.unwrap();
    }
    let answered = Arc::try_unwrap(answered).unwrap().into_inner();
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    let of_key = "s.subscriber_id = 's-' || substr(k.key, 3)";
    let work_without_key = format!(
        "SELECT count(*) AS n FROM notifications n JOIN subscribers s ON s.id = n.subscriber_id
         WHERE NOT EXISTS (SELECT 1 FROM idempotency_keys k WHERE {of_key})"
    );
    let done_without_work = format!(
        "SELECT count(*) AS n FROM idempotency_keys k
         WHERE (k.response_status IS NOT NULL OR k.trigger_outcome IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM notifications n JOIN subscribers s ON s.id = n.subscriber_id WHERE {of_key})"
    );
    assert_eq!(count(&mut conn, &work_without_key).await, 0, "work stored under no key");
    assert_eq!(count(&mut conn, &done_without_work).await, 0, "a key done for work not stored");

    // The key is written with the trigger's outcome in the trigger's batch: none is left in progress by
    // the kill. (Its answer follows just after, so the kill can leave a key with its outcome alone.)
    let in_progress =
        "SELECT count(*) AS n FROM idempotency_keys WHERE response_status IS NULL AND trigger_outcome IS NULL";
    assert_eq!(count(&mut conn, in_progress).await, 0, "a key left in progress");

    // After a restart every request is retried with its key: an answered one replays its answer (from
    // the stored answer, or from the stored outcome if the kill came first), one cut short by the kill
    // runs now (its work was lost with its key), and nothing is stored twice.
    let _second = Herald::start(&url, &addr, "api");
    wait_healthy(&addr).await;
    for (index, body) in &answered {
        let replay = post_keyed(&addr, &key, *index).await.expect("an answer");
        assert_eq!(replay, (201, true, body.clone()), "k-{index}");
    }
    for index in 0..KEYED {
        let (status, _, body) = post_keyed(&addr, &key, index).await.expect("an answer");
        assert_eq!(status, 201, "k-{index}: {}", String::from_utf8_lossy(&body));
    }
    assert_eq!(count(&mut conn, "SELECT count(*) AS n FROM notifications").await, KEYED as i64);
    let twice = "SELECT count(*) AS n FROM (SELECT subscriber_id FROM notifications GROUP BY 1 HAVING count(*) > 1) t";
    assert_eq!(count(&mut conn, twice).await, 0, "a keyed trigger stored twice");
    assert_eq!(count(&mut conn, &work_without_key).await, 0);
    assert_eq!(count(&mut conn, &done_without_work).await, 0);
}
