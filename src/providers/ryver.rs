//! `ryver`: `POST <webhookUrl>` (the subscriber's `https://<org>.ryver.com/application/webhook/<token>`,
//! else the integration's; the token in the URL is the only authentication) with JSON
//! `{content, body, ...customData}`. The reference service sends `content`; Ryver documents `body` (with
//! an optional `createSource` from the trigger's `overrides.chat` / `overrides.ryver`), so both carry the
//! text. Success is `200`, naming no message: no id is recorded.
//!
//! Ryver documents no errors. As for other webhooks: `404` or `410` (no such webhook: deleted) is a dead
//! destination; `408`, `429` (after `Retry-After`) and 5xx are transient; anything else is permanent.

use reqwest::StatusCode;
use serde_json::json;

use super::chat::{with_custom_data, Webhook};
use super::http::ErrorKind;
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "ryver";

pub(crate) struct Ryver {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Ryver {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(ID, delivery)?;
        let body = with_custom_data(json!({"content": delivery.content, "body": delivery.content}), delivery);
        let answer = self.http.fetch(ID, self.http.client.post(webhook.url).json(&body)).await?;
        if answer.status.is_success() {
            return Ok(answer.body.accepted_as(None));
        }
        let kind = match answer.status {
            StatusCode::NOT_FOUND | StatusCode::GONE => ErrorKind::DeadDestination,
            status => ErrorKind::of_status(status),
        };
        let text = answer.error_text(&["message", "error.message", "error"]);
        Err(answer.error_saying(ID, webhook.owner.kind(kind), text))
    }
}
