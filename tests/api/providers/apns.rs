use axum::http::Version;
use herald::providers::ProviderError;
use serde_json::{json, Value};

use super::common::{nothing_sent_without, push, send_each};
use super::send;
use crate::fakes::apns::{
    self, device_token, distinct_provider_tokens, error, expired_provider_token, provider_token, too_many_requests,
    SigningKey, BUNDLE_ID, KEY, KEY_ID, TEAM_ID, UNREGISTERED,
};

fn credentials(base_url: &str) -> Value {
    json!({"secretKey": KEY.p8, "apiKey": KEY_ID, "projectName": TEAM_ID, "applicationId": BUNDLE_ID,
           "secure": true, "baseUrl": base_url})
}

#[tokio::test]
async fn a_notification_goes_over_http2_with_a_verified_provider_token_and_apns_id_is_recorded() {
    let fake = apns::start().await;
    let token = device_token();
    let notification = push("apns", credentials(fake.base_url()), std::slice::from_ref(&token));

    let accepted = send(&notification).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(request.version, Version::HTTP_2);
    assert_eq!(request.path, format!("/3/device/{token}"));
    let (header, claims) = provider_token(&request);
    assert_eq!(header, json!({"alg": "ES256", "kid": KEY_ID}));
    assert_eq!(claims["iss"], TEAM_ID);
    assert_eq!(request.header("apns-topic"), Some(BUNDLE_ID));
    assert_eq!(request.header("apns-push-type"), Some("alert"));
    assert_eq!(request.header("apns-priority"), Some("10"));
    assert_eq!(request.header("apns-collapse-id"), Some(notification.message_id.to_string().as_str()));
    assert_eq!(request.header("apns-expiration"), None);
    assert_eq!(
        request.json(),
        json!({"aps": {"alert": {"title": "Your order shipped", "body": "Order A-1 is on its way"}}, "orderId": "A-1"})
    );
    let apns_id = accepted.provider_message_id.expect("the apns-id header");
    assert!(uuid::Uuid::parse_str(&apns_id).is_ok(), "{apns_id}");
    assert_eq!(accepted.raw, None, "APNs answers success with an empty body");
}

#[tokio::test]
async fn push_and_apns_overrides_shape_the_payload_and_the_headers() {
    let fake = apns::start().await;
    let mut notification = push("apns", credentials(fake.base_url()), &[device_token()]);
    notification.overrides = json!({
        "push": {"title": "Shipped!", "sound": "default", "badge": 1, "data": {"deepLink": "app://orders/A-1"}},
        "apns": {"badge": 3, "subtitle": "A-1", "threadId": "orders", "mutableContent": true,
                 "collapseId": "order-A-1", "priority": 5, "expiry": 1_790_000_000,
                 "aps": {"interruption-level": "time-sensitive"}},
        "fcm": {"sound": "not for APNs"},
    });

    send(&notification).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(
        request.json(),
        json!({"aps": {"alert": {"title": "Shipped!", "subtitle": "A-1", "body": "Order A-1 is on its way"},
                       "sound": "default", "badge": 3, "thread-id": "orders", "mutable-content": 1,
                       "interruption-level": "time-sensitive"},
               "orderId": "A-1", "deepLink": "app://orders/A-1"})
    );
    assert_eq!(request.header("apns-collapse-id"), Some("order-A-1"));
    assert_eq!(request.header("apns-priority"), Some("5"));
    assert_eq!(request.header("apns-expiration"), Some("1790000000"));
}

#[tokio::test]
async fn one_provider_token_and_one_connection_serve_concurrent_sends_and_later_messages() {
    let fake = apns::start().await;
    let providers = crate::support::local_providers();
    let tokens: Vec<String> = (0..20).map(|_| device_token()).collect();

    let answers = send_each(&providers, &push("apns", credentials(fake.base_url()), &tokens)).await;
    let later = send_each(&providers, &push("apns", credentials(fake.base_url()), &tokens[..3])).await;

    assert_eq!(answers.iter().map(|answer| answer.token.clone()).collect::<Vec<_>>(), tokens, "in token order");
    assert!(answers.iter().chain(&later).all(|answer| answer.answer.is_ok()), "{answers:?} {later:?}");
    assert_eq!(fake.requests().len(), 23);
    assert!(fake.requests().iter().all(|request| request.version == Version::HTTP_2));
    assert_eq!(distinct_provider_tokens(&fake), 1, "signed once, reused by every send");
    assert_eq!(fake.connections(), 1, "every send multiplexed on one HTTP/2 connection");
}

#[tokio::test]
async fn an_expired_provider_token_is_renewed_once_and_the_send_retried_once() {
    let fake = apns::start().await;
    let providers = crate::support::local_providers();
    let notification = push("apns", credentials(fake.base_url()), &[device_token()]);
    fake.then(expired_provider_token());

    let answers = send_each(&providers, &notification).await;

    assert!(answers[0].answer.is_ok(), "{answers:?}");
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(distinct_provider_tokens(&fake), 2, "the refused token, then a new one");
    let renewed = fake.requests()[1].header("authorization").map(str::to_owned);

    send_each(&providers, &notification).await;
    assert_eq!(fake.requests()[2].header("authorization").map(str::to_owned), renewed, "the new token stays");

    fake.then(expired_provider_token()).then(expired_provider_token());
    let err = send_each(&providers, &notification).await.remove(0).answer.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(err.to_string().contains("ExpiredProviderToken") && err.to_string().contains("clock"), "{err}");
    assert_eq!(fake.requests().len(), 5, "renewed and retried once, not again");
}

#[tokio::test]
async fn of_three_tokens_one_unregistered_two_are_accepted_and_one_is_dead() {
    let fake = apns::start().await;
    let tokens = [device_token(), UNREGISTERED.to_owned(), device_token()];

    let answers =
        send_each(&crate::support::local_providers(), &push("apns", credentials(fake.base_url()), &tokens)).await;

    assert_eq!(answers.iter().map(|answer| answer.token.as_str()).collect::<Vec<_>>(), tokens);
    let (first, dead, last) = (&answers[0].answer, &answers[1].answer, &answers[2].answer);
    assert!(first.is_ok() && last.is_ok(), "{answers:?}");
    assert_ne!(first.as_ref().unwrap().provider_message_id, last.as_ref().unwrap().provider_message_id);
    let dead = dead.as_ref().unwrap_err();
    assert!(matches!(dead, ProviderError::DeadDestination { .. }), "{dead:?}");
    assert_eq!(dead.to_string(), "apns: HTTP 410 Gone from 127.0.0.1: Unregistered");
    assert!(dead.raw().is_some_and(|raw| raw.contains("timestamp")), "{dead:?}");
}

#[tokio::test]
async fn a_malformed_token_is_dead_and_the_error_says_it_may_be_the_other_environment() {
    let fake = apns::start().await;

    let err = send(&push("apns", credentials(fake.base_url()), &["not-a-device-token".to_owned()])).await.unwrap_err();

    assert!(matches!(err, ProviderError::DeadDestination { .. }), "{err:?}");
    assert!(err.to_string().starts_with("apns: HTTP 400 Bad Request from 127.0.0.1: BadDeviceToken ("), "{err}");
    assert!(err.to_string().contains("other environment"), "{err}");
}

#[tokio::test]
async fn too_many_requests_and_server_errors_are_transient() {
    let fake = apns::start().await;
    fake.then(too_many_requests())
        .then(error(500, "InternalServerError"))
        .then(error(503, "ServiceUnavailable").with_header("retry-after", "4"));
    let notification = push("apns", credentials(fake.base_url()), &[device_token()]);

    for reason in ["TooManyRequests", "InternalServerError", "ServiceUnavailable"] {
        let err = send(&notification).await.unwrap_err();
        assert!(err.is_transient(), "{reason}: {err:?}");
        assert!(err.to_string().ends_with(reason), "{err}");
    }
    assert_eq!(fake.requests().len(), 3, "no retry inside the adapter: the engine's backoff decides");
}

#[tokio::test]
async fn a_key_of_another_team_misconfigures_the_integration_and_a_wrong_topic_is_permanent() {
    let fake = apns::start().await;
    let other = SigningKey::generate();
    let mut wrong_key = credentials(fake.base_url());
    wrong_key["secretKey"] = json!(other.p8);

    let err = send(&push("apns", wrong_key, &[device_token()])).await.unwrap_err();

    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: apns: HTTP 403 Forbidden from 127.0.0.1: InvalidProviderToken"
    );

    let mut wrong_topic = credentials(fake.base_url());
    wrong_topic["applicationId"] = json!("io.herald.other");
    let err = send(&push("apns", wrong_topic, &[device_token()])).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("TopicDisallowed"), "{err}");
}

#[tokio::test]
async fn without_its_credentials_or_a_readable_key_nothing_is_sent() {
    let fake = apns::start().await;
    let complete = push("apns", credentials(fake.base_url()), &[device_token()]);
    nothing_sent_without(&fake, &complete, &["secretKey", "apiKey", "projectName", "applicationId"]).await;

    let mut unreadable = complete.clone();
    unreadable.credentials["secretKey"] = json!("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----");
    let err = send(&unreadable).await.unwrap_err();
    assert!(err.is_integration_fault() && err.to_string().contains("`secretKey`"), "{err}");
    assert!(!err.to_string().contains("bm90IGEga2V5"), "the key is never quoted: {err}");

    let mut no_tokens = complete;
    no_tokens.to.device_tokens.clear();
    let err = send(&no_tokens).await.unwrap_err();
    assert_eq!(err, ProviderError::permanent("apns: the subscriber has no device tokens"));
    assert!(fake.requests().is_empty());
}
