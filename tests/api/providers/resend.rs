use std::time::Duration;

use herald::providers::{Channel, ProviderError};
use serde_json::json;

use super::{delivery, send};
use crate::fakes::resend::{self, error, rate_limited, API_KEY};

fn credentials(base_url: &str) -> serde_json::Value {
    json!({"apiKey": API_KEY, "from": "orders@acme.io", "senderName": "Acme", "baseUrl": base_url})
}

#[tokio::test]
async fn an_email_is_posted_with_the_key_the_idempotency_key_and_every_field() {
    let fake = resend::start().await;
    let mut email = delivery("resend", Channel::Email, credentials(fake.base_url()));
    email.overrides = json!({"email": {"replyTo": "help@acme.io", "cc": ["ops@acme.io"], "bcc": "audit@acme.io",
                                       "headers": {"X-Entity-Ref-ID": "A-1"}}});

    let accepted = send(&email).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(request.header("authorization"), Some(format!("Bearer {API_KEY}").as_str()));
    assert_eq!(request.header("idempotency-key"), Some(email.message_id.to_string().as_str()));
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"from": "Acme <orders@acme.io>", "to": ["ada@example.com"], "subject": "Your order shipped",
               "html": "<p>Order A-1 shipped</p>", "text": "Order A-1 shipped", "reply_to": "help@acme.io",
               "cc": ["ops@acme.io"], "bcc": ["audit@acme.io"], "headers": {"X-Entity-Ref-ID": "A-1"}})
    );
    let id = accepted.provider_message_id.expect("Resend's id");
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
}

#[tokio::test]
async fn a_429_is_transient_and_carries_retry_after() {
    let fake = resend::start().await;
    fake.then(rate_limited("7"));

    let err = send(&delivery("resend", Channel::Email, credentials(fake.base_url()))).await.unwrap_err();

    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(7)));
    assert!(err.to_string().contains("Too many requests"), "{err}");
}

#[tokio::test]
async fn a_refused_key_misconfigures_the_integration_and_a_rejected_email_is_permanent() {
    let fake = resend::start().await;
    let mut wrong_key = credentials(fake.base_url());
    wrong_key["apiKey"] = json!("re_wrong");
    let err = send(&delivery("resend", Channel::Email, wrong_key)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: resend: HTTP 403 Forbidden from 127.0.0.1: API key is invalid"
    );
    assert!(!err.to_string().contains("re_wrong"), "the key is never shown");

    fake.then(error(
        422,
        "validation_error",
        "Invalid `to` field. The email address needs to follow the `email@example.com` format.",
    ));
    let err = send(&delivery("resend", Channel::Email, credentials(fake.base_url()))).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(
        err.to_string()
            .ends_with("Invalid `to` field. The email address needs to follow the `email@example.com` format."),
        "{err}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn without_a_sender_or_a_key_nothing_is_sent() {
    let fake = resend::start().await;
    for missing in ["from", "apiKey"] {
        let mut incomplete = credentials(fake.base_url());
        incomplete.as_object_mut().unwrap().remove(missing);
        let err = send(&delivery("resend", Channel::Email, incomplete)).await.unwrap_err();
        assert!(err.is_integration_fault(), "{missing}: {err:?}");
        assert!(err.to_string().contains(&format!("`{missing}`")), "{err}");
    }
    assert!(fake.requests().is_empty());
}
