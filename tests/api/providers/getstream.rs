use std::time::{Duration, SystemTime, UNIX_EPOCH};

use herald::providers::{posts_to_chat_channel, Delivery, ProviderError};
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::getstream::{self, is_server_token, rate_limited, API_KEY, CID, MESSAGE_ID, PATH, SECRET, USER_ID};
use crate::fakes::{FakeAnswer, FakeProvider};

fn to_channel(fake: &FakeProvider, cid: &str) -> Delivery {
    let credentials = json!({"apiKey": API_KEY, "secretKey": SECRET, "user": USER_ID, "baseUrl": fake.base_url()});
    let mut message = chat("getstream", credentials, None);
    message.to.chat_channel = Some(cid.to_owned());
    message
}

#[tokio::test]
async fn a_message_goes_to_the_subscribers_channel_signed_with_a_server_token_and_its_id_is_recorded() {
    let fake = getstream::start().await;
    let mut message = to_channel(&fake, CID);
    message.overrides = json!({"chat": {"silent": true}, "getstream": {"custom_field": "A-1"}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", PATH));
    assert_eq!(request.query.as_deref(), Some(format!("api_key={API_KEY}").as_str()));
    assert_eq!(request.header("stream-auth-type"), Some("jwt"));
    assert!(is_server_token(request.header("authorization").unwrap_or_default()), "{:?}", request.headers);
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"message": {"text": "Order A-1 shipped", "user_id": USER_ID, "silent": true, "custom_field": "A-1"}})
    );
    assert_eq!(accepted.provider_message_id.as_deref(), Some(MESSAGE_ID));
    assert!(posts_to_chat_channel("getstream", &message.credentials));
}

#[tokio::test]
async fn a_bare_channel_id_is_a_messaging_channel() {
    let fake = getstream::start().await;

    send(&to_channel(&fake, "orders")).await.expect("accepted");

    assert_eq!(fake.only_request().path, PATH);
}

#[tokio::test]
async fn a_channel_that_does_not_exist_is_a_dead_destination() {
    let fake = getstream::start().await;

    let gone = send(&to_channel(&fake, "messaging:deleted")).await.unwrap_err();

    assert!(matches!(gone, ProviderError::DeadDestination { .. }), "{gone:?}");
    assert!(gone.to_string().contains("16: GetOrCreateChannel failed"), "{gone}");
}

#[tokio::test]
async fn a_wrong_secret_or_key_misconfigures_the_integration_and_missing_parts_send_nothing() {
    let fake = getstream::start().await;
    let mut wrong_secret = to_channel(&fake, CID);
    wrong_secret.credentials["secretKey"] = json!("not-the-secret");
    let mut wrong_key = to_channel(&fake, CID);
    wrong_key.credentials["apiKey"] = json!("wrongkey");
    let mut no_user = to_channel(&fake, CID);
    no_user.credentials.as_object_mut().unwrap().remove("user");
    let mut no_channel = to_channel(&fake, CID);
    no_channel.to.chat_channel = None;
    let mut bad_channel = to_channel(&fake, CID);
    bad_channel.to.chat_channel = Some("messaging:../x".to_owned());

    let bad_signature = send(&wrong_secret).await.unwrap_err();
    let bad_key = send(&wrong_key).await.unwrap_err();
    let userless = send(&no_user).await.unwrap_err();
    let channelless = send(&no_channel).await.unwrap_err();
    let invalid = send(&bad_channel).await.unwrap_err();

    assert!(matches!(bad_signature, ProviderError::Misconfigured { .. }), "{bad_signature:?}");
    assert!(bad_signature.to_string().contains("5: JWTAuth error: signature is not valid"), "{bad_signature}");
    assert!(matches!(bad_key, ProviderError::Misconfigured { .. }), "{bad_key:?}");
    assert!(matches!(userless, ProviderError::Misconfigured { .. }), "{userless:?}");
    assert!(matches!(channelless, ProviderError::Permanent { .. }), "{channelless:?}");
    assert!(matches!(invalid, ProviderError::Permanent { .. }), "{invalid:?}");
    assert_eq!(fake.requests().len(), 2, "only the wrong secret and key reached Stream");
}

#[tokio::test]
async fn rate_limits_wait_until_the_reset_and_server_errors_are_transient() {
    let fake = getstream::start().await;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    fake.then(rate_limited(now + 30)).then(FakeAnswer::text(503, "Service Unavailable"));
    let message = to_channel(&fake, CID);

    let limited = send(&message).await.unwrap_err();
    let unavailable = send(&message).await.unwrap_err();

    assert!(limited.is_transient(), "{limited:?}");
    let wait = limited.retry_after().expect("a wait");
    assert!(wait > Duration::from_secs(25) && wait <= Duration::from_secs(30), "{wait:?}");
    assert!(unavailable.is_transient(), "{unavailable:?}");
}

#[tokio::test]
async fn without_a_secret_it_posts_the_reference_services_body_to_the_webhook() {
    let relay = getstream::start_relay().await;
    let url = format!("{}/relay", relay.base_url());
    let message = chat("getstream", json!({"apiKey": API_KEY}), Some(&url));
    let mut wrong = message.clone();
    wrong.credentials = json!({"apiKey": "other"});

    let accepted = send(&message).await.expect("accepted");
    let refused = send(&wrong).await.unwrap_err();

    let request = &relay.requests()[0];
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/relay"));
    assert_eq!(request.json(), json!({"text": "Order A-1 shipped", "headers": {"X-API-KEY": API_KEY}}));
    assert_eq!(accepted.provider_message_id, None);
    assert!(!posts_to_chat_channel("getstream", &message.credentials));
    // The subscriber's webhook refusing the key is not the integration's fault.
    assert!(matches!(refused, ProviderError::Permanent { .. }), "{refused:?}");
}
