use herald::providers::{Channel, Delivery, ProviderError};
use serde_json::{json, Value};

use super::common::{self, nothing_sent_without};
use super::{delivery, send};
use crate::fakes::nexmo::{self, failed, throttled, API_KEY, API_SECRET};

fn credentials(base_url: &str) -> Value {
    json!({"apiKey": API_KEY, "secretKey": API_SECRET, "from": "+15550199", "baseUrl": base_url})
}

fn sms(base_url: &str) -> Delivery {
    common::sms("nexmo", credentials(base_url))
}

#[tokio::test]
async fn an_sms_is_posted_with_the_key_in_the_body_and_every_field() {
    let fake = nexmo::start().await;

    let accepted = send(&sms(fake.base_url())).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/sms/json"));
    assert!(request.content_type_is("application/json"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        request.json(),
        json!({"api_key": API_KEY, "api_secret": API_SECRET, "from": "15550199", "to": "15550100",
               "text": "Order A-1 shipped"})
    );
    let id = accepted.provider_message_id.expect("the message-id");
    assert!(!id.is_empty() && id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    assert!(accepted.raw.unwrap().contains(&id));
}

#[tokio::test]
async fn the_per_message_sender_wins_and_non_ascii_text_goes_as_unicode() {
    let fake = nexmo::start().await;
    let mut sms = sms(fake.base_url());
    sms.overrides = json!({"sms": {"from": "AcmeShop"}});
    sms.content = "Commande A-1 expédiée ✓".to_owned();

    send(&sms).await.expect("accepted");

    let body = fake.only_request().json();
    assert_eq!((body["from"].as_str(), body["type"].as_str()), (Some("AcmeShop"), Some("unicode")));
    assert_eq!(body["text"], "Commande A-1 expédiée ✓");
}

#[tokio::test]
async fn throttled_and_internal_errors_in_a_200_are_transient() {
    let fake = nexmo::start().await;
    fake.then(throttled()).then(failed("5", "Internal Error"));

    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert!(
        err.to_string().ends_with(
            "HTTP 200 OK from 127.0.0.1: status 1: Throughput Rate Exceeded - please wait [ 1000 ] and retry"
        ),
        "{err}"
    );
    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert!(err.to_string().ends_with("status 5: Internal Error"), "{err}");
}

#[tokio::test]
async fn refused_credentials_misconfigure_the_integration_and_a_barred_number_is_permanent() {
    let fake = nexmo::start().await;
    let mut wrong = credentials(fake.base_url());
    wrong["secretKey"] = json!("NotTheSecret");
    let err = send(&delivery("nexmo", Channel::Sms, wrong)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: nexmo: HTTP 200 OK from 127.0.0.1: status 4: Bad Credentials"
    );
    assert!(!err.to_string().contains("NotTheSecret") && !err.to_string().contains(API_SECRET));

    fake.then(failed("7", "Number barred."));
    let err = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("status 7: Number barred."), "{err}");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn without_a_key_a_secret_or_a_sender_nothing_is_sent() {
    let fake = nexmo::start().await;
    nothing_sent_without(&fake, &sms(fake.base_url()), &["apiKey", "secretKey", "from"]).await;
}
