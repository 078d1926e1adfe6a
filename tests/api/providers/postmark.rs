use std::time::Duration;

use herald::providers::{Channel, ProviderError};
use serde_json::json;

use super::{delivery, send};
use crate::fakes::postmark::{self, accepted, error, rate_limited, INACTIVE, SERVER_TOKEN};

fn credentials(base_url: &str) -> serde_json::Value {
    json!({"apiKey": SERVER_TOKEN, "from": "orders@acme.io", "senderName": "Acme", "baseUrl": base_url})
}

#[tokio::test]
async fn an_email_is_posted_with_the_server_token_and_every_field() {
    let fake = postmark::start().await;
    fake.then(accepted("b7bc2f4a-e38e-4336-af7d-e6c392c2f817", &json!("ada@example.com")));
    let mut email = delivery("postmark", Channel::Email, credentials(fake.base_url()));
    email.overrides = json!({"email": {"senderName": "Acme Orders", "replyTo": "help@acme.io",
        "cc": ["ops@acme.io", "qa@acme.io"], "bcc": "audit@acme.io", "headers": {"X-Entity-Ref-ID": "A-1"}}});

    let accepted = send(&email).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/email"));
    assert_eq!(request.query, None, "nothing (least of all a key) in the query string");
    assert_eq!(request.header("x-postmark-server-token"), Some(SERVER_TOKEN));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.header("accept"), Some("application/json"));
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({
            "From": "Acme Orders <orders@acme.io>",
            "To": "ada@example.com",
            "Cc": "ops@acme.io, qa@acme.io",
            "Bcc": "audit@acme.io",
            "ReplyTo": "help@acme.io",
            "Subject": "Your order shipped",
            "HtmlBody": "<p>Order A-1 shipped</p>",
            "TextBody": "Order A-1 shipped",
            "Headers": [{"Name": "X-Entity-Ref-ID", "Value": "A-1"}],
            "MessageStream": "outbound",
            "Metadata": {"heraldMessageId": email.message_id.to_string()},
        })
    );
    assert_eq!(accepted.provider_message_id.as_deref(), Some("b7bc2f4a-e38e-4336-af7d-e6c392c2f817"));
    assert!(accepted.raw.unwrap().contains(r#""SubmittedAt":"2026-11-24T10:00:00.1234567Z""#));
}

#[tokio::test]
async fn what_is_not_there_is_left_out() {
    let fake = postmark::start().await;
    let mut no_name = credentials(fake.base_url());
    no_name.as_object_mut().unwrap().remove("senderName");
    let mut bare = delivery("postmark", Channel::Email, no_name);
    bare.text = None;

    let accepted = send(&bare).await.expect("accepted");

    assert_eq!(
        fake.only_request().json(),
        json!({"From": "orders@acme.io", "To": "ada@example.com", "Subject": "Your order shipped",
               "HtmlBody": "<p>Order A-1 shipped</p>", "MessageStream": "outbound",
               "Metadata": {"heraldMessageId": bare.message_id.to_string()}})
    );
    let id = accepted.provider_message_id.expect("Postmark's MessageID");
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
}

#[tokio::test]
async fn a_429_is_transient_with_retry_after_and_so_is_a_5xx() {
    let fake = postmark::start().await;
    fake.then(rate_limited("5")).then(error(503, 0, "Service Unavailable"));
    let email = delivery("postmark", Channel::Email, credentials(fake.base_url()));

    let err = send(&email).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(5)));
    assert_eq!(
        err.to_string(),
        "postmark: HTTP 429 Too Many Requests from 127.0.0.1: Rate limit exceeded. (ErrorCode 429)"
    );

    let err = send(&email).await.unwrap_err();
    assert!(err.is_transient() && err.retry_after().is_none(), "{err:?}");
    assert!(err.to_string().starts_with("postmark: HTTP 503 Service Unavailable"), "{err}");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_token_misconfigures_the_integration_and_a_rejected_email_is_permanent() {
    let fake = postmark::start().await;
    let mut wrong_token = credentials(fake.base_url());
    wrong_token["apiKey"] = json!("not-the-server-token");
    let err = send(&delivery("postmark", Channel::Email, wrong_token)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: postmark: HTTP 401 Unauthorized from 127.0.0.1: \
         Request does not contain a valid Server token. (ErrorCode 10)"
    );
    assert!(!err.to_string().contains("not-the-server") && !err.raw().unwrap_or_default().contains("not-the-server"));

    let mut to_inactive = delivery("postmark", Channel::Email, credentials(fake.base_url()));
    to_inactive.overrides = json!({"email": {"bcc": INACTIVE}});
    let err = send(&to_inactive).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.starts_with("postmark: HTTP 422 Unprocessable Entity from 127.0.0.1: You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: bounced@example.com."), "{message}");
    assert!(message.ends_with("(ErrorCode 406)"), "{message}");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn without_a_sender_or_a_token_nothing_is_sent() {
    let fake = postmark::start().await;
    for missing in ["from", "apiKey"] {
        let mut incomplete = credentials(fake.base_url());
        incomplete.as_object_mut().unwrap().remove(missing);
        let err = send(&delivery("postmark", Channel::Email, incomplete)).await.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{missing}: {err:?}");
        assert_eq!(
            err.to_string(),
            format!("the integration is misconfigured: postmark integration has no `{missing}` credential")
        );
    }
    assert!(fake.requests().is_empty());
}
