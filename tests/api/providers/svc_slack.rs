//! `svc-slack` is Slack's adapter under its own id: the subscriber's incoming webhook, or a bot token.

use herald::providers::ProviderError;
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::slack::{self, webhook_answer, webhook_url, ARCHIVED_CHANNEL, BOT_TOKEN, CHANNEL, WEBHOOK_PATH};

#[tokio::test]
async fn a_subscribers_webhook_is_posted_to_and_a_gone_one_is_dead() {
    let fake = slack::start().await;
    let message = chat("svc-slack", json!({}), Some(&webhook_url(&fake)));

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(request.path, WEBHOOK_PATH);
    assert_eq!(request.json(), json!({"text": "Order A-1 shipped"}));
    assert!(accepted.provider_message_id.is_some(), "the x-slack-req-id");

    fake.then(webhook_answer(404, "no_service"));
    let gone = send(&message).await.unwrap_err();
    assert!(matches!(gone, ProviderError::DeadDestination { .. }), "{gone:?}");
    assert!(gone.to_string().starts_with("svc-slack: HTTP 404"), "{gone}");
}

#[tokio::test]
async fn a_bot_token_posts_to_the_subscribers_channel() {
    let fake = slack::start().await;
    let mut message = chat("svc-slack", json!({"apiKey": BOT_TOKEN, "baseUrl": fake.base_url()}), None);
    message.to.chat_channel = Some(CHANNEL.to_owned());

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(request.path, "/api/chat.postMessage");
    assert_eq!(request.header("authorization"), Some(format!("Bearer {BOT_TOKEN}").as_str()));
    assert_eq!(request.json(), json!({"channel": CHANNEL, "text": "Order A-1 shipped"}));
    assert!(accepted.provider_message_id.is_some_and(|id| id.starts_with(&format!("{CHANNEL}:"))));

    message.to.chat_channel = Some(ARCHIVED_CHANNEL.to_owned());
    let archived = send(&message).await.unwrap_err();
    assert!(matches!(archived, ProviderError::DeadDestination { .. }), "{archived:?}");

    let mut without = chat("svc-slack", json!({}), None);
    without.to.chat_channel = Some(CHANNEL.to_owned());
    assert!(send(&without).await.is_err(), "no webhook and no bot token: nothing to send with");
    assert!(herald::providers::posts_to_chat_channel("svc-slack", &json!({"apiKey": BOT_TOKEN})));
}
