use std::time::Duration;

use herald::providers::{Channel, Delivery, ProviderError};
use serde_json::{json, Value};

use super::common::{self, nothing_sent_without};
use super::{delivery, send};
use crate::fakes::plivo::{self, error, AUTH_ID, AUTH_TOKEN};

fn credentials(base_url: &str) -> Value {
    json!({"accountSid": AUTH_ID, "token": AUTH_TOKEN, "from": "+15550199", "baseUrl": base_url})
}

fn sms(base_url: &str) -> Delivery {
    common::sms("plivo", credentials(base_url))
}

#[tokio::test]
async fn an_sms_is_posted_with_basic_auth_and_every_field() {
    let fake = plivo::start().await;
    let mut sms = sms(fake.base_url());
    sms.overrides = json!({"sms": {"from": "+15550142"}});

    let accepted = send(&sms).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v1/Account/MAXXXXXXXXXXXXXXXXXX/Message/"));
    assert_eq!(request.basic_auth(), Some((AUTH_ID.to_owned(), AUTH_TOKEN.to_owned())));
    assert!(request.content_type_is("application/json"));
    assert_eq!(request.json(), json!({"src": "+15550142", "dst": "+15550100", "text": "Order A-1 shipped"}));
    let uuid = accepted.provider_message_id.expect("the first message_uuid");
    assert!(uuid::Uuid::parse_str(&uuid).is_ok(), "{uuid}");
    assert!(accepted.raw.unwrap().contains(&format!(r#""message_uuid":["{uuid}"]"#)));
}

#[tokio::test]
async fn too_many_requests_and_server_errors_are_transient() {
    let fake = plivo::start().await;
    fake.then(error(429, "too many requests").with_header("retry-after", "3"))
        .then(error(500, "internal server error"));

    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(3)));
    assert!(err.to_string().ends_with("too many requests"), "{err}");
    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(err.is_transient() && err.to_string().ends_with("internal server error"), "{err:?}");
}

#[tokio::test]
async fn a_refused_token_misconfigures_the_integration_and_a_rejected_message_is_permanent() {
    let fake = plivo::start().await;
    let mut wrong = credentials(fake.base_url());
    wrong["token"] = json!("not-the-token");
    let err = send(&delivery("plivo", Channel::Sms, wrong)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: plivo: HTTP 401 Unauthorized from 127.0.0.1: Authentication failed"
    );
    assert!(!err.to_string().contains("not-the-token"));

    fake.then(error(400, "dst number is invalid"));
    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("HTTP 400 Bad Request from 127.0.0.1: dst number is invalid"), "{err}");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn without_an_auth_id_a_token_or_a_sender_nothing_is_sent() {
    let fake = plivo::start().await;
    nothing_sent_without(&fake, &sms(fake.base_url()), &["accountSid", "token", "from"]).await;
}
