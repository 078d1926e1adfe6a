//! `push-webhook`: the rendered push notification and the subscriber's device tokens as JSON to the
//! integration's `webhookUrl`, for a receiver that fans it out to the devices.
//!
//! Body: `{deviceTokens, title, content, messageId, transactionId, payload, overrides}`: one post for all the
//! subscriber's tokens, whose answer counts for each of them. Provider message id: `id` of a JSON answer.

use serde_json::json;

use super::credentials::required_url;
use super::registry::Http;
use super::signed_post::SignedPost;
use super::{Accepted, Delivery, DeviceAnswer, Provider, ProviderError};

const ID: &str = "push-webhook";

pub(crate) struct PushWebhook {
    pub(crate) http: Http,
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
        let answer = SignedPost::new(ID, delivery, url, &body).send(&self.http).await?;
        Ok(answer.accepted("id"))
    }

    /// One post carries every token (the receiver fans out), so its one answer is each token's.
    async fn send_each(&self, delivery: &Delivery) -> Vec<DeviceAnswer> {
        let answer = self.send(delivery).await;
        let tokens = delivery.to.device_tokens.iter();
        tokens.map(|token| DeviceAnswer { token: token.clone(), answer: answer.clone() }).collect()
    }
}
