use std::time::Duration;

use herald::providers::{Channel, Delivery, ProviderError};
use serde_json::{json, Value};

use super::common::{self, nothing_sent_without, pairs};
use super::{delivery, send};
use crate::fakes::twilio::{self, error, too_many_requests, ACCOUNT_SID, AUTH_TOKEN, MESSAGES_PATH};

fn credentials(base_url: &str) -> Value {
    json!({"accountSid": ACCOUNT_SID, "token": AUTH_TOKEN, "from": "+15550199", "baseUrl": base_url})
}

fn sms(base_url: &str) -> Delivery {
    common::sms("twilio", credentials(base_url))
}

#[tokio::test]
async fn an_sms_is_posted_with_basic_auth_and_every_field() {
    let fake = twilio::start().await;

    let accepted = send(&sms(fake.base_url())).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", MESSAGES_PATH));
    assert_eq!(request.basic_auth(), Some((ACCOUNT_SID.to_owned(), AUTH_TOKEN.to_owned())));
    assert!(request.content_type_is("application/x-www-form-urlencoded"));
    assert_eq!(request.form(), pairs(&[("To", "+15550100"), ("From", "+15550199"), ("Body", "Order A-1 shipped")]));
    let sid = accepted.provider_message_id.expect("the message sid");
    assert!(sid.starts_with("SM") && sid.len() == 34, "{sid}");
    assert!(accepted.raw.unwrap().contains(r#""status":"queued""#));
}

#[tokio::test]
async fn a_messaging_service_goes_as_messaging_service_sid_and_an_mgm_sender_stays_a_from() {
    let fake = twilio::start().await;
    let service = "MG0123456789abcdef0123456789abcdef";
    let mut through_service = sms(fake.base_url());
    through_service.overrides = json!({"sms": {"from": service}});
    send(&through_service).await.expect("accepted");
    let mut mgm = sms(fake.base_url());
    mgm.credentials["from"] = json!("MGM Resorts");
    send(&mgm).await.expect("accepted");

    let requests = fake.requests();
    assert_eq!(
        requests[0].form(),
        pairs(&[("To", "+15550100"), ("MessagingServiceSid", service), ("Body", "Order A-1 shipped")])
    );
    assert_eq!(requests[1].form_value("From").as_deref(), Some("MGM Resorts"));
    assert_eq!(requests[1].form_value("MessagingServiceSid"), None);
}

#[tokio::test]
async fn too_many_requests_a_full_queue_and_server_errors_are_transient() {
    let fake = twilio::start().await;
    fake.then(too_many_requests("12"))
        .then(error(400, 21611, "This 'From' number has exceeded the maximum number of queued messages"))
        .then(error(503, 20503, "Service Unavailable"));

    let throttled = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(throttled.is_transient(), "{throttled:?}");
    assert_eq!(throttled.retry_after(), Some(Duration::from_secs(12)));
    assert!(
        throttled
            .to_string()
            .ends_with("20429: Too many requests. Please retry according to the Retry-After response header."),
        "{throttled}"
    );

    let queue_full = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(queue_full.is_transient(), "a 400 with 21611: {queue_full:?}");
    assert!(queue_full.to_string().contains("21611: This 'From' number"), "{queue_full}");

    let unavailable = send(&sms(fake.base_url())).await.unwrap_err();
    assert!(unavailable.is_transient(), "{unavailable:?}");
    assert!(unavailable.to_string().ends_with("20503: Service Unavailable"), "{unavailable}");
}

#[tokio::test]
async fn a_refused_token_misconfigures_the_integration_and_a_bad_number_is_permanent() {
    let fake = twilio::start().await;
    let mut wrong = credentials(fake.base_url());
    wrong["token"] = json!("not-the-token");
    let err = send(&delivery("twilio", Channel::Sms, wrong)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: twilio: HTTP 401 Unauthorized from 127.0.0.1: 20003: Authenticate"
    );
    assert!(!err.to_string().contains("not-the-token"));

    let mut local = sms(fake.base_url());
    local.to.phone = Some("call-me".to_owned());
    let err = send(&local).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(
        err.to_string().ends_with("HTTP 400 Bad Request from 127.0.0.1: 21211: Invalid 'To' Phone Number: call-me"),
        "{err}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn without_an_account_a_token_or_a_sender_nothing_is_sent() {
    let fake = twilio::start().await;
    nothing_sent_without(&fake, &sms(fake.base_url()), &["accountSid", "token", "from"]).await;
    let mut traversal = credentials(fake.base_url());
    traversal["accountSid"] = json!("../../AC1");
    assert!(send(&delivery("twilio", Channel::Sms, traversal)).await.unwrap_err().is_integration_fault());
    assert!(fake.requests().is_empty());
}
