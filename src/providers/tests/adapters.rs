//! What each adapter posts, where, and with which headers.

use serde_json::json;

use super::receiver::Receiver;
use super::{delivery, send};
use crate::providers::{signature, Accepted, ProviderError};

#[tokio::test]
async fn email_webhook_posts_the_email_to_the_integration_webhook() {
    let receiver = Receiver::start().await;
    receiver.answer(202, r#"{"id": "mail-1", "queued": true}"#);
    let mut delivery = delivery(
        "email-webhook",
        json!({"webhookUrl": receiver.url("/hooks/email"), "from": "team@herald.dev", "senderName": "Herald"}),
    );
    delivery.overrides = json!({"replyTo": "help@herald.dev"});

    let accepted = send(&delivery).await.expect("accepted");

    assert_eq!(
        accepted,
        Accepted {
            provider_message_id: Some("mail-1".to_owned()),
            raw: Some(r#"{"id": "mail-1", "queued": true}"#.to_owned())
        }
    );
    let request = receiver.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/hooks/email"));
    assert_eq!(
        request.json(),
        json!({
            "to": "ada@example.com",
            "from": "team@herald.dev",
            "senderName": "Herald",
            "subject": "Welcome",
            "html": "<p>Hi Ada</p>",
            "messageId": delivery.message_id.to_string(),
            "transactionId": "txn-42",
            "payload": {"plan": "pro"},
            "overrides": {"replyTo": "help@herald.dev"},
        })
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("idempotency-key"), Some(delivery.message_id.to_string().as_str()));
    let timestamp: i64 = request.header("x-herald-timestamp").expect("timestamp header").parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - timestamp).abs() < 60);
}

#[tokio::test]
async fn the_signature_header_verifies_by_recomputing_it() {
    let receiver = Receiver::start().await;
    let secret = "shh-its-a-secret";
    let delivery = delivery("email-webhook", json!({"webhookUrl": receiver.url("/e"), "secretKey": secret}));

    send(&delivery).await.expect("accepted");

    let request = receiver.only_request();
    let timestamp = request.header("x-herald-timestamp").unwrap().parse().unwrap();
    let expected = format!("v1={}", signature(secret, timestamp, &request.body));
    assert_eq!(request.header("x-herald-signature"), Some(expected.as_str()));
}

#[test]
fn the_signature_is_hmac_sha256_of_timestamp_dot_body() {
    // Computed independently: Python's hmac.new(key, b"1700000000.{...}", hashlib.sha256).hexdigest().
    assert_eq!(
        signature("shh-its-a-secret", 1_700_000_000, br#"{"hello":"world"}"#),
        "d5281ab828e13e6f85d916febfa456d9770be65163928aee7a2b911350441748"
    );
}

#[tokio::test]
async fn no_signature_without_a_secret_key() {
    let receiver = Receiver::start().await;
    for credentials in
        [json!({"webhookUrl": receiver.url("/e")}), json!({"webhookUrl": receiver.url("/e"), "secretKey": ""})]
    {
        send(&delivery("email-webhook", credentials)).await.expect("accepted");
    }

    let requests = receiver.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|request| request.header("x-herald-signature").is_none()));
    assert!(requests.iter().all(|request| request.header("x-herald-timestamp").is_some()));
}

#[tokio::test]
async fn chat_webhook_prefers_the_subscriber_webhook() {
    let receiver = Receiver::start().await;
    let mut delivery = delivery("chat-webhook", json!({"webhookUrl": receiver.url("/integration")}));
    delivery.to.webhook_url = Some(receiver.url("/subscriber"));

    let accepted = send(&delivery).await.expect("accepted");

    assert_eq!(accepted, Accepted { provider_message_id: None, raw: None });
    let request = receiver.only_request();
    assert_eq!(request.path, "/subscriber");
    assert_eq!(
        request.json(),
        json!({
            "content": "<p>Hi Ada</p>",
            "messageId": delivery.message_id.to_string(),
            "transactionId": "txn-42",
            "payload": {"plan": "pro"},
        })
    );
}

#[tokio::test]
async fn chat_webhook_falls_back_to_the_integration_webhook() {
    let receiver = Receiver::start().await;
    let delivery = delivery("chat-webhook", json!({"webhookUrl": receiver.url("/integration")}));

    send(&delivery).await.expect("accepted");

    assert_eq!(receiver.only_request().path, "/integration");
}

#[tokio::test]
async fn push_webhook_posts_the_device_tokens() {
    let receiver = Receiver::start().await;
    receiver.answer(200, r#"{"id": 981}"#);
    let delivery = delivery("push-webhook", json!({"webhookUrl": receiver.url("/push")}));

    let accepted = send(&delivery).await.expect("accepted");

    assert_eq!(accepted.provider_message_id.as_deref(), Some("981"));
    assert_eq!(
        receiver.only_request().json(),
        json!({
            "deviceTokens": ["token-a", "token-b"],
            "title": "Hello",
            "content": "<p>Hi Ada</p>",
            "messageId": delivery.message_id.to_string(),
            "transactionId": "txn-42",
            "payload": {"plan": "pro"},
            "overrides": {},
        })
    );
}

#[tokio::test]
async fn generic_sms_sends_the_api_key_in_the_named_header_and_reads_the_id_at_id_path() {
    let receiver = Receiver::start().await;
    receiver.answer(201, r#"{"data": {"messages": [{"sid": "SM123"}]}}"#);
    let delivery = delivery(
        "generic-sms",
        json!({
            "baseUrl": receiver.url("/sms/send"),
            "webhookUrl": receiver.url("/not-this-one"),
            "apiKey": "k-123",
            "apiKeyRequestHeader": "Authorization-Token",
            "idPath": "data.messages.0.sid",
            "from": "Herald",
        }),
    );

    let accepted = send(&delivery).await.expect("accepted");

    assert_eq!(accepted.provider_message_id.as_deref(), Some("SM123"));
    let request = receiver.only_request();
    assert_eq!(request.path, "/sms/send");
    assert_eq!(request.header("authorization-token"), Some("k-123"));
    assert_eq!(request.header("x-api-key"), None);
    assert_eq!(
        request.json(),
        json!({
            "to": "+15550100",
            "from": "Herald",
            "content": "<p>Hi Ada</p>",
            "messageId": delivery.message_id.to_string(),
            "transactionId": "txn-42",
        })
    );
}

#[tokio::test]
async fn generic_sms_defaults_to_x_api_key_the_id_field_and_the_webhook_url() {
    let receiver = Receiver::start().await;
    receiver.answer(200, r#"{"id": "sms-7", "data": {"id": "nested"}}"#);
    let delivery = delivery("generic-sms", json!({"webhookUrl": receiver.url("/sms"), "apiKey": "k-9"}));

    let accepted = send(&delivery).await.expect("accepted");

    assert_eq!(accepted.provider_message_id.as_deref(), Some("sms-7"));
    let request = receiver.only_request();
    assert_eq!(request.path, "/sms");
    assert_eq!(request.header("x-api-key"), Some("k-9"));
    assert_eq!(request.json()["from"], json!(null));
}

#[tokio::test]
async fn generic_sms_refuses_header_names_it_cannot_or_must_not_send() {
    let receiver = Receiver::start().await;
    for header in ["not a header", "x-herald-signature", "Idempotency-Key"] {
        let credentials = json!({"baseUrl": receiver.url("/sms"), "apiKey": "k", "apiKeyRequestHeader": header});

        let err = send(&delivery("generic-sms", credentials)).await.expect_err("refused");

        assert!(matches!(err, ProviderError::Permanent { .. }), "{header}: {err:?}");
    }
    assert!(receiver.requests().is_empty());
}
