//! `email-webhook`: the rendered email as JSON to the integration's `webhookUrl`, for a receiver that sends
//! it on (or records it).
//!
//! Body: `{to, from, senderName, subject, html, messageId, transactionId, payload, overrides}`; `from` and
//! `senderName` are the integration's (null when unset). Provider message id: `id` of a JSON answer.

use serde_json::json;

use super::credentials::{credential, required_url};
use super::registry::Http;
use super::signed_post::SignedPost;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "email-webhook";

pub(crate) struct EmailWebhook {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for EmailWebhook {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let url = required_url(ID, credentials, "webhookUrl")?;
        let to = delivery
            .to
            .email
            .as_deref()
            .ok_or_else(|| ProviderError::permanent(format!("{ID}: the subscriber has no email address")))?;
        let body = json!({
            "to": to,
            "from": credential(credentials, "from"),
            "senderName": credential(credentials, "senderName"),
            "subject": delivery.subject,
            "html": delivery.content,
            "messageId": delivery.message_id,
            "transactionId": delivery.transaction_id,
            "payload": delivery.payload,
            "overrides": delivery.overrides,
        });
        let answer = SignedPost::new(ID, delivery, url, &body).send(&self.http).await?;
        Ok(answer.accepted("id"))
    }
}
