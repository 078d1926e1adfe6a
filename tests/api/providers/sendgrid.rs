use std::time::Duration;

use herald::providers::{Channel, ProviderError};
use serde_json::json;

use super::{delivery, send};
use crate::fakes::sendgrid::{self, accepted, error, rate_limited, API_KEY};
use crate::fakes::FakeAnswer;

fn credentials(base_url: &str) -> serde_json::Value {
    json!({"apiKey": API_KEY, "from": "orders@acme.io", "senderName": "Acme", "baseUrl": base_url})
}

#[tokio::test]
async fn an_email_is_posted_with_the_key_and_every_field() {
    let fake = sendgrid::start().await;
    fake.then(accepted("W0a6RskUQHKh4E8yy4GmZA"));
    let mut with_pool = credentials(fake.base_url());
    with_pool["ipPoolName"] = json!("transactional");
    let mut email = delivery("sendgrid", Channel::Email, with_pool);
    email.overrides = json!({"email": {"senderName": "Acme Orders", "replyTo": "help@acme.io",
        "cc": ["ops@acme.io"], "bcc": "audit@acme.io, legal@acme.io", "headers": {"X-Entity-Ref-ID": "A-1"}}});

    let accepted = send(&email).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v3/mail/send"));
    assert_eq!(request.query, None, "nothing (least of all a key) in the query string");
    assert_eq!(request.header("authorization"), Some(format!("Bearer {API_KEY}").as_str()));
    assert_eq!(request.header("accept"), Some("application/json"));
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({
            "personalizations": [{"to": [{"email": "ada@example.com"}], "cc": [{"email": "ops@acme.io"}],
                                  "bcc": [{"email": "audit@acme.io"}, {"email": "legal@acme.io"}]}],
            "from": {"email": "orders@acme.io", "name": "Acme Orders"},
            "reply_to": {"email": "help@acme.io"},
            "subject": "Your order shipped",
            "content": [{"type": "text/plain", "value": "Order A-1 shipped"},
                        {"type": "text/html", "value": "<p>Order A-1 shipped</p>"}],
            "headers": {"X-Entity-Ref-ID": "A-1"},
            "categories": ["order-shipped"],
            "custom_args": {"heraldMessageId": email.message_id.to_string(), "heraldTransactionId": "txn-42",
                            "heraldSubscriberId": "ada", "heraldWorkflowIdentifier": "order-shipped"},
            "ip_pool_name": "transactional",
        })
    );
    assert!(!request.body.windows(API_KEY.len()).any(|window| window == API_KEY.as_bytes()), "no secret in the body");
    assert_eq!(accepted.provider_message_id.as_deref(), Some("W0a6RskUQHKh4E8yy4GmZA"), "X-Message-Id");
    assert_eq!(accepted.raw, None, "SendGrid's success has no body");
}

#[tokio::test]
async fn what_is_not_there_is_left_out() {
    let fake = sendgrid::start().await;
    let mut bare = delivery(
        "sendgrid",
        Channel::Email,
        json!({"apiKey": API_KEY, "from": "orders@acme.io",
                                                                 "baseUrl": fake.base_url()}),
    );
    bare.text = None;
    bare.workflow_identifier = None;

    let accepted = send(&bare).await.expect("accepted");

    assert_eq!(
        fake.only_request().json(),
        json!({
            "personalizations": [{"to": [{"email": "ada@example.com"}]}],
            "from": {"email": "orders@acme.io"},
            "subject": "Your order shipped",
            "content": [{"type": "text/html", "value": "<p>Order A-1 shipped</p>"}],
            "custom_args": {"heraldMessageId": bare.message_id.to_string(), "heraldTransactionId": "txn-42",
                            "heraldSubscriberId": "ada"},
        })
    );
    assert_eq!(accepted.provider_message_id.map(|id| id.len()), Some(22));
}

#[tokio::test]
async fn a_429_is_transient_with_retry_after_and_so_is_a_5xx() {
    let fake = sendgrid::start().await;
    fake.then(rate_limited("12")).then(FakeAnswer::text(503, "Service Unavailable"));
    let email = delivery("sendgrid", Channel::Email, credentials(fake.base_url()));

    let err = send(&email).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(12)));
    assert_eq!(err.to_string(), "sendgrid: HTTP 429 Too Many Requests from 127.0.0.1: too many requests");

    let err = send(&email).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.retry_after(), None);
    assert!(err.to_string().ends_with("HTTP 503 Service Unavailable from 127.0.0.1: Service Unavailable"), "{err}");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_key_misconfigures_the_integration_and_a_rejected_email_is_permanent() {
    let fake = sendgrid::start().await;
    let mut wrong_key = credentials(fake.base_url());
    wrong_key["apiKey"] = json!("SG.wrong.key-secret");
    let err = send(&delivery("sendgrid", Channel::Email, wrong_key)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: sendgrid: HTTP 401 Unauthorized from 127.0.0.1: \
         The provided authorization grant is invalid, expired, or revoked"
    );
    assert!(!err.to_string().contains("SG.wrong") && !err.raw().unwrap_or_default().contains("SG.wrong"));

    // SendGrid itself refuses an address that is both a recipient and a copy.
    let mut twice = delivery("sendgrid", Channel::Email, credentials(fake.base_url()));
    twice.overrides = json!({"email": {"cc": "ada@example.com"}});
    let err = send(&twice).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "sendgrid: HTTP 400 Bad Request from 127.0.0.1: \
         Each email address in the personalization block should be unique between to, cc, and bcc."
    );

    fake.then(error(403, Some("from"), "The from address does not match a verified Sender Identity."));
    let err = send(&delivery("sendgrid", Channel::Email, credentials(fake.base_url()))).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "an unverified sender is the integration's: {err:?}");
    assert!(err.to_string().ends_with("The from address does not match a verified Sender Identity."), "{err}");
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test]
async fn without_a_sender_or_a_key_nothing_is_sent() {
    let fake = sendgrid::start().await;
    for missing in ["from", "apiKey"] {
        let mut incomplete = credentials(fake.base_url());
        incomplete.as_object_mut().unwrap().remove(missing);
        let err = send(&delivery("sendgrid", Channel::Email, incomplete)).await.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{missing}: {err:?}");
        assert_eq!(
            err.to_string(),
            format!("the integration is misconfigured: sendgrid integration has no `{missing}` credential")
        );
    }
    assert!(fake.requests().is_empty());
}
