//! `chat-webhook`: the rendered chat message as JSON to the subscriber's own webhook (from its channel
//! credentials) or, when it has none, the integration's `webhookUrl`.
//!
//! Body: `{content, messageId, transactionId, payload}`. Provider message id: `id` of a JSON answer.

use serde_json::json;

use super::chat::Webhook;
use super::registry::Http;
use super::signed_post::SignedPost;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "chat-webhook";

pub(crate) struct ChatWebhook {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for ChatWebhook {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let url = Webhook::of(ID, delivery)?.url;
        let body = json!({
            "content": delivery.content,
            "messageId": delivery.message_id,
            "transactionId": delivery.transaction_id,
            "payload": delivery.payload,
        });
        let answer = SignedPost::new(ID, delivery, url, &body).send(&self.http).await?;
        Ok(answer.accepted("id"))
    }
}
