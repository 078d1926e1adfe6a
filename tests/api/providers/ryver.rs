use std::time::Duration;

use herald::providers::{Delivery, ProviderError};
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::ryver::{self, rate_limited, webhook_url, DELETED_TOKEN, TOKEN};
use crate::fakes::FakeAnswer;

fn to_webhook(url: &str) -> Delivery {
    chat("ryver", json!({}), Some(url))
}

#[tokio::test]
async fn the_text_goes_as_content_and_as_body_with_the_triggers_custom_data() {
    let fake = ryver::start().await;
    let mut message = to_webhook(&webhook_url(&fake, TOKEN));
    message.overrides = json!({"ryver": {"createSource": {"displayName": "Orders"}}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", format!("/application/webhook/{TOKEN}").as_str())
    );
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"content": "Order A-1 shipped", "body": "Order A-1 shipped", "createSource": {"displayName": "Orders"}})
    );
    assert_eq!(accepted.provider_message_id, None);
}

#[tokio::test]
async fn a_deleted_hook_is_a_dead_destination_of_the_subscriber_and_misconfigures_the_integration() {
    let fake = ryver::start().await;
    let deleted = webhook_url(&fake, DELETED_TOKEN);

    let subscribers = send(&to_webhook(&deleted)).await.unwrap_err();
    let integrations = send(&chat("ryver", json!({"webhookUrl": deleted}), None)).await.unwrap_err();

    assert!(matches!(subscribers, ProviderError::DeadDestination { .. }), "{subscribers:?}");
    assert!(subscribers.to_string().ends_with("HTTP 404 Not Found from 127.0.0.1: Not Found"), "{subscribers}");
    assert!(matches!(integrations, ProviderError::Misconfigured { .. }), "{integrations:?}");
}

#[tokio::test]
async fn an_empty_message_is_permanent() {
    let fake = ryver::start().await;
    let mut empty = to_webhook(&webhook_url(&fake, TOKEN));
    empty.content = String::new();

    let err = send(&empty).await.unwrap_err();

    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("HTTP 400 Bad Request from 127.0.0.1: Bad Request"), "{err}");
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_transient() {
    let fake = ryver::start().await;
    fake.then(rate_limited("7")).then(FakeAnswer::text(503, "Service Unavailable"));
    let message = to_webhook(&webhook_url(&fake, TOKEN));

    let limited = send(&message).await.unwrap_err();
    let unavailable = send(&message).await.unwrap_err();

    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(7)));
    assert!(unavailable.is_transient(), "{unavailable:?}");
    assert_eq!(fake.requests().len(), 2);
}
