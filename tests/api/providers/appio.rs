use herald::providers::{Delivery, ProviderError};
use serde_json::json;

use super::common::push;
use super::send;
use crate::fakes::appio::{self, problem, API_KEY, BLOCKED_FISCAL_CODE, FISCAL_CODE, MESSAGE_ID};
use crate::fakes::{FakeAnswer, FakeProvider};

pub const MARKDOWN: &str = "Your order A-1 left our warehouse today and will reach you within three working days.";

fn to_citizen(fake: &FakeProvider, fiscal_code: &str) -> Delivery {
    let mut message =
        push("appio", json!({"apiKey": API_KEY, "baseUrl": appio::base_url(fake)}), &[fiscal_code.to_owned()]);
    message.content = MARKDOWN.to_owned();
    message
}

#[tokio::test]
async fn the_profile_is_checked_then_the_message_sent_and_its_id_recorded() {
    let fake = appio::start().await;

    let accepted = send(&to_citizen(&fake, FISCAL_CODE)).await.expect("accepted");

    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!((requests[0].method.as_str(), requests[0].path.as_str()), ("POST", "/api/v1/profiles"));
    assert_eq!(requests[0].json(), json!({"fiscal_code": FISCAL_CODE}));
    assert_eq!((requests[1].method.as_str(), requests[1].path.as_str()), ("POST", "/api/v1/messages"));
    assert_eq!(requests[1].header("ocp-apim-subscription-key"), Some(API_KEY));
    assert_eq!(
        requests[1].json(),
        json!({"fiscal_code": FISCAL_CODE, "content": {"subject": "Your order shipped", "markdown": MARKDOWN}})
    );
    assert_eq!(accepted.provider_message_id.as_deref(), Some(MESSAGE_ID));
}

#[tokio::test]
async fn the_key_may_come_from_the_overrides() {
    let fake = appio::start().await;
    let mut message = to_citizen(&fake, FISCAL_CODE);
    message.credentials = json!({"baseUrl": appio::base_url(&fake)});
    message.overrides = json!({"appio": {"apiKey": API_KEY}});
    let mut keyless = message.clone();
    keyless.overrides = json!({});

    send(&message).await.expect("accepted");
    let missing = send(&keyless).await.unwrap_err();

    assert!(matches!(missing, ProviderError::Misconfigured { .. }), "{missing:?}");
    assert_eq!(fake.requests().len(), 2, "the keyless message sent nothing");
}

#[tokio::test]
async fn a_citizen_without_io_or_who_blocked_the_service_is_a_dead_destination() {
    let fake = appio::start().await;

    let unknown = send(&to_citizen(&fake, "BNCGVN70A01H501X")).await.unwrap_err();
    let blocked = send(&to_citizen(&fake, BLOCKED_FISCAL_CODE)).await.unwrap_err();

    assert!(matches!(unknown, ProviderError::DeadDestination { .. }), "{unknown:?}");
    assert!(unknown.to_string().contains("The profile you requested was not found"), "{unknown}");
    assert!(matches!(blocked, ProviderError::DeadDestination { .. }), "{blocked:?}");
    assert!(fake.requests().iter().all(|request| request.path == "/api/v1/profiles"), "no message was sent");
}

#[tokio::test]
async fn short_texts_are_refused_before_sending_and_a_wrong_key_misconfigures() {
    let fake = appio::start().await;
    let mut short_body = to_citizen(&fake, FISCAL_CODE);
    short_body.content = "Shipped".to_owned();
    let mut short_title = to_citizen(&fake, FISCAL_CODE);
    short_title.title = Some("Order".to_owned());
    let mut wrong_key = to_citizen(&fake, FISCAL_CODE);
    wrong_key.credentials["apiKey"] = json!("not-the-key");

    let body_err = send(&short_body).await.unwrap_err();
    let title_err = send(&short_title).await.unwrap_err();
    let refused = send(&wrong_key).await.unwrap_err();

    assert!(matches!(body_err, ProviderError::Permanent { .. }), "{body_err:?}");
    assert!(body_err.to_string().contains("7 characters; IO wants 80 to 10000"), "{body_err}");
    assert!(matches!(title_err, ProviderError::Permanent { .. }), "{title_err:?}");
    assert!(matches!(refused, ProviderError::Misconfigured { .. }), "{refused:?}");
    assert_eq!(fake.requests().len(), 1, "only the wrong key reached IO");
}

#[tokio::test]
async fn rate_limits_and_undeliverable_messages_are_transient_and_a_bad_request_permanent() {
    let fake = appio::start().await;
    fake.then(
        FakeAnswer::json(429, json!({"statusCode": 429, "message": "Rate limit is exceeded."}))
            .with_header("Retry-After", "7"),
    );
    let message = to_citizen(&fake, FISCAL_CODE);

    let limited = send(&message).await.unwrap_err();
    fake.then(FakeAnswer::json(200, json!({"sender_allowed": true}))).then(problem(
        500,
        "Internal server error",
        "The message cannot be delivered",
    ));
    let undeliverable = send(&message).await.unwrap_err();
    fake.then(FakeAnswer::json(200, json!({"sender_allowed": true}))).then(problem(
        400,
        "Invalid NewMessage",
        "value is not a valid MessageContent",
    ));
    let bad = send(&message).await.unwrap_err();

    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(std::time::Duration::from_secs(7)));
    assert!(undeliverable.is_transient(), "{undeliverable:?}");
    assert!(matches!(bad, ProviderError::Permanent { .. }), "{bad:?}");
    assert!(bad.to_string().contains("value is not a valid MessageContent"), "{bad}");
}
