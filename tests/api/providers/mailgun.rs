use std::time::Duration;

use herald::providers::{Channel, ProviderError};
use serde_json::json;

use super::{delivery, send};
use crate::fakes::mailgun::{self, accepted, error, rate_limited, API_KEY, DOMAIN};

fn credentials(base_url: &str) -> serde_json::Value {
    json!({"apiKey": API_KEY, "domain": DOMAIN, "from": "orders@acme.io", "senderName": "Acme", "baseUrl": base_url})
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect()
}

#[tokio::test]
async fn an_email_is_posted_as_a_form_with_basic_auth_and_every_field() {
    let fake = mailgun::start().await;
    fake.then(accepted("<20261124100000.1.A1B2C3@mg.acme.io>"));
    let mut email = delivery("mailgun", Channel::Email, credentials(fake.base_url()));
    email.overrides = json!({"email": {"senderName": "Acme Orders", "replyTo": "help@acme.io",
        "cc": ["ops@acme.io", "qa@acme.io"], "bcc": "audit@acme.io",
        "headers": {"X-Entity-Ref-ID": "A-1", "List-Unsubscribe": "<https://acme.io/u/ada>"}}});

    let accepted = send(&email).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v3/mg.acme.io/messages"));
    assert_eq!(request.query, None, "nothing (least of all a key) in the query string");
    assert_eq!(request.basic_auth(), Some(("api".to_owned(), API_KEY.to_owned())));
    assert!(request.content_type_is("multipart/form-data"), "{:?}", request.header("content-type"));
    let message_id = email.message_id.to_string();
    assert_eq!(
        request.form(),
        pairs(&[
            ("from", "Acme Orders <orders@acme.io>"),
            ("to", "ada@example.com"),
            ("cc", "ops@acme.io, qa@acme.io"),
            ("bcc", "audit@acme.io"),
            ("subject", "Your order shipped"),
            ("html", "<p>Order A-1 shipped</p>"),
            ("text", "Order A-1 shipped"),
            ("h:Reply-To", "help@acme.io"),
            ("h:List-Unsubscribe", "<https://acme.io/u/ada>"),
            ("h:X-Entity-Ref-ID", "A-1"),
            ("v:herald-message-id", &message_id),
        ])
    );
    assert_eq!(accepted.provider_message_id.as_deref(), Some("<20261124100000.1.A1B2C3@mg.acme.io>"));
    assert!(accepted.raw.unwrap().contains("Queued. Thank you."));
}

#[tokio::test]
async fn the_user_can_be_named_and_what_is_not_there_is_left_out() {
    let fake = mailgun::start().await;
    let mut named = credentials(fake.base_url());
    named["user"] = json!("postmaster");
    named.as_object_mut().unwrap().remove("senderName");
    let mut bare = delivery("mailgun", Channel::Email, named);
    bare.text = None;

    let err = send(&bare).await.unwrap_err();

    let request = fake.only_request();
    assert_eq!(request.basic_auth(), Some(("postmaster".to_owned(), API_KEY.to_owned())));
    let message_id = bare.message_id.to_string();
    assert_eq!(
        request.form(),
        pairs(&[
            ("from", "orders@acme.io"),
            ("to", "ada@example.com"),
            ("subject", "Your order shipped"),
            ("html", "<p>Order A-1 shipped</p>"),
            ("v:herald-message-id", &message_id),
        ])
    );
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "the fake knows user `api` only: {err:?}");
}

#[tokio::test]
async fn a_429_is_transient_with_retry_after_and_so_is_a_5xx() {
    let fake = mailgun::start().await;
    fake.then(rate_limited("30")).then(error(500, "Internal Server Error"));
    let email = delivery("mailgun", Channel::Email, credentials(fake.base_url()));

    let err = send(&email).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(30)));
    assert_eq!(err.to_string(), "mailgun: HTTP 429 Too Many Requests from 127.0.0.1: Too many requests");

    let err = send(&email).await.unwrap_err();
    assert!(err.is_transient() && err.retry_after().is_none(), "{err:?}");
    assert_eq!(err.to_string(), "mailgun: HTTP 500 Internal Server Error from 127.0.0.1: Internal Server Error");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_key_or_an_unknown_domain_misconfigures_the_integration() {
    let fake = mailgun::start().await;
    let mut wrong_key = credentials(fake.base_url());
    wrong_key["apiKey"] = json!("key-wrong-secret");
    let err = send(&delivery("mailgun", Channel::Email, wrong_key)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: mailgun: HTTP 401 Unauthorized from 127.0.0.1: Forbidden \
         (a wrong API key, or the wrong region: domains in the EU region need baseUrl https://api.eu.mailgun.net, \
         the others the default)"
    );
    assert!(!err.to_string().contains("key-wrong") && !err.raw().unwrap_or_default().contains("key-wrong"));

    let mut unknown = credentials(fake.base_url());
    unknown["domain"] = json!("mg.other.io");
    let err = send(&delivery("mailgun", Channel::Email, unknown)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("HTTP 404 Not Found from 127.0.0.1: Domain not found: mg.other.io (check the `domain`"),
        "{err}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_rejected_email_is_permanent_with_mailguns_text() {
    let fake = mailgun::start().await;
    let mut email = delivery("mailgun", Channel::Email, credentials(fake.base_url()));
    email.overrides = json!({"email": {"bcc": "audit at acme"}});

    let err = send(&email).await.unwrap_err();

    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "mailgun: HTTP 400 Bad Request from 127.0.0.1: 'bcc' parameter is not a valid address. please check documentation"
    );
    assert_eq!(err.raw(), Some(r#"{"message":"'bcc' parameter is not a valid address. please check documentation"}"#));
}

#[tokio::test]
async fn without_a_key_a_domain_or_a_sender_nothing_is_sent() {
    let fake = mailgun::start().await;
    for missing in ["apiKey", "domain", "from"] {
        let mut incomplete = credentials(fake.base_url());
        incomplete.as_object_mut().unwrap().remove(missing);
        let err = send(&delivery("mailgun", Channel::Email, incomplete)).await.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{missing}: {err:?}");
        assert_eq!(
            err.to_string(),
            format!("the integration is misconfigured: mailgun integration has no `{missing}` credential")
        );
    }
    let mut pathy = credentials(fake.base_url());
    pathy["domain"] = json!("mg.acme.io/../../v4");
    let err = send(&delivery("mailgun", Channel::Email, pathy)).await.unwrap_err();
    assert!(err.is_integration_fault() && err.to_string().contains("not a domain name"), "{err}");
    assert!(fake.requests().is_empty());
}
