use std::time::Duration;

use herald::providers::{Delivery, ProviderError};
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::mattermost::{self, error, rate_limited, webhook_url, HOOK_ID};
use crate::fakes::FakeAnswer;

fn to_webhook(url: &str) -> Delivery {
    chat("mattermost", json!({}), Some(url))
}

#[tokio::test]
async fn a_message_goes_to_the_subscribers_channel_with_the_triggers_custom_data() {
    let fake = mattermost::start().await;
    let mut message = to_webhook(&webhook_url(&fake));
    message.to.chat_channel = Some("ops-alerts".to_owned());
    message.overrides = json!({"chat": {"integrationIdentifier": "mm"},
                               "mattermost": {"username": "Orders", "props": {"card": "Order **A-1**"}}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", format!("/hooks/{HOOK_ID}").as_str()));
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"text": "Order A-1 shipped", "channel": "ops-alerts", "username": "Orders",
               "props": {"card": "Order **A-1**"}})
    );
    assert_eq!(accepted.provider_message_id.as_deref(), Some("p4k8m1ctrfbx7q3ynzw6d9ahse"));
    assert_eq!(accepted.raw.as_deref(), Some("ok"));
}

#[tokio::test]
async fn without_a_channel_the_hook_posts_to_its_own() {
    let fake = mattermost::start().await;

    send(&chat("mattermost", json!({"webhookUrl": webhook_url(&fake)}), None)).await.expect("accepted");

    assert_eq!(fake.only_request().json(), json!({"text": "Order A-1 shipped"}));
}

#[tokio::test]
async fn a_deleted_hook_or_its_deleted_channel_is_a_dead_destination() {
    let fake = mattermost::start().await;
    let deleted = format!("{}/hooks/0000000000000000000000dead", fake.base_url());

    let no_hook = send(&to_webhook(&deleted)).await.unwrap_err();
    fake.then(error(404, "app.channel.get.existing.app_error", "Unable to find the existing channel."));
    let no_channel = send(&to_webhook(&webhook_url(&fake))).await.unwrap_err();

    assert!(matches!(no_hook, ProviderError::DeadDestination { .. }), "{no_hook:?}");
    assert!(
        no_hook
            .to_string()
            .ends_with("HTTP 400 Bad Request from 127.0.0.1: web.incoming_webhook.invalid.app_error: Invalid webhook."),
        "{no_hook}"
    );
    assert!(matches!(no_channel, ProviderError::DeadDestination { .. }), "{no_channel:?}");

    let integrations = send(&chat("mattermost", json!({"webhookUrl": deleted}), None)).await.unwrap_err();
    assert!(matches!(integrations, ProviderError::Misconfigured { .. }), "{integrations:?}");
}

#[tokio::test]
async fn an_unknown_channel_no_text_or_disabled_hooks_are_permanent() {
    let fake = mattermost::start().await;
    let mut unknown_channel = to_webhook(&webhook_url(&fake));
    unknown_channel.to.chat_channel = Some("no-such-channel".to_owned());
    let mut empty = to_webhook(&webhook_url(&fake));
    empty.content = String::new();

    let not_found = send(&unknown_channel).await.unwrap_err();
    let no_text = send(&empty).await.unwrap_err();
    fake.then(error(
        501,
        "web.incoming_webhook.disabled.app_error",
        "Incoming webhooks have been disabled by the system admin.",
    ));
    let disabled = send(&to_webhook(&webhook_url(&fake))).await.unwrap_err();

    for (err, id) in [
        (not_found, "web.incoming_webhook.channel.app_error"),
        (no_text, "web.incoming_webhook.text.app_error"),
        (disabled, "web.incoming_webhook.disabled.app_error"),
    ] {
        // Not dead: the hook is there (a 404 for a channel override must not remove it).
        assert!(matches!(err, ProviderError::Permanent { .. }), "{id}: {err:?}");
        assert!(err.to_string().contains(&format!(": {id}: ")), "{err}");
    }
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_transient() {
    let fake = mattermost::start().await;
    fake.then(rate_limited("1")).then(FakeAnswer::text(503, "Service Unavailable"));
    let message = to_webhook(&webhook_url(&fake));

    let limited = send(&message).await.unwrap_err();
    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(1)));
    assert!(limited.to_string().ends_with("HTTP 429 Too Many Requests from 127.0.0.1: limit exceeded"), "{limited}");

    let unavailable = send(&message).await.unwrap_err();
    assert!(unavailable.is_transient(), "{unavailable:?}");
    assert!(unavailable.to_string().ends_with(": Service Unavailable"), "{unavailable}");
}
