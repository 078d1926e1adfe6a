use std::time::Duration;

use herald::providers::{Delivery, ProviderError};
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::zulip::{self, error, rate_limited, webhook_url, BOT_KEY, DEACTIVATED_KEY, PATH};
use crate::fakes::FakeAnswer;

fn to_webhook(url: &str) -> Delivery {
    chat("zulip", json!({}), Some(url))
}

#[tokio::test]
async fn a_message_is_posted_as_text_with_the_triggers_custom_data() {
    let fake = zulip::start().await;
    let mut message = to_webhook(&webhook_url(&fake, BOT_KEY));
    message.overrides = json!({"chat": {"integrationIdentifier": "z", "attachments": [{"text": "A-1"}]},
                               "zulip": {"attachments": [{"text": "Order A-1"}]}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", PATH));
    assert_eq!(request.query.as_deref(), Some(format!("api_key={BOT_KEY}&stream=alerts&topic=orders").as_str()));
    assert!(request.content_type_is("application/json"));
    assert_eq!(request.json(), json!({"text": "Order A-1 shipped", "attachments": [{"text": "Order A-1"}]}));
    assert_eq!(accepted.provider_message_id, None, "Zulip's answer names no message");
    assert!(accepted.raw.as_deref().is_some_and(|raw| raw.contains(r#""result":"success""#)), "{:?}", accepted.raw);
}

#[tokio::test]
async fn a_bad_or_deactivated_bot_key_is_a_dead_destination_of_the_subscriber() {
    let fake = zulip::start().await;

    let bad = send(&to_webhook(&webhook_url(&fake, "wrong"))).await.unwrap_err();
    let deactivated = send(&to_webhook(&webhook_url(&fake, DEACTIVATED_KEY))).await.unwrap_err();

    assert!(matches!(bad, ProviderError::DeadDestination { .. }), "{bad:?}");
    assert!(
        bad.to_string().ends_with("HTTP 401 Unauthorized from 127.0.0.1: INVALID_API_KEY: Invalid API key"),
        "{bad}"
    );
    assert!(matches!(deactivated, ProviderError::DeadDestination { .. }), "{deactivated:?}");
    assert!(deactivated.to_string().contains("USER_DEACTIVATED"), "{deactivated}");

    let integrations =
        send(&chat("zulip", json!({"webhookUrl": webhook_url(&fake, "wrong")}), None)).await.unwrap_err();
    assert!(matches!(integrations, ProviderError::Misconfigured { .. }), "{integrations:?}");
}

#[tokio::test]
async fn a_view_error_even_with_200_and_a_bad_request_are_permanent() {
    let fake = zulip::start().await;
    fake.then(FakeAnswer::json(200, json!({"ok": false, "error": "invalid_blocks"}))).then(error(
        400,
        "BAD_REQUEST",
        "Invalid payload",
    ));
    let message = to_webhook(&webhook_url(&fake, BOT_KEY));

    let view_error = send(&message).await.unwrap_err();
    let bad_request = send(&message).await.unwrap_err();

    assert!(matches!(view_error, ProviderError::Permanent { .. }), "{view_error:?}");
    assert!(view_error.to_string().ends_with(": invalid_blocks"), "{view_error}");
    assert!(matches!(bad_request, ProviderError::Permanent { .. }), "{bad_request:?}");
    assert!(bad_request.to_string().ends_with(": BAD_REQUEST: Invalid payload"), "{bad_request}");
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_transient() {
    let fake = zulip::start().await;
    fake.then(rate_limited(2.5)).then(FakeAnswer::text(502, "Bad Gateway"));
    let message = to_webhook(&webhook_url(&fake, BOT_KEY));

    let limited = send(&message).await.unwrap_err();
    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_millis(2500)), "the body's exact seconds");
    assert!(limited.to_string().ends_with(": RATE_LIMIT_HIT: API usage exceeded rate limit"), "{limited}");

    let bad_gateway = send(&message).await.unwrap_err();
    assert!(bad_gateway.is_transient(), "{bad_gateway:?}");
    assert_eq!(fake.requests().len(), 2);
}
