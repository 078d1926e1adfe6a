use std::time::Duration;

use herald::providers::ProviderError;
use serde_json::{json, Value};

use super::common::{nothing_sent_without, push, send_each};
use super::send;
use crate::fakes::pushpad::{self, error, rate_limited, uid, unsubscribed_uid, AUTH_TOKEN, PROJECT_ID, UNAUTHORIZED};

fn credentials(base_url: &str) -> Value {
    json!({"applicationId": PROJECT_ID, "apiKey": AUTH_TOKEN, "baseUrl": base_url})
}

#[tokio::test]
async fn one_request_carries_every_uid_and_each_is_accepted_with_the_notification_id() {
    let fake = pushpad::start().await;
    let uids = [uid(), uid()];

    let answers =
        send_each(&crate::support::local_providers(), &push("pushpad", credentials(fake.base_url()), &uids)).await;

    let request = fake.only_request();
    assert_eq!(request.path, format!("/api/v1/projects/{PROJECT_ID}/notifications"));
    assert_eq!(request.header("authorization"), Some(format!("Token token=\"{AUTH_TOKEN}\"").as_str()));
    assert_eq!(request.header("accept"), Some("application/json"));
    assert_eq!(
        request.json(),
        json!({"notification": {"body": "Order A-1 is on its way", "title": "Your order shipped"}, "uids": uids})
    );
    assert_eq!(answers.len(), 2);
    for (answer, uid) in answers.iter().zip(&uids) {
        assert_eq!(&answer.token, uid);
        assert_eq!(answer.answer.as_ref().unwrap().provider_message_id.as_deref(), Some("197123"));
    }
}

#[tokio::test]
async fn overrides_map_to_pushpads_fields() {
    let fake = pushpad::start().await;
    let mut notification = push("pushpad", credentials(fake.base_url()), &[uid()]);
    notification.overrides = json!({"push": {"title": "Shipped", "ttl": "600"},
                                    "pushpad": {"targetUrl": "https://shop.example/A-1", "requireInteraction": true}});

    send(&notification).await.expect("accepted");

    let sent = &fake.only_request().json()["notification"];
    assert_eq!(
        sent,
        &json!({"body": "Order A-1 is on its way", "title": "Shipped", "ttl": 600,
                "target_url": "https://shop.example/A-1", "require_interaction": true})
    );
}

#[tokio::test]
async fn a_uid_left_out_of_the_answer_is_dead_and_the_others_accepted() {
    let fake = pushpad::start().await;
    let uids = [uid(), unsubscribed_uid(), uid()];

    let answers =
        send_each(&crate::support::local_providers(), &push("pushpad", credentials(fake.base_url()), &uids)).await;

    assert_eq!(fake.requests().len(), 1);
    assert!(answers[0].answer.is_ok() && answers[2].answer.is_ok(), "{answers:?}");
    assert_eq!(answers[1].token, uids[1]);
    let dead = answers[1].answer.as_ref().unwrap_err();
    assert!(matches!(dead, ProviderError::DeadDestination { .. }), "{dead:?}");
    assert!(dead.to_string().contains("no subscription"), "{dead}");
}

#[tokio::test]
async fn refusals_rate_limits_and_rejections_answer_for_every_uid() {
    let fake = pushpad::start().await;
    let uids = [uid(), uid()];
    let providers = crate::support::local_providers();
    let mut wrong = credentials(fake.base_url());
    wrong["apiKey"] = json!("wrong-token");

    for answer in send_each(&providers, &push("pushpad", wrong, &uids)).await {
        let err = answer.answer.unwrap_err();
        assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
        assert!(err.to_string().ends_with(UNAUTHORIZED) && !err.to_string().contains("wrong-token"), "{err}");
    }

    let mut other_project = credentials(fake.base_url());
    other_project["applicationId"] = json!("9999");
    let err = send(&push("pushpad", other_project, &uids)).await.unwrap_err();
    assert!(matches!(err, ProviderError::Misconfigured { .. }), "an unknown project: {err:?}");

    fake.then(rate_limited("7"));
    let limited = send_each(&providers, &push("pushpad", credentials(fake.base_url()), &uids)).await;
    for answer in &limited {
        let err = answer.answer.as_ref().unwrap_err();
        assert!(err.is_transient(), "{err:?}");
        assert_eq!(err.retry_after(), Some(Duration::from_secs(7)));
    }

    fake.then(error(422, "target_url is invalid"));
    let rejected = send(&push("pushpad", credentials(fake.base_url()), &uids)).await.unwrap_err();
    assert!(matches!(rejected, ProviderError::Permanent { .. }), "{rejected:?}");
    assert!(rejected.to_string().ends_with("target_url is invalid"), "{rejected}");
    assert_eq!(fake.requests().len(), 4);
}

#[tokio::test]
async fn without_a_project_or_a_token_nothing_is_sent() {
    let fake = pushpad::start().await;
    let complete = push("pushpad", credentials(fake.base_url()), &[uid()]);

    nothing_sent_without(&fake, &complete, &["applicationId", "apiKey"]).await;

    let mut odd = complete.clone();
    odd.credentials["applicationId"] = json!("../7023");
    assert!(send(&odd).await.unwrap_err().is_integration_fault());
    assert!(fake.requests().is_empty());
}
