//! Each provider adapter against its faithful local fake (`crate::fakes`): the exact request it makes,
//! and how it sorts the provider's answers (accepted, transient with `Retry-After`, permanent, a
//! misconfigured integration, or a dead destination).

mod apns;
mod appio;
mod common;
mod discord;
mod expo;
mod fcm;
mod getstream;
mod grafana_on_call;
mod mailgun;
mod mattermost;
mod msteams;
mod nexmo;
mod one_signal;
mod plivo;
mod postmark;
mod pusher_beams;
mod pushpad;
mod resend;
mod rocket_chat;
mod ryver;
mod sendgrid;
mod ses;
mod slack;
mod smtp;
mod sns;
mod svc_slack;
mod twilio;
mod whatsapp_business;
mod zulip;

use herald::providers::{Accepted, Channel, Delivery, Destination, ProviderError};
use serde_json::{json, Value};
use uuid::Uuid;

/// An email, SMS or chat message to Ada through `provider_id` with `credentials`.
pub fn delivery(provider_id: &str, channel: Channel, credentials: Value) -> Delivery {
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
            device_tokens: Vec::new(),
            ..Default::default()
        },
        subject: Some("Your order shipped".to_owned()),
        title: None,
        content: "<p>Order A-1 shipped</p>".to_owned(),
        text: Some("Order A-1 shipped".to_owned()),
        sender_name: None,
        workflow_identifier: Some("order-shipped".to_owned()),
        subscriber_id: "ada".to_owned(),
        payload: json!({"orderId": "A-1"}),
        overrides: json!({}),
        status_callback_url: None,
    }
}

/// A push "Order A-1 shipped" to Ada's `device_tokens` through `provider_id`.
pub fn push(provider_id: &str, credentials: Value, device_tokens: &[&str]) -> Delivery {
    let mut push = delivery(provider_id, Channel::Push, credentials);
    push.to.device_tokens = device_tokens.iter().map(|token| token.to_string()).collect();
    push.subject = None;
    push.title = Some("Order A-1 shipped".to_owned());
    push.content = "Your order is on its way".to_owned();
    push.text = None;
    push
}

pub async fn send(delivery: &Delivery) -> Result<Accepted, ProviderError> {
    crate::support::local_providers()
        .get(&delivery.provider_id)
        .expect("an adapter for the provider")
        .send(delivery)
        .await
}
