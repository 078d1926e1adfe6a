//! `mattermost`: `POST <webhookUrl>` (the subscriber's `https://<host>/hooks/<id>`, else the
//! integration's) with JSON `{text, channel?, ...customData}`: `channel` is the subscriber's `channel`
//! credential (a channel name, or `@user`), which overrides the hook's own channel; `username`,
//! `icon_url`, `props`, `attachments`… come from the trigger's `overrides.chat` and `overrides.mattermost`.
//! Success: `200` with the text `ok`; the id recorded is the `X-Request-Id` header (a hook answer names no
//! post).
//!
//! Errors are Mattermost's JSON `{"id", "message", "detailed_error", "request_id", "status_code"}`. As
//! Mattermost's server code has them (`App::HandleIncomingWebhook`):
//! - a deleted (or never existing) hook is `400 web.incoming_webhook.invalid.app_error`, and a hook whose
//!   own channel was deleted for good `404 app.channel.get.existing.app_error`: a dead destination. Not a
//!   bare 404: Mattermost answers one for an unknown `channel` override (`web.incoming_webhook.channel.app_error`),
//!   and a 404 from something else at that URL says nothing about the hook;
//! - `501 web.incoming_webhook.disabled.app_error` (an admin turned incoming webhooks off) is permanent,
//!   not the transient a 5xx usually is: retrying within minutes cannot help;
//! - `429` and other 5xx are transient; every other status (`400` no text, `403` locked channel…) is
//!   permanent.

use serde_json::{json, Value};

use super::chat::{with_custom_data, Webhook};
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "mattermost";

pub(crate) struct Mattermost {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Mattermost {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(ID, delivery)?;
        let mut body = json!({"text": delivery.content});
        if let Some(channel) = delivery.to.chat_channel.as_deref().filter(|channel| !channel.is_empty()) {
            body["channel"] = json!(channel);
        }
        let body = with_custom_data(body, delivery);
        let answer = self.http.fetch(ID, self.http.client.post(webhook.url).json(&body)).await?;
        if answer.status.is_success() {
            let request_id = answer.header("x-request-id");
            return Ok(answer.body.accepted_as(request_id));
        }
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let error_id = json["id"].as_str();
        let kind = match (answer.status.as_u16(), error_id) {
            (400, Some("web.incoming_webhook.invalid.app_error"))
            | (404, Some("app.channel.get.existing.app_error")) => ErrorKind::DeadDestination,
            (501, _) => ErrorKind::Permanent,
            _ => ErrorKind::of_status(answer.status),
        };
        let text = coded(error_id, json["message"].as_str()).or_else(|| answer.error_text(&[]));
        Err(answer.error_saying(ID, webhook.owner.kind(kind), text))
    }
}
