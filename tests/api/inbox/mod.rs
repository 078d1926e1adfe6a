//! The subscriber inbox: sessions (application identifier, HMAC, subscriber creation), the token's
//! reach, the listing's cursor, exact counts, and marking. Messages are fixtures written as the engine
//! writes them (`activity_fixtures`); everything else goes over real HTTP (and gRPC).

mod events;
mod marking;
mod notifications;
mod session;

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use herald::db::schema::workflows;
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{json, Value};
use sha2::Sha256;
use uuid::Uuid;

use crate::activity_fixtures::{message, subscriber, workflow, Env, MessageSpec};
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

/// The ids of a listing's page.
pub fn ids(page: &Value) -> Vec<String> {
    page["data"].as_array().unwrap().iter().map(|item| item["id"].as_str().unwrap().to_string()).collect()
}
