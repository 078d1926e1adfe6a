//! `push-webhook`: the rendered push notification and the subscriber's device tokens as JSON to the
//! integration's `webhookUrl`, for a receiver that fans it out to the devices.
//!
//! Body: `{deviceTokens, title, content, messageId, transactionId, payload, overrides}`. Provider message
//! id: `id` of a JSON answer.

use reqwest::Client;
use serde_json::json;

use super::credentials::required_url;
use super::signed_post::SignedPost;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "push-webhook";

pub(crate) struct PushWebhook {
    pub(crate) client: Client,
}

#[tonic::async_trait]
impl Provider for PushWebhook {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let url = required_url(ID, &delivery.credentials, "webhookUrl")?;
        // A push without a device reaches no one; the receiver could only drop it.
        if delivery.to.device_tokens.is_empty() {
            return Err(ProviderError::permanent(format!("{ID}: the subscriber has no device tokens")));
        }
        let body = json!({
            "deviceTokens": delivery.to.device_tokens,
            "title": delivery.title,
            "content": delivery.content,
            "messageId": delivery.message_id,
            "transactionId": delivery.transaction_id,
            "payload": delivery.payload,
            "overrides": delivery.overrides,
        });
        let answer = SignedPost::new(ID, delivery, url, &body).send(&self.client).await?;
        Ok(answer.accepted("id"))
    }
}
