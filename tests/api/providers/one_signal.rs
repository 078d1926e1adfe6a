use std::time::Duration;

use herald::providers::ProviderError;
use serde_json::{json, Value};

use super::common::{nothing_sent_without, push, send_each};
use super::send;
use crate::fakes::one_signal::{
    self, error, rate_limited, subscription_id, unknown_id, unsubscribed_id, ACCESS_DENIED, API_KEY, APP_ID,
    NONE_SUBSCRIBED,
};

fn credentials(base_url: &str) -> Value {
    json!({"applicationId": APP_ID, "apiKey": API_KEY, "baseUrl": base_url})
}

#[tokio::test]
async fn one_request_carries_every_token_and_each_is_accepted_with_the_notification_id() {
    let fake = one_signal::start().await;
    let tokens: Vec<String> = (0..3).map(|_| subscription_id()).collect();
    let notification = push("one-signal", credentials(fake.base_url()), &tokens);

    let answers = send_each(&crate::support::local_providers(), &notification).await;

    let request = fake.only_request();
    assert_eq!(request.header("authorization"), Some(format!("Key {API_KEY}").as_str()));
    let body = request.json();
    let key = body["idempotency_key"].as_str().expect("an idempotency key").to_owned();
    assert_eq!(uuid::Uuid::parse_str(&key).unwrap().get_version_num(), 4);
    assert_eq!(
        body,
        json!({"app_id": APP_ID, "include_subscription_ids": tokens, "headings": {"en": "Your order shipped"},
               "contents": {"en": "Order A-1 is on its way"}, "data": {"orderId": "A-1"}, "idempotency_key": key})
    );
    assert_eq!(answers.iter().map(|answer| &answer.token).collect::<Vec<_>>(), tokens.iter().collect::<Vec<_>>());
    let ids: Vec<_> = answers.iter().map(|answer| answer.answer.clone().unwrap().provider_message_id).collect();
    assert!(ids[0].is_some() && ids.iter().all(|id| *id == ids[0]), "{ids:?}");

    send_each(&crate::support::local_providers(), &notification).await;
    assert_eq!(fake.requests()[1].json()["idempotency_key"], key.as_str(), "a retry is recognised as one");
}

#[tokio::test]
async fn push_and_one_signal_overrides_map_to_its_fields() {
    let fake = one_signal::start().await;
    let mut notification = push("one-signal", credentials(fake.base_url()), &[subscription_id()]);
    notification.overrides = json!({
        "push": {"sound": "chime.wav", "badge": 2, "data": {"deepLink": "app://orders/A-1"}},
        "one-signal": {"subtitle": "A-1", "channelId": "orders", "mutableContent": true, "categoryId": "order"},
    });

    send(&notification).await.expect("accepted");

    let body = fake.only_request().json();
    assert_eq!(body["subtitle"], json!({"en": "A-1"}));
    assert_eq!(body["data"], json!({"orderId": "A-1", "deepLink": "app://orders/A-1"}));
    assert_eq!((&body["ios_sound"], &body["android_sound"]), (&json!("chime.wav"), &json!("chime.wav")));
    assert_eq!((&body["ios_badgeType"], &body["ios_badgeCount"]), (&json!("SetTo"), &json!(2)));
    assert_eq!((&body["android_channel_id"], &body["ios_category"]), (&json!("orders"), &json!("order")));
    assert_eq!(body["mutable_content"], true);
}

#[tokio::test]
async fn ids_a_200_names_invalid_are_dead_and_the_others_accepted() {
    let fake = one_signal::start().await;
    let tokens = [subscription_id(), unknown_id(), subscription_id()];

    let answers =
        send_each(&crate::support::local_providers(), &push("one-signal", credentials(fake.base_url()), &tokens)).await;

    assert_eq!(fake.requests().len(), 1);
    assert!(answers[0].answer.is_ok() && answers[2].answer.is_ok(), "{answers:?}");
    let dead = answers[1].answer.as_ref().unwrap_err();
    assert_eq!(answers[1].token, tokens[1]);
    assert!(matches!(dead, ProviderError::DeadDestination { .. }), "{dead:?}");
    assert!(dead.to_string().contains("invalid_player_ids"), "{dead}");
    assert!(dead.raw().is_some_and(|raw| raw.contains(&tokens[1])), "{dead:?}");
}

#[tokio::test]
async fn when_no_included_subscription_is_subscribed_every_token_is_dead() {
    let fake = one_signal::start().await;
    let tokens = [unsubscribed_id(), unsubscribed_id()];

    let answers =
        send_each(&crate::support::local_providers(), &push("one-signal", credentials(fake.base_url()), &tokens)).await;

    for answer in &answers {
        let err = answer.answer.as_ref().unwrap_err();
        assert!(matches!(err, ProviderError::DeadDestination { .. }), "{err:?}");
        assert_eq!(err.to_string(), format!("one-signal: HTTP 200 OK from 127.0.0.1: {NONE_SUBSCRIBED}"));
    }
    assert_eq!(answers.len(), 2);
}

#[tokio::test]
async fn refusals_rate_limits_and_rejections_answer_for_every_token() {
    let fake = one_signal::start().await;
    let tokens = [subscription_id(), subscription_id()];
    let mut wrong_key = credentials(fake.base_url());
    wrong_key["apiKey"] = json!("os_v2_app_wrong");
    let providers = crate::support::local_providers();

    let refused = send_each(&providers, &push("one-signal", wrong_key, &tokens)).await;
    for answer in &refused {
        let err = answer.answer.as_ref().unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
        assert!(err.to_string().ends_with(ACCESS_DENIED) && !err.to_string().contains("wrong"), "{err}");
    }

    fake.then(rate_limited("5"));
    let limited = send_each(&providers, &push("one-signal", credentials(fake.base_url()), &tokens)).await;
    for answer in &limited {
        let err = answer.answer.as_ref().unwrap_err();
        assert!(err.is_transient(), "{err:?}");
        assert_eq!(err.retry_after(), Some(Duration::from_secs(5)));
        assert!(err.to_string().ends_with("API rate limit exceeded"), "{err}");
    }

    fake.then(error(400, "Notification content must not be null for any languages."));
    let rejected = send(&push("one-signal", credentials(fake.base_url()), &tokens)).await.unwrap_err();
    assert!(matches!(rejected, ProviderError::Permanent { .. }), "{rejected:?}");
    assert!(rejected.to_string().ends_with("must not be null for any languages."), "{rejected}");
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test]
async fn without_an_app_id_or_a_key_nothing_is_sent() {
    let fake = one_signal::start().await;
    let complete = push("one-signal", credentials(fake.base_url()), &[subscription_id()]);

    nothing_sent_without(&fake, &complete, &["applicationId", "apiKey"]).await;

    let mut no_tokens = complete;
    no_tokens.to.device_tokens.clear();
    assert_eq!(
        send(&no_tokens).await.unwrap_err(),
        ProviderError::permanent("one-signal: the subscriber has no device tokens")
    );
    assert!(send_each(&crate::support::local_providers(), &no_tokens).await.is_empty());
    assert!(fake.requests().is_empty());
}
