use std::time::Duration;

use herald::providers::{Delivery, ProviderError};
use serde_json::{json, Value};

use super::common::chat;
use super::send;
use crate::fakes::discord::{self, error, rate_limited, webhook_url, WEBHOOK_ID, WEBHOOK_TOKEN};
use crate::fakes::FakeAnswer;

fn to_webhook(url: &str) -> Delivery {
    chat("discord", json!({}), Some(url))
}

#[tokio::test]
async fn a_message_waits_for_discords_message_object_and_keeps_the_urls_query() {
    let fake = discord::start().await;
    let mut message = to_webhook(&format!("{}?thread_id=1180000000000000200&wait=false", webhook_url(&fake)));
    let embeds = json!([{"title": "Order A-1", "description": "shipped", "color": 5814783}]);
    message.overrides = json!({"chat": {"integrationIdentifier": "discord-main"},
                               "discord": {"username": "Orders", "embeds": embeds}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", format!("/api/webhooks/{WEBHOOK_ID}/{WEBHOOK_TOKEN}").as_str())
    );
    assert_eq!(request.query.as_deref(), Some("thread_id=1180000000000000200&wait=true"));
    assert!(request.content_type_is("application/json"));
    assert_eq!(request.json(), json!({"content": "Order A-1 shipped", "username": "Orders", "embeds": embeds}));
    let answer: Value = serde_json::from_str(accepted.raw.as_deref().expect("the message object")).unwrap();
    assert_eq!(answer["webhook_id"], WEBHOOK_ID);
    assert_eq!(accepted.provider_message_id.as_ref(), answer["id"].as_str().map(str::to_owned).as_ref());
    assert!(accepted.provider_message_id.is_some());
}

#[tokio::test]
async fn a_url_without_a_query_gets_wait_and_the_integrations_webhook_is_the_fallback() {
    let fake = discord::start().await;

    send(&chat("discord", json!({"webhookUrl": webhook_url(&fake)}), None)).await.expect("accepted");

    assert_eq!(fake.only_request().query.as_deref(), Some("wait=true"));
}

#[tokio::test]
async fn a_rate_limit_waits_as_long_as_the_body_says_to_the_millisecond() {
    let fake = discord::start().await;
    fake.then(rate_limited(1.25))
        // Cloudflare's ban in front of Discord: a header, no JSON.
        .then(FakeAnswer::text(429, "error code: 1015").with_header("retry-after", "7"))
        .then(error(502, 0, "502: Bad Gateway"));
    let message = to_webhook(&webhook_url(&fake));

    let limited = send(&message).await.unwrap_err();
    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_millis(1250)), "the body's, not the header's 2 s");
    assert!(limited.to_string().ends_with("You are being rate limited."), "{limited}");

    let banned = send(&message).await.unwrap_err();
    assert_eq!(banned.retry_after(), Some(Duration::from_secs(7)));
    assert!(banned.to_string().ends_with(": error code: 1015"), "{banned}");

    let bad_gateway = send(&message).await.unwrap_err();
    assert!(bad_gateway.is_transient() && bad_gateway.retry_after().is_none(), "{bad_gateway:?}");
}

#[tokio::test]
async fn an_unknown_webhook_is_a_dead_destination_of_the_subscriber_and_misconfigures_an_integration() {
    let fake = discord::start().await;
    let deleted = format!("{}/api/webhooks/1180000000000000999/{WEBHOOK_TOKEN}", fake.base_url());

    let dead = send(&to_webhook(&deleted)).await.unwrap_err();
    assert!(matches!(dead, ProviderError::DeadDestination { .. }), "{dead:?}");
    assert!(dead.to_string().ends_with("HTTP 404 Not Found from 127.0.0.1: 10015: Unknown Webhook"), "{dead}");

    let integrations = send(&chat("discord", json!({"webhookUrl": deleted}), None)).await.unwrap_err();
    assert!(matches!(integrations, ProviderError::Misconfigured { .. }), "{integrations:?}");

    // Another 404 (a thread that does not exist) leaves the webhook alone.
    fake.then(error(404, 10003, "Unknown Channel"));
    let unknown_thread = send(&to_webhook(&webhook_url(&fake))).await.unwrap_err();
    assert!(matches!(unknown_thread, ProviderError::Permanent { .. }), "{unknown_thread:?}");
}

#[tokio::test]
async fn a_wrong_token_an_empty_or_an_oversized_message_is_permanent() {
    let fake = discord::start().await;
    let wrong_token = to_webhook(&format!("{}/api/webhooks/{WEBHOOK_ID}/wrong-token", fake.base_url()));
    let mut empty = to_webhook(&webhook_url(&fake));
    empty.content = String::new();
    let mut oversized = to_webhook(&webhook_url(&fake));
    oversized.content = "x".repeat(2001);

    for (message, text) in [
        (wrong_token, "50027: Invalid Webhook Token"),
        (empty, "50006: Cannot send an empty message"),
        (oversized, "50035: Invalid Form Body"),
    ] {
        let err = send(&message).await.unwrap_err();

        assert!(matches!(err, ProviderError::Permanent { .. }), "{text}: {err:?}");
        assert!(err.to_string().ends_with(text), "{err}");
    }
    assert_eq!(fake.requests().len(), 3);
}
