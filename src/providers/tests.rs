//! The adapters against a real HTTP receiver on 127.0.0.1: what they post, how they sign it, and how they
//! sort the answers; plus the retry schedule.

mod adapters;
mod failures;
mod receiver;
mod retry;

use serde_json::{json, Value};
use uuid::Uuid;

use std::sync::Arc;

use super::{Accepted, Channel, Delivery, Destination, OutboundPolicy, ProviderError, ProviderSettings, Providers};

/// A delivery through `provider_id` to a subscriber with every kind of address but a chat webhook.
pub(super) fn delivery(provider_id: &str, credentials: Value) -> Delivery {
    let channel = match provider_id {
        "email-webhook" => Channel::Email,
        "generic-sms" => Channel::Sms,
        "push-webhook" => Channel::Push,
        _ => Channel::Chat,
    };
    Delivery {
        channel,
        provider_id: provider_id.to_owned(),
        credentials,
        message_id: Uuid::now_v7(),
        transaction_id: "txn-42".to_owned(),
        to: Destination {
            email: Some("ada@example.com".to_owned()),
            phone: Some("+15550100".to_owned()),
            webhook_url: None,
            chat_channel: None,
            device_tokens: vec!["token-a".to_owned(), "token-b".to_owned()],
            ..Default::default()
        },
        subject: Some("Welcome".to_owned()),
        title: Some("Hello".to_owned()),
        content: "<p>Hi Ada</p>".to_owned(),
        text: None,
        sender_name: None,
        workflow_identifier: Some("welcome".to_owned()),
        subscriber_id: "ada".to_owned(),
        payload: json!({"plan": "pro"}),
        overrides: json!({}),
        status_callback_url: None,
    }
}

/// The adapters, allowed to reach the local receivers these tests post to.
fn local_providers() -> Providers {
    let outbound = Arc::new(OutboundPolicy::default().allowing_loopback());
    Providers::new(ProviderSettings { outbound, ..ProviderSettings::default() })
}

async fn send(delivery: &Delivery) -> Result<Accepted, ProviderError> {
    let providers = local_providers();
    let provider = providers.get(&delivery.provider_id).expect("an adapter for the provider");
    provider.send(delivery).await
}
