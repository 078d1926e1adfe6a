//! Delivery-status webhooks end to end: a real email goes out through a provider's local fake (so the
//! message has the provider's real id), then the provider's status post, signed as the provider signs
//! it, reaches `POST /v1/webhooks/{environmentId}/{integrationId}` without an API key.

mod mailgun;
mod postmark;
mod resend;
mod sendgrid;
mod ses;
mod twilio;

// The engine tests' helpers (workflows, triggers, waiting, reading events and messages), used as they
// are rather than copied; `receiver` is the module they import. `engine` keeps them private, and this
// branch leaves `tests/api/engine/` alone: making them `pub(crate)` there would let this become a `use`.

use reqwest::header::HeaderMap;
use reqwest::Method;
use serde_json::{json, Value};

use crate::engine::fixtures::{
    create_integration, create_workflow, email_step, events_of, job, messages_of, trigger_processed,
};
use crate::support::{http_client, read_json, TestServer};

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
    crate::engine::fixtures::wait_until_settled(server).await;
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

/// The details the status webhook added (source `Webhook`), as `"<status>: <detail>"`, oldest first.
pub async fn webhook_details(server: &TestServer, transaction_id: &str) -> Vec<String> {
    message_job_details(server, transaction_id)
        .await
        .iter()
        .filter(|detail| detail["source"] == "Webhook")
        .map(|detail| format!("{}: {}", detail["status"].as_str().unwrap(), detail["detail"].as_str().unwrap()))
        .collect()
}

/// The execution details of the transaction's email or SMS job, oldest first.
async fn message_job_details(server: &TestServer, transaction_id: &str) -> Vec<Value> {
    let event = &events_of(server, transaction_id).await[0];
    let channel = if has_job(event, "sms") { "sms" } else { "email" };
    job(event, channel)["executionDetails"].as_array().unwrap().clone()
}

fn has_job(event: &Value, step_type: &str) -> bool {
    event["jobs"].as_array().into_iter().flatten().any(|job| job["type"] == step_type)
}

/// `[status, errorId, errorText]` of the transaction's message.
pub async fn status_and_error(server: &TestServer, transaction_id: &str) -> Value {
    let message = message(server, transaction_id).await;
    json!([message["status"], message["errorId"], message["errorText"]])
}

/// Asserts that a post was answered 200 and recorded one delivery: a Success `detail`, the message
/// still `sent`, and a second delivery time after the one the engine wrote when the provider accepted
/// the message: `reported_at` when the provider gives one.
pub async fn assert_delivered(
    server: &TestServer,
    sent: &Sent,
    response: (u16, Value),
    detail: &str,
    reported_at: Option<&str>,
) {
    assert_eq!(response, (200, json!({"received": 1, "recorded": 1})));
    assert_eq!(webhook_details(server, &sent.transaction_id).await, [format!("Success: {detail}")]);
    let message = message(server, &sent.transaction_id).await;
    assert_eq!(message["status"], "sent");
    let delivered = message["deliveredAt"].as_array().unwrap();
    assert_eq!(delivered.len(), 2, "{message}");
    if let Some(reported_at) = reported_at {
        assert_eq!(delivered[1], reported_at, "{message}");
    }
}

/// Posts each `(case, headers, body)`, asserting a 401 in the contract's error shape for each, and
/// that the message and its details are as they were.
pub async fn assert_all_refused(server: &TestServer, sent: &Sent, cases: Vec<(&str, HeaderMap, String)>) {
    let before = snapshot(server, &sent.transaction_id).await;
    for (case, headers, body) in cases {
        let (status, answer) = post_webhook(server, &sent.integration_id, headers, body).await;
        assert_eq!(status, 401, "{case}: {answer}");
        assert_error_shape(&answer, 401, "Unauthorized", &webhook_path(server, &sent.integration_id));
    }
    assert_eq!(snapshot(server, &sent.transaction_id).await, before);
}

/// What a refused post must leave alone: the message as the API shows it and every detail.
pub async fn snapshot(server: &TestServer, transaction_id: &str) -> (Value, Vec<Value>) {
    (message(server, transaction_id).await, message_job_details(server, transaction_id).await)
}

pub fn assert_error_shape(body: &Value, status: u16, reason: &str, path: &str) {
    assert_eq!(body["statusCode"], status, "{body}");
    assert_eq!(body["error"], reason, "{body}");
    assert_eq!(body["path"], path, "{body}");
    assert!(body["message"].as_str().is_some_and(|message| !message.is_empty()), "{body}");
    assert!(body["timestamp"].as_str().is_some_and(|at| at.ends_with('Z')), "{body}");
}

/// Now, in Unix seconds, as providers sign it.
pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Adds the fields of `extra` (an object) to `target` (an object).
pub fn merge(target: &mut Value, extra: Value) {
    if let (Value::Object(target), Value::Object(extra)) = (target, extra) {
        target.extend(extra);
    }
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
    let plivo =
        create_integration(&server, json!({"providerId": "plivo", "channel": "sms", "identifier": "plivo"})).await;
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
        (format!("/v1/webhooks/{other_environment}/{}", plivo["_id"].as_str().unwrap()), plivo["_id"].to_string()),
        (format!("/v1/webhooks/{environment}/{}", plivo["_id"].as_str().unwrap()), plivo["_id"].to_string()),
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
