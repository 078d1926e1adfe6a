//! Delivery-status webhooks end to end: a real email goes out through a provider's local fake (so the
//! message has the provider's real id), then the provider's status post, signed as the provider signs
//! it, reaches `POST /v1/webhooks/{environmentId}/{integrationId}` without an API key.

mod mailgun;
mod postmark;
mod resend;
mod sendgrid;
mod twilio;

// The engine tests' helpers (workflows, triggers, waiting, reading events and messages), used as they
// are rather than copied; `receiver` is the module they import. `engine` keeps them private, and this
// branch leaves `tests/api/engine/` alone: making them `pub(crate)` there would let this become a `use`.
#[path = "../engine/fixtures.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod fixtures;
#[path = "../engine/receiver.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod receiver;

use reqwest::header::HeaderMap;
use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{http_client, read_json, TestServer};
use fixtures::{create_integration, create_workflow, email_step, events_of, job, messages_of, trigger_processed};

/// An email Herald sent through a provider, as the status webhook sees it.
pub struct Sent {
    pub transaction_id: String,
    /// The integration's `_id`: the webhook's path names it.
    pub integration_id: String,
    /// What the adapter stored on the message.
    pub provider_message_id: String,
}

/// Creates `integration` (an active email integration), sends Ada one email through it and waits
/// until it went out.
pub async fn send_email(server: &TestServer, integration: Value) -> Sent {
    let integration = create_integration(server, integration).await;
    create_workflow(server, "mail", json!([email_step()])).await;
    let to = json!({"subscriberId": "ada", "firstName": "Ada", "email": "ada@example.com"});
    let transaction_id =
        trigger_processed(server, json!({"name": "mail", "to": to, "payload": {"orderId": "W-1"}})).await;
    fixtures::wait_until_settled(server).await;
    let message = message(server, &transaction_id).await;
    assert_eq!(message["status"], "sent", "{message}");
    let provider_message_id = stored_provider_message_id(server).await.expect("the adapter stored the provider's id");
    Sent { transaction_id, integration_id: integration["_id"].as_str().unwrap().to_string(), provider_message_id }
}

async fn stored_provider_message_id(server: &TestServer) -> Option<String> {
    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;
    use herald::db::schema::messages;
    let mut conn = server.pool.get().await.unwrap();
    messages::table.select(messages::provider_message_id).first(&mut conn).await.unwrap()
}

/// POSTs `body` to the integration's status webhook with `headers` and no API key.
pub async fn post_webhook(
    server: &TestServer,
    integration_id: &str,
    headers: HeaderMap,
    body: impl Into<reqwest::Body>,
) -> (u16, Value) {
    let path = webhook_path(server, integration_id);
    let response = http_client().post(server.url(&path)).headers(headers).body(body).send().await.expect("sent");
    read_json(response).await
}

pub fn webhook_path(server: &TestServer, integration_id: &str) -> String {
    format!("/v1/webhooks/{}/{integration_id}", server.environment_id)
}

/// The one message of the transaction, through the messages API.
pub async fn message(server: &TestServer, transaction_id: &str) -> Value {
    let messages = messages_of(server, transaction_id).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    messages[0].clone()
}

/// `deliveredAt`: when the provider accepted the message (the engine records it), then each delivery
/// a status webhook reported.
pub fn delivery_times(message: &Value) -> Vec<&str> {
    message["deliveredAt"].as_array().unwrap().iter().map(|at| at.as_str().unwrap()).collect()
}

/// When the provider accepted the message: the first delivery time, recorded by the engine.
pub fn sent_at(message: &Value) -> &str {
    message["deliveredAt"][0].as_str().expect("the engine records when the provider accepted the message")
}

/// The execution details of the transaction's email job, oldest first.
pub async fn email_details(server: &TestServer, transaction_id: &str) -> Vec<Value> {
    let event = &events_of(server, transaction_id).await[0];
    job(event, "email")["executionDetails"].as_array().unwrap().clone()
}

/// The details the status webhook added: `(status, detail)` of those whose source is `Webhook`.
pub async fn webhook_details(server: &TestServer, transaction_id: &str) -> Vec<(String, String)> {
    email_details(server, transaction_id)
        .await
        .iter()
        .filter(|detail| detail["source"] == "Webhook")
        .map(|detail| (detail["status"].as_str().unwrap().to_string(), detail["detail"].as_str().unwrap().to_string()))
        .collect()
}

/// What a refused post must leave alone: the message as the API shows it and every detail.
pub async fn snapshot(server: &TestServer, transaction_id: &str) -> (Value, Vec<Value>) {
    (message(server, transaction_id).await, email_details(server, transaction_id).await)
}

/// Asserts a 401 in the contract's error shape for the webhook path.
pub fn assert_refused(server: &TestServer, integration_id: &str, (status, body): (u16, Value)) {
    assert_eq!(status, 401, "{body}");
    assert_error_shape(&body, 401, "Unauthorized", &webhook_path(server, integration_id));
}

pub fn assert_error_shape(body: &Value, status: u16, reason: &str, path: &str) {
    assert_eq!(body["statusCode"], status, "{body}");
    assert_eq!(body["error"], reason, "{body}");
    assert_eq!(body["path"], path, "{body}");
    assert!(body["message"].as_str().is_some_and(|message| !message.is_empty()), "{body}");
    assert!(body["timestamp"].as_str().is_some_and(|at| at.ends_with('Z')), "{body}");
}

pub fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    pairs
        .iter()
        .map(|(name, value)| {
            (reqwest::header::HeaderName::from_bytes(name.as_bytes()).unwrap(), value.parse().unwrap())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_environments_unknown_or_deleted_integrations_and_providers_without_webhooks_are_404() {
    let server = TestServer::start().await;
    let resend = create_integration(
        &server,
        json!({"providerId": "resend", "channel": "email", "identifier": "gone", "credentials": {"secretKey": "whsec_AAAA"}}),
    )
    .await;
    let resend_id = resend["_id"].as_str().unwrap();
    let ses = create_integration(&server, json!({"providerId": "ses", "channel": "email", "identifier": "ses"})).await;
    let (other_environment, _) = server.other_environment("production").await;
    let unknown = uuid::Uuid::now_v7();

    let (status, _) = server.send_json(Method::DELETE, &format!("/v1/integrations/{resend_id}"), &json!({})).await;
    assert_eq!(status, 200);
    let environment = server.environment_id;
    for (path, named) in [
        (format!("/v1/webhooks/{unknown}/{resend_id}"), unknown.to_string()),
        (format!("/v1/webhooks/not-an-id/{resend_id}"), "not-an-id".to_string()),
        (format!("/v1/webhooks/{environment}/{unknown}"), unknown.to_string()),
        (format!("/v1/webhooks/{environment}/{resend_id}"), resend_id.to_string()),
        (format!("/v1/webhooks/{other_environment}/{}", ses["_id"].as_str().unwrap()), ses["_id"].to_string()),
        (format!("/v1/webhooks/{environment}/{}", ses["_id"].as_str().unwrap()), ses["_id"].to_string()),
    ] {
        let response = http_client().post(server.url(&path)).json(&json!({})).send().await.unwrap();
        let (status, body) = read_json(response).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert_error_shape(&body, 404, "Not Found", &path);
        let message = body["message"].as_str().unwrap();
        assert!(message.contains(named.trim_matches('"')) && !message.starts_with("Cannot"), "{path}: {body}");
    }
    let response =
        http_client().get(server.url(&format!("/v1/webhooks/{environment}/{unknown}"))).send().await.unwrap();
    assert_eq!(response.status(), 405, "only POST");
}
