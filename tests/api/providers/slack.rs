use std::time::Duration;

use herald::providers::{Delivery, ProviderError};
use serde_json::{json, Value};

use super::common::chat;
use super::send;
use crate::fakes::slack::{
    self, api_error, api_rate_limited, webhook_answer, webhook_rate_limited, webhook_url, ARCHIVED_CHANNEL, BOT_TOKEN,
    CHANNEL, WEBHOOK_PATH,
};
use crate::fakes::FakeProvider;

/// A message through the bot token to the subscriber's `channel`, if any.
fn bot(fake: &FakeProvider, channel: Option<&str>) -> Delivery {
    let mut message = chat("slack", json!({"apiKey": BOT_TOKEN, "baseUrl": fake.base_url()}), None);
    message.to.chat_channel = channel.map(str::to_owned);
    message
}

fn to_webhook(url: &str) -> Delivery {
    chat("slack", json!({}), Some(url))
}

#[tokio::test]
async fn a_webhook_message_is_its_text_and_the_triggers_custom_data() {
    let fake = slack::start().await;
    let mut message = to_webhook(&webhook_url(&fake));
    let blocks = json!([{"type": "section", "text": {"type": "mrkdwn", "text": "*Order A-1* shipped"}}]);
    message.overrides = json!({
        "chat": {"integrationIdentifier": "slack-main", "username": "Orders", "icon_emoji": ":package:"},
        "slack": {"blocks": blocks, "username": "Shipping"},
        "email": {"from": "not-for-slack@acme.io"},
    });

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", WEBHOOK_PATH));
    assert!(request.content_type_is("application/json"));
    assert_eq!(request.header("authorization"), None, "a webhook takes no token");
    assert_eq!(
        request.json(),
        json!({"text": "Order A-1 shipped", "blocks": blocks, "username": "Shipping", "icon_emoji": ":package:"})
    );
    let request_id = accepted.provider_message_id.expect("the x-slack-req-id header");
    assert_eq!(request_id.len(), 32, "{request_id}");
    assert_eq!(accepted.raw.as_deref(), Some("ok"));
}

#[tokio::test]
async fn the_subscribers_webhook_wins_and_the_integrations_is_the_fallback() {
    let subscribers = slack::start().await;
    let integrations = slack::start().await;
    let mut both = to_webhook(&webhook_url(&subscribers));
    both.credentials = json!({"webhookUrl": webhook_url(&integrations)});
    send(&both).await.expect("accepted");
    assert_eq!(subscribers.requests().len(), 1);
    assert!(integrations.requests().is_empty());

    both.to.webhook_url = None;
    send(&both).await.expect("accepted");
    assert_eq!(integrations.only_request().path, WEBHOOK_PATH);

    let err = send(&chat("slack", json!({}), None)).await.unwrap_err();
    assert_eq!(
        err,
        ProviderError::Permanent {
            message: "slack: neither the subscriber nor the integration has a webhookUrl".into(),
            raw: None
        }
    );
}

#[tokio::test]
async fn webhook_rate_limits_and_rollup_errors_are_transient() {
    let fake = slack::start().await;
    fake.then(webhook_rate_limited("30")).then(webhook_answer(500, "rollup_error"));
    let message = to_webhook(&webhook_url(&fake));

    let limited = send(&message).await.unwrap_err();
    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(30)));
    assert!(limited.to_string().ends_with("HTTP 429 Too Many Requests from 127.0.0.1: rate_limited"), "{limited}");

    let rollup = send(&message).await.unwrap_err();
    assert!(rollup.is_transient() && rollup.retry_after().is_none(), "{rollup:?}");
    assert!(rollup.to_string().ends_with(": rollup_error"), "{rollup}");
}

#[tokio::test]
async fn a_gone_webhook_or_channel_is_a_dead_destination() {
    let fake = slack::start().await;
    fake.then(webhook_answer(404, "channel_not_found")).then(webhook_answer(410, "channel_is_archived"));
    let unknown_hook = format!("{}/services/T0001/B0999/Xq7HOOKSECRETxxxxxxxxxxx", fake.base_url());
    for (url, error) in [
        (webhook_url(&fake), "channel_not_found"),
        (webhook_url(&fake), "channel_is_archived"),
        (unknown_hook, "no_service"),
    ] {
        let err = send(&to_webhook(&url)).await.unwrap_err();

        assert!(matches!(err, ProviderError::DeadDestination { .. }), "{error}: {err:?}");
        assert!(err.to_string().ends_with(&format!(": {error}")), "{err}");
        assert_eq!(err.raw(), Some(error));
    }
}

#[tokio::test]
async fn the_integrations_own_gone_webhook_misconfigures_it() {
    let fake = slack::start().await;
    let gone = format!("{}/services/T0001/B0999/Xq7HOOKSECRETxxxxxxxxxxx", fake.base_url());

    let err = send(&chat("slack", json!({"webhookUrl": gone}), None)).await.unwrap_err();

    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(err.is_integration_fault() && err.to_string().ends_with(": no_service"), "{err}");
}

#[tokio::test]
async fn rejected_or_prohibited_webhook_posts_are_permanent() {
    let fake = slack::start().await;
    let mut empty = to_webhook(&webhook_url(&fake));
    empty.content = String::new();
    let wrong_secret = to_webhook(&format!("{}/services/T0001/B0001/wrong", fake.base_url()));

    let no_text = send(&empty).await.unwrap_err();
    let invalid_token = send(&wrong_secret).await.unwrap_err();
    fake.then(webhook_answer(403, "action_prohibited"));
    let prohibited = send(&to_webhook(&webhook_url(&fake))).await.unwrap_err();

    for (err, error) in [(no_text, "no_text"), (invalid_token, "invalid_token"), (prohibited, "action_prohibited")] {
        // A subscriber's webhook refusing us says nothing about the integration.
        assert!(matches!(err, ProviderError::Permanent { .. }), "{error}: {err:?}");
        assert!(err.to_string().ends_with(&format!(": {error}")), "{err}");
    }
}

#[tokio::test]
async fn a_2xx_that_is_not_slacks_ok_is_permanent() {
    let fake = slack::start().await;
    fake.then(webhook_answer(200, "<html>Sign in</html>"));

    let err = send(&to_webhook(&webhook_url(&fake))).await.unwrap_err();

    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with("<html>Sign in</html> (not Slack's `ok`)"), "{err}");
}

#[tokio::test]
async fn with_a_bot_token_and_the_subscribers_channel_it_calls_chat_post_message() {
    let fake = slack::start().await;
    let mut message = bot(&fake, Some(CHANNEL));
    message.to.webhook_url = Some(webhook_url(&fake));
    message.overrides = json!({"slack": {"thread_ts": "1764000000.000001", "unfurl_links": false}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/api/chat.postMessage"));
    assert_eq!(request.header("authorization"), Some(format!("Bearer {BOT_TOKEN}").as_str()));
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"channel": CHANNEL, "text": "Order A-1 shipped", "thread_ts": "1764000000.000001",
               "unfurl_links": false})
    );
    let answer: Value = serde_json::from_str(accepted.raw.as_deref().unwrap()).unwrap();
    let ts = answer["ts"].as_str().expect("the message's ts");
    assert_eq!(accepted.provider_message_id, Some(format!("{CHANNEL}:{ts}")));
}

#[tokio::test]
async fn a_bot_token_without_a_channel_posts_to_the_webhook() {
    let fake = slack::start().await;
    let mut message = bot(&fake, None);
    message.to.webhook_url = Some(webhook_url(&fake));

    send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(request.path, WEBHOOK_PATH);
    assert_eq!(request.json(), json!({"text": "Order A-1 shipped"}));
}

#[tokio::test]
async fn api_rate_limits_and_internal_errors_are_transient() {
    let fake = slack::start().await;
    fake.then(api_rate_limited("3")).then(api_error("ratelimited")).then(api_error("internal_error"));
    let message = bot(&fake, Some(CHANNEL));

    let limited = send(&message).await.unwrap_err();
    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(3)));
    assert!(limited.to_string().ends_with("HTTP 429 Too Many Requests from 127.0.0.1: ratelimited"), "{limited}");
    for error in ["ratelimited", "internal_error"] {
        let err = send(&message).await.unwrap_err();
        assert!(err.is_transient(), "{error}: {err:?}");
        assert!(err.to_string().ends_with(&format!("HTTP 200 OK from 127.0.0.1: {error}")), "{err}");
    }
}

#[tokio::test]
async fn the_subscribers_missing_or_archived_channel_is_a_dead_destination() {
    let fake = slack::start().await;
    for (channel, error) in [("C0DELETED00", "channel_not_found"), (ARCHIVED_CHANNEL, "is_archived")] {
        let err = send(&bot(&fake, Some(channel))).await.unwrap_err();

        assert!(matches!(err, ProviderError::DeadDestination { .. }), "{channel}: {err:?}");
        assert!(err.to_string().ends_with(&format!(": {error}")), "{err}");
    }
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_channel_the_trigger_names_is_not_the_subscribers_to_lose() {
    let fake = slack::start().await;
    let mut message = bot(&fake, Some(CHANNEL));
    message.overrides = json!({"chat": {"channel": "C0DELETED00"}});

    let err = send(&message).await.unwrap_err();

    assert_eq!(fake.only_request().json()["channel"], "C0DELETED00");
    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().ends_with(": channel_not_found"), "{err}");

    // The trigger's channel is enough for the bot when the subscriber has none.
    let mut named = bot(&fake, None);
    named.overrides = json!({"slack": {"channel": CHANNEL}});
    send(&named).await.expect("accepted");
    assert_eq!(fake.requests()[1].path, "/api/chat.postMessage");
}

#[tokio::test]
async fn a_refused_token_misconfigures_the_integration() {
    let fake = slack::start().await;
    let mut wrong_token = bot(&fake, Some(CHANNEL));
    wrong_token.credentials["apiKey"] = json!("xoxb-wrong-token");
    let invalid = send(&wrong_token).await.unwrap_err();
    assert!(matches!(invalid, ProviderError::Misconfigured { .. }), "{invalid:?}");
    assert!(invalid.to_string().ends_with(": invalid_auth"), "{invalid}");
    assert!(!invalid.to_string().contains("xoxb-wrong-token"), "the token is never shown");

    for error in ["token_revoked", "missing_scope", "account_inactive"] {
        fake.then(api_error(error));
        let err = send(&bot(&fake, Some(CHANNEL))).await.unwrap_err();
        assert!(err.is_integration_fault(), "{error}: {err:?}");
    }
}

#[tokio::test]
async fn other_api_errors_are_permanent() {
    let fake = slack::start().await;
    let mut empty = bot(&fake, Some(CHANNEL));
    empty.content = String::new();
    let no_text = send(&empty).await.unwrap_err();
    assert!(matches!(no_text, ProviderError::Permanent { .. }) && no_text.to_string().ends_with(": no_text"));

    // `fatal_error` may have posted already: not retried.
    for error in ["not_in_channel", "msg_too_long", "fatal_error"] {
        fake.then(api_error(error));
        let err = send(&bot(&fake, Some(CHANNEL))).await.unwrap_err();
        assert!(matches!(err, ProviderError::Permanent { .. }), "{error}: {err:?}");
        let raw: Value = serde_json::from_str(err.raw().expect("Slack's answer")).unwrap();
        assert_eq!(raw, json!({"ok": false, "error": error}));
    }
}
