use std::time::Duration;

use herald::providers::ProviderError;
use serde_json::{json, Value};

use super::common::{nothing_sent_without, push, send_each};
use super::send;
use crate::fakes::pusher_beams::{self, error, rate_limited, user_id, INCORRECT_KEY, INSTANCE_ID, SECRET_KEY};

fn credentials(base_url: &str) -> Value {
    json!({"instanceId": INSTANCE_ID, "secretKey": SECRET_KEY, "baseUrl": base_url})
}

#[tokio::test]
async fn one_publish_carries_every_user_and_each_is_accepted_with_the_publish_id() {
    let fake = pusher_beams::start().await;
    let users = [user_id(), user_id()];

    let answers =
        send_each(&crate::support::local_providers(), &push("pusher-beams", credentials(fake.base_url()), &users))
            .await;

    let request = fake.only_request();
    assert_eq!(request.path, format!("/publish_api/v1/instances/{INSTANCE_ID}/publishes/users"));
    assert_eq!(request.header("authorization"), Some(format!("Bearer {SECRET_KEY}").as_str()));
    let notification = json!({"title": "Your order shipped", "body": "Order A-1 is on its way"});
    assert_eq!(
        request.json(),
        json!({"users": users, "apns": {"aps": {"alert": notification}},
               "fcm": {"notification": notification, "data": {"orderId": "A-1"}},
               "web": {"notification": notification, "data": {"orderId": "A-1"}}})
    );
    let ids: Vec<_> = answers.iter().map(|answer| answer.answer.clone().unwrap().provider_message_id).collect();
    assert!(ids[0].as_deref().is_some_and(|id| id.starts_with("pubid-")), "{ids:?}");
    assert_eq!(ids[0], ids[1]);
    assert_eq!(answers.iter().map(|answer| &answer.token).collect::<Vec<_>>(), users.iter().collect::<Vec<_>>());
}

#[tokio::test]
async fn overrides_map_to_each_platforms_fields() {
    let fake = pusher_beams::start().await;
    let mut notification = push("pusher-beams", credentials(fake.base_url()), &[user_id()]);
    notification.overrides =
        json!({"push": {"sound": "chime", "badge": 3, "ttl": 60}, "pusher-beams": {"icon": "https://x/i.png"}});

    send(&notification).await.expect("accepted");

    let body = fake.only_request().json();
    assert_eq!((&body["apns"]["aps"]["sound"], &body["apns"]["aps"]["badge"]), (&json!("chime"), &json!(3)));
    assert_eq!(body["fcm"]["notification"]["sound"], "chime");
    assert_eq!((&body["fcm"]["time_to_live"], &body["web"]["time_to_live"]), (&json!(60), &json!(60)));
    assert_eq!(body["web"]["notification"]["icon"], "https://x/i.png");
}

#[tokio::test]
async fn a_user_id_beams_cannot_take_is_refused_alone_and_the_rest_published() {
    let fake = pusher_beams::start().await;
    let users = [user_id(), "u".repeat(165)];

    let answers =
        send_each(&crate::support::local_providers(), &push("pusher-beams", credentials(fake.base_url()), &users))
            .await;

    assert_eq!(fake.only_request().json()["users"], json!([users[0]]));
    assert!(answers[0].answer.is_ok(), "{answers:?}");
    assert_eq!(answers[1].token, users[1]);
    assert!(matches!(answers[1].answer, Err(ProviderError::Permanent { .. })), "{answers:?}");
}

#[tokio::test]
async fn refusals_rate_limits_and_rejections_answer_for_every_user() {
    let fake = pusher_beams::start().await;
    let users = [user_id(), user_id()];
    let providers = crate::support::local_providers();
    let mut wrong = credentials(fake.base_url());
    wrong["secretKey"] = json!("WRONGKEY");

    for answer in send_each(&providers, &push("pusher-beams", wrong, &users)).await {
        let err = answer.answer.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
        assert!(err.to_string().ends_with(INCORRECT_KEY) && !err.to_string().contains("WRONGKEY"), "{err}");
    }

    let mut other_instance = credentials(fake.base_url());
    other_instance["instanceId"] = json!("00000000-0000-0000-0000-000000000000");
    let err = send(&push("pusher-beams", other_instance, &users)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "an unknown instance: {err:?}");

    fake.then(rate_limited("3"));
    for answer in send_each(&providers, &push("pusher-beams", credentials(fake.base_url()), &users)).await {
        let err = answer.answer.unwrap_err();
        assert!(err.is_transient(), "{err:?}");
        assert_eq!(err.retry_after(), Some(Duration::from_secs(3)));
        assert!(err.to_string().ends_with("max 100 RPS"), "{err}");
    }

    fake.then(error(402, "Payment Required", "Subscriber limit of your plan reached"));
    let err = send(&push("pusher-beams", credentials(fake.base_url()), &users)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert_eq!(fake.requests().len(), 4);
}

#[tokio::test]
async fn without_an_instance_or_a_key_nothing_is_sent() {
    let fake = pusher_beams::start().await;
    let complete = push("pusher-beams", credentials(fake.base_url()), &[user_id()]);

    nothing_sent_without(&fake, &complete, &["instanceId", "secretKey"]).await;

    let mut odd = complete.clone();
    odd.credentials["instanceId"] = json!("evil.example/x");
    assert!(send(&odd).await.unwrap_err().is_integration_fault());
    assert!(fake.requests().is_empty());
}
