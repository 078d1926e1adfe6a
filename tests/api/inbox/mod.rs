//! The subscriber inbox: sessions (application identifier, HMAC, subscriber creation), the token's
//! reach, the listing's cursor, exact counts, and marking. Messages are fixtures written as the engine
//! writes them (`activity_fixtures`); everything else goes over real HTTP (and gRPC).

mod actions;
mod bulk;
mod events;
mod marking;
mod notifications;
mod positions;
mod preferences;
mod session;
mod snooze;
mod stream_connections;
mod web;

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use herald::db::schema::{messages, workflows};
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{json, Value};
use sha2::Sha256;
use uuid::Uuid;

use crate::activity_fixtures::{message, subscriber, workflow, Env, MessageSpec};
use crate::engine::fixtures::backend_pid;
use crate::support::{http_client, read_json, TestServer};

/// An environment with an active in-app integration (credentials as given), subscribers ada and bob,
/// and a workflow tagged `orders`.
pub struct Inbox {
    pub server: TestServer,
    pub env: Env,
    pub ada: Value,
    pub bob: Value,
    pub flow: Value,
    pub application_identifier: String,
}

impl Inbox {
    pub async fn start(credentials: Value) -> Self {
        Self::on(TestServer::start().await, credentials).await
    }

    /// The same on an already started server.
    pub async fn on(server: TestServer, credentials: Value) -> Self {
        let env = Env::main(&server);
        let application_identifier = in_app_integration(&server, &env, credentials).await;
        let ada = subscriber(&server, &env, "ada", Some("ada@example.com")).await;
        let bob = subscriber(&server, &env, "bob", Some("bob@example.com")).await;
        let flow = workflow(&server, &env, "Order shipped", "high", &[("Inbox", "in_app")]).await;
        let workflow_id = Uuid::parse_str(flow["_id"].as_str().unwrap()).unwrap();
        let mut conn = server.pool.get().await.unwrap();
        diesel::update(workflows::table.find(workflow_id))
            .set(workflows::tags.eq(vec!["orders".to_string()]))
            .execute(&mut conn)
            .await
            .unwrap();
        drop(conn);
        Self { server, env, ada, bob, flow, application_identifier }
    }

    /// An in-app message to `subscriber` created at `created_at`; returns its id.
    pub async fn notify(&self, subscriber: &Value, created_at: DateTime<Utc>) -> Uuid {
        let transaction = Uuid::now_v7().to_string();
        let spec = MessageSpec {
            subscriber,
            workflow: &self.flow,
            channel: "in_app",
            transaction_id: &transaction,
            created_at,
        };
        message(&self.server, &self.env, spec).await
    }

    /// A session token of `subscriber_id` (the in-app integration without hmac).
    pub async fn token(&self, subscriber_id: &str) -> String {
        let (status, body) = self.open_session(&json!({"subscriberId": subscriber_id})).await;
        assert_eq!(status, 201, "{body}");
        body["data"]["token"].as_str().unwrap().to_string()
    }

    /// POST /v1/inbox/session with `fields` plus this environment's application identifier.
    pub async fn open_session(&self, fields: &Value) -> (u16, Value) {
        let mut body = fields.clone();
        body["applicationIdentifier"] = json!(self.application_identifier);
        let response = http_client().post(self.server.url("/v1/inbox/session")).json(&body).send().await.unwrap();
        read_json(response).await
    }

    /// A request with the session token `token`.
    pub async fn call(&self, token: &str, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut request =
            http_client().request(method, self.server.url(path)).header("authorization", format!("Bearer {token}"));
        if let Some(body) = body {
            request = request.json(body);
        }
        read_json(request.send().await.unwrap()).await
    }
}

/// Creates the in-app integration with `credentials`; returns the environment's application identifier.
pub async fn in_app_integration(server: &TestServer, env: &Env, credentials: Value) -> String {
    let body = json!({"providerId": "svc", "channel": "in_app", "active": true, "credentials": credentials});
    let (status, created) = env.send(server, Method::POST, "/v1/integrations", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    let (status, me) = env.get(server, "/v1/environments/me").await;
    assert_eq!(status, 200);
    me["applicationIdentifier"].as_str().expect("an application identifier").to_string()
}

/// The hex HMAC-SHA256 of `subscriber_id` keyed with `key`, as a customer's backend computes it.
pub fn subscriber_hash(key: &str, subscriber_id: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).unwrap();
    mac.update(subscriber_id.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// A time `minutes` before now (fixtures get distinct, ordered creation times).
pub fn minutes_ago(minutes: i64) -> DateTime<Utc> {
    Utc::now() - Duration::minutes(minutes)
}

/// The exact counts of `filters` (JSON objects) for the session `token`, in order.
pub async fn counts_of(inbox: &Inbox, token: &str, filters: Value) -> Vec<i64> {
    let query: String = url::form_urlencoded::byte_serialize(filters.to_string().as_bytes()).collect();
    let path = format!("/v1/inbox/notifications/count?filters={query}");
    let (status, body) = inbox.call(token, Method::GET, &path, None).await;
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().unwrap().iter().map(|count| count["count"].as_i64().unwrap()).collect()
}

/// The subscriber's inbox event log: (change, message id, unread, unseen) per event, in sequence order.
/// An arrival (`received`, no change) is logged by the insert of its message, the fixtures' too.
pub async fn event_log(inbox: &Inbox, subscriber: &Value) -> Vec<(Option<String>, Uuid, i64, i64)> {
    use diesel::sql_types::{BigInt, Nullable, Text, Uuid as SqlUuid};
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = Nullable<Text>)]
        change: Option<String>,
        #[diesel(sql_type = SqlUuid)]
        message_id: Uuid,
        #[diesel(sql_type = BigInt)]
        unread_count: i64,
        #[diesel(sql_type = BigInt)]
        unseen_count: i64,
    }
    let subscriber = Uuid::parse_str(subscriber["_id"].as_str().unwrap()).unwrap();
    let mut conn = inbox.server.pool.get().await.unwrap();
    let rows: Vec<Row> = diesel::sql_query(
        "SELECT change, message_id, unread_count, unseen_count FROM inbox_events WHERE subscriber_id = $1 ORDER BY seq",
    )
    .bind::<SqlUuid, _>(subscriber)
    .load(&mut conn)
    .await
    .unwrap();
    rows.into_iter().map(|row| (row.change, row.message_id, row.unread_count, row.unseen_count)).collect()
}

/// Runs the bulk `path` while the notification present at its start is locked, so that it is under
/// way when a second notification arrives and commits; returns (present, arrived).
pub async fn bulk_while_one_arrives(inbox: &Inbox, path: &str) -> (Uuid, Uuid) {
    let present = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    let token = inbox.token("ada").await;
    let mut holder = inbox.server.pool.get().await.unwrap();
    let (held_tx, held) = tokio::sync::oneshot::channel::<i32>();
    let (release_tx, release) = tokio::sync::oneshot::channel::<()>();
    let holding = tokio::spawn(async move {
        holder
            .transaction::<_, diesel::result::Error, _>(async |conn| {
                messages::table.find(present).select(messages::id).for_update().load::<Uuid>(conn).await?;
                held_tx.send(backend_pid(conn).await).unwrap();
                release.await.unwrap();
                Ok(())
            })
            .await
            .unwrap();
    });
    let holder_pid = held.await.unwrap();
    let running = {
        let url = inbox.server.url(path);
        tokio::spawn(async move {
            crate::support::http_client()
                .post(url)
                .header("authorization", format!("Bearer {token}"))
                .json(&json!({}))
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    wait_until_blocked_by(&inbox.server, holder_pid).await;
    let arrived = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    release_tx.send(()).unwrap();
    holding.await.unwrap();
    assert_eq!(running.await.unwrap(), 204);
    (present, arrived)
}

/// Waits until a statement of another connection waits for a lock that the backend `holder_pid` holds.
async fn wait_until_blocked_by(server: &TestServer, holder_pid: i32) {
    #[derive(QueryableByName)]
    struct Blocked {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        count: i64,
    }
    let mut conn = server.pool.get().await.unwrap();
    for _ in 0..600 {
        let blocked: Blocked =
            diesel::sql_query("SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))")
                .bind::<diesel::sql_types::Integer, _>(holder_pid)
                .get_result(&mut conn)
                .await
                .unwrap();
        if blocked.count > 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("nothing waited for the held lock within 30 s");
}

/// The ids of a listing's page.
pub fn ids(page: &Value) -> Vec<String> {
    page["data"].as_array().unwrap().iter().map(|item| item["id"].as_str().unwrap().to_string()).collect()
}
