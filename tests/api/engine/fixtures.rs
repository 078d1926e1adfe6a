//! Workflows, integrations and waiting helpers shared by the engine tests.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reqwest::Method;
use serde_json::{json, Value};

use super::receiver::Receiver;
use crate::support::TestServer;

/// Creates an active workflow `identifier` with `steps` (`{name, type, controlValues, …}`) over REST.
pub async fn create_workflow(server: &TestServer, identifier: &str, steps: Value) -> Value {
    create_workflow_with(server, json!({"workflowId": identifier, "name": identifier, "active": true, "steps": steps}))
        .await
}

/// Creates a workflow from a whole body.
pub async fn create_workflow_with(server: &TestServer, body: Value) -> Value {
    let (status, created) = server.send_json(Method::POST, "/v2/workflows", &body).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// An in-app step rendering the payload and the subscriber.
pub fn in_app_step() -> Value {
    json!({"name": "Inbox", "type": "in_app", "controlValues": {
        "subject": "Order {{ payload.orderId }}",
        "body": "Hi {{ subscriber.firstName | default: 'there' }}, order {{ payload.orderId }} shipped",
        "redirect": {"url": "https://shop.example/orders/{{ payload.orderId }}", "target": "_self"},
        "primaryAction": {"label": "Track", "redirect": {"url": "https://shop.example/track"}}
    }})
}

/// The signing secret of the test webhook integrations.
pub const SECRET: &str = "whsec-test";

/// An active email-webhook integration posting to `receiver`'s `/mail`.
pub async fn email_integration(server: &TestServer, receiver: &Receiver) {
    create_integration(
        server,
        json!({"providerId": "email-webhook", "channel": "email", "identifier": "mail-hook", "active": true,
               "credentials": {"webhookUrl": receiver.url("/mail"), "secretKey": SECRET, "from": "shop@example.com"}}),
    )
    .await;
}

/// An email step rendering the payload and the subscriber.
pub fn email_step() -> Value {
    json!({"name": "Mail", "type": "email", "controlValues": {"subject": "Order {{ payload.orderId }}", "body": "<p>Hello {{ subscriber.firstName }}</p>"}})
}

/// Creates an active integration over REST and returns it.
pub async fn create_integration(server: &TestServer, body: Value) -> Value {
    let (status, created) = server.send_json(Method::POST, "/v1/integrations", &body).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// A `chat-webhook` integration and the workflow `chat` of one chat step ("Hi"): the destination is
/// each subscriber's `webhookUrl` credential.
pub async fn chat_webhook_workflow(server: &TestServer) {
    create_integration(
        server,
        json!({"providerId": "chat-webhook", "channel": "chat", "identifier": "chat-hook", "active": true,
               "credentials": {"secretKey": SECRET}}),
    )
    .await;
    create_workflow(server, "chat", json!([{"name": "Chat", "type": "chat", "controlValues": {"body": "Hi"}}])).await;
}

/// A trigger's `to` entry: subscriber `subscriber_id` with a chat webhook at `webhook_url`.
pub fn chat_recipient(subscriber_id: &str, webhook_url: &str) -> Value {
    json!({"subscriberId": subscriber_id, "channels": [{"providerId": "chat-webhook",
           "credentials": {"webhookUrl": webhook_url}}]})
}

/// Triggers over REST; returns the status and body.
pub async fn trigger(server: &TestServer, body: Value) -> (u16, Value) {
    server.send_json(Method::POST, "/v1/events/trigger", &body).await
}

/// Triggers and asserts it was processed; returns the transaction id.
pub async fn trigger_processed(server: &TestServer, body: Value) -> String {
    let (status, response) = trigger(server, body).await;
    assert_eq!(status, 201, "{response}");
    assert_eq!(response["status"], "processed", "{response}");
    assert_eq!(response["acknowledged"], true);
    response["transactionId"].as_str().unwrap().to_string()
}

/// Waits until no fan-out of the environment is left to expand and no job left to run (pending, queued,
/// running or delayed); past 30 s, fails naming each open job's type, status, attempts, lease holder and
/// error.
pub async fn wait_until_settled(server: &TestServer) {
    use herald::db::schema::{jobs, topic_fanouts};
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mut conn = server.pool.get().await.unwrap();
        // Fan-outs first: one completed has committed every page, and with them their jobs.
        let fanning_out: i64 = topic_fanouts::table
            .filter(topic_fanouts::environment_id.eq(server.environment_id))
            .filter(topic_fanouts::status.ne("completed"))
            .count()
            .get_result(&mut conn)
            .await
            .unwrap();
        let open: i64 = jobs::table
            .filter(jobs::environment_id.eq(server.environment_id))
            .filter(jobs::status.eq_any(["pending", "queued", "running", "delayed"]))
            .count()
            .get_result(&mut conn)
            .await
            .unwrap();
        if open == 0 && fanning_out == 0 {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            /// type, status, attempts, lease holder, error
            type OpenJob = (String, String, i32, Option<String>, Option<String>);
            let states: Vec<OpenJob> = jobs::table
                .filter(jobs::environment_id.eq(server.environment_id))
                .filter(jobs::status.eq_any(["pending", "queued", "running", "delayed"]))
                .select((jobs::type_, jobs::status, jobs::attempts, jobs::lease_owner, jobs::error))
                .load(&mut conn)
                .await
                .unwrap();
            panic!("{open} jobs still open after 30 s: {states:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until no job of the environment is due or running: what is left waits for the clock (`delayed`
/// or `queued` until a later time) or for its predecessor (`pending`).
pub async fn wait_until_only_waiting(server: &TestServer) {
    use herald::db::schema::jobs;
    for _ in 0..600 {
        let mut conn = server.pool.get().await.unwrap();
        let due = jobs::status.eq_any(["queued", "delayed"]).and(jobs::run_at.le(server.clock.now()));
        let busy: i64 = jobs::table
            .filter(jobs::environment_id.eq(server.environment_id))
            .filter(due.or(jobs::status.eq("running")))
            .count()
            .get_result(&mut conn)
            .await
            .unwrap();
        if busy == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("jobs still queued or running after 30 s");
}

/// The events of a transaction, through the activity API.
pub async fn events_of(server: &TestServer, transaction_id: &str) -> Vec<Value> {
    // A wide time window: tests move the engine's clock, so events may be dated far from the real now.
    let (status, body) = server
        .get_json(&format!(
            "/v1/notifications?transactionId={transaction_id}&limit=50&after=2000-01-01T00:00:00Z&before=2999-01-01T00:00:00Z"
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// The messages of a transaction, through the messages API.
pub async fn messages_of(server: &TestServer, transaction_id: &str) -> Vec<Value> {
    let (status, body) = server.get_json(&format!("/v1/messages?transactionId={transaction_id}&limit=1000")).await;
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// The job of `kind` in an event.
pub fn job<'a>(event: &'a Value, kind: &str) -> &'a Value {
    event["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|job| job["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} job in {event}"))
}

/// The `detail` texts of a job's execution details.
pub fn details(job: &Value) -> Vec<String> {
    job["executionDetails"].as_array().unwrap().iter().map(|d| d["detail"].as_str().unwrap().to_string()).collect()
}

/// `SELECT count(*)` of `sql_table` (a table, with any join or `WHERE` after it) in the server's schema.
pub async fn count(server: &TestServer, sql_table: &str) -> i64 {
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = server.pool.get().await.unwrap();
    let row: Count =
        diesel::sql_query(format!("SELECT count(*) AS n FROM {sql_table}")).get_result(&mut conn).await.unwrap();
    row.n
}

/// A chat webhook receiver on 127.0.0.1 that answers every post after a delay; it counts the posts
/// that reached it and the most it held at once.
pub struct SlowChatReceiver {
    pub addr: SocketAddr,
    posts: Arc<AtomicUsize>,
    most_at_once: Arc<AtomicUsize>,
}

impl SlowChatReceiver {
    pub async fn start(delay: Duration) -> Self {
        let posts = Arc::new(AtomicUsize::new(0));
        let most_at_once = Arc::new(AtomicUsize::new(0));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let (counted, most) = (posts.clone(), most_at_once.clone());
        let answer = move || {
            let (counted, most, in_flight) = (counted.clone(), most.clone(), in_flight.clone());
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                most.fetch_max(in_flight.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
                in_flight.fetch_sub(1, Ordering::SeqCst);
                "ok"
            }
        };
        let app = axum::Router::new().route("/chat/{who}", axum::routing::post(answer));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { addr, posts, most_at_once }
    }

    // Through `AtomicUsize` itself: on the `Arc`, `load` could resolve to diesel's `RunQueryDsl::load`.
    pub fn posts(&self) -> usize {
        AtomicUsize::load(&self.posts, Ordering::SeqCst)
    }

    pub fn most_at_once(&self) -> usize {
        AtomicUsize::load(&self.most_at_once, Ordering::SeqCst)
    }
}

/// The process id of the PostgreSQL backend serving `conn`.
pub async fn backend_pid(conn: &mut diesel_async::AsyncPgConnection) -> i32 {
    #[derive(QueryableByName)]
    struct Backend {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pid: i32,
    }
    diesel::sql_query("SELECT pg_backend_pid() AS pid").get_result::<Backend>(conn).await.unwrap().pid
}
