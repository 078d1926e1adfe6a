//! `slack`, in one of two ways.
//!
//! **Incoming webhook** (the subscriber's `webhookUrl`, else the integration's): `POST <webhookUrl>` with
//! JSON `{text, ...customData}` (`blocks`, `attachments`, `username`… from the trigger's `overrides.chat`
//! and `overrides.slack`, see `chat::custom_data`). Success: `200` with the text `ok`; the provider
//! message id is the `x-slack-req-id` header (a webhook answer names no message). Errors are text bodies:
//! `400 invalid_payload | user_not_found | no_text`, `403 action_prohibited` (permanent); `404
//! channel_not_found | no_service` and `410 channel_is_archived` (the webhook or its channel is gone: a
//! dead destination); `500 rollup_error` and `429` with `Retry-After` (transient).
//!
//! **Bot token** (`chat.postMessage`): when the integration's `apiKey` holds a bot token (`xoxb-…`) and
//! there is a channel id to post to, the subscriber's `channel` credential or the trigger's
//! `overrides.{chat,slack}.channel`. `POST {baseUrl | https://slack.com}/api/chat.postMessage` with
//! `Authorization: Bearer <apiKey>` and JSON `{channel, text, ...customData}`. Success: `200 {"ok": true,
//! "channel", "ts"}`, recorded as `channel:ts` (the pair that names a Slack message). Slack fails with
//! `200 {"ok": false, "error"}` too:
//! - `ratelimited`/`rate_limited`, `internal_error`, `service_unavailable` and HTTP 429 (`Retry-After`)
//!   or 5xx are transient;
//! - `channel_not_found` and `is_archived` are a dead destination when the channel is the subscriber's (a
//!   channel from the trigger's overrides is only this message's mistake: permanent);
//! - `invalid_auth`, `not_authed`, `account_inactive`, `token_revoked`, `token_expired`, `missing_scope`
//!   and `not_allowed_token_type` are the integration's token: misconfigured;
//! - every other error (`not_in_channel`, `msg_too_long`, `no_text`, `fatal_error`…) is permanent.
//!   `fatal_error` may have posted the message already, so it is not retried.
//!
//! `svc-slack` (the reference service's own Slack app, "Novu's Slack") is this same adapter under its own
//! id: delivery needs only a webhook URL or a bot token, never the reference service's cloud. What Herald
//! does not do is the hosted OAuth flow (installing the service's Slack app for the subscriber and storing
//! the token as a per-subscriber connection): Herald has no OAuth callback nor per-subscriber connections.
//! An `svc-slack` integration therefore works with the subscriber's `webhookUrl`, or with the operator's
//! own Slack app's bot token in the integration's `apiKey` and the subscriber's `channel`.
//!
//! The bot token sits in `apiKey`: the reference service keeps it in a per-subscriber OAuth connection,
//! which Herald does not have, and `apiKey` is the credential its integrations use for a provider's API
//! key. Without a channel, an integration with a bot token still posts to the webhook.

use serde_json::{json, Value};

use super::chat::{custom_data, with_custom_data, Owner, Webhook};
use super::credentials::credential;
use super::endpoint::endpoint;
use super::http::{noted, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const API: &str = "https://slack.com";

pub(crate) struct Slack {
    pub(crate) http: Http,
    /// `slack`, or `svc-slack`: the id its errors name.
    pub(crate) id: &'static str,
}

#[tonic::async_trait]
impl Provider for Slack {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        match (bot_token(&delivery.credentials), channel(delivery)) {
            (Some(token), Some((channel, owner))) => self.post_message(delivery, token, &channel, owner).await,
            _ => self.post_to_webhook(delivery).await,
        }
    }
}

impl Slack {
    async fn post_to_webhook(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(self.id, delivery)?;
        let body = with_custom_data(json!({"text": delivery.content}), delivery);
        let answer = self.http.fetch(self.id, self.http.client.post(webhook.url).json(&body)).await?;
        let kind = match answer.status.as_u16() {
            200..=299 if answer.body.text().trim() == "ok" => {
                let request_id = answer.header("x-slack-req-id");
                return Ok(answer.body.accepted_as(request_id));
            }
            // A 2xx that is not Slack's `ok` comes from something else at that URL; whether it posted
            // anything is unknown, so it is not retried.
            200..=299 => {
                let err = answer.error_saying(self.id, ErrorKind::Permanent, answer.error_text(&[]));
                return Err(noted(err, "not Slack's `ok`"));
            }
            404 | 410 => ErrorKind::DeadDestination,
            _ => ErrorKind::of_status(answer.status),
        };
        Err(answer.error_saying(self.id, webhook.owner.kind(kind), answer.error_text(&[])))
    }

    async fn post_message(
        &self,
        delivery: &Delivery,
        token: &str,
        channel: &str,
        owner: Owner,
    ) -> Result<Accepted, ProviderError> {
        let url = endpoint(self.id, &delivery.credentials, API, "/api/chat.postMessage", &self.http.settings)?;
        let body = with_custom_data(json!({"channel": channel, "text": delivery.content}), delivery);
        let answer = self.http.fetch(self.id, self.http.client.post(url).bearer_auth(token).json(&body)).await?;
        if !answer.status.is_success() {
            return Err(answer.error(self.id, ErrorKind::of_status(answer.status), &["error"]));
        }
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        if json["ok"] == json!(true) {
            let id = match (json["channel"].as_str(), json["ts"].as_str()) {
                (Some(channel), Some(ts)) => Some(format!("{channel}:{ts}")),
                _ => None,
            };
            return Ok(answer.body.accepted_as(id));
        }
        let error = json["error"].as_str();
        let kind = match error {
            Some("ratelimited" | "rate_limited" | "internal_error" | "service_unavailable") => ErrorKind::Transient,
            Some("channel_not_found" | "is_archived") => owner.kind(ErrorKind::DeadDestination),
            Some(
                "invalid_auth"
                | "not_authed"
                | "account_inactive"
                | "token_revoked"
                | "token_expired"
                | "missing_scope"
                | "not_allowed_token_type",
            ) => ErrorKind::Misconfigured,
            _ => ErrorKind::Permanent,
        };
        let text = error.map(str::to_owned).or_else(|| answer.error_text(&[]));
        Err(answer.error_saying(self.id, kind, text))
    }
}

/// The integration's bot token, when it posts with one (to a channel) rather than to webhooks.
pub(crate) fn bot_token(credentials: &Value) -> Option<&str> {
    credential(credentials, "apiKey")
}

/// Where the bot posts: the trigger's `channel` override, else the subscriber's `channel` credential.
fn channel(delivery: &Delivery) -> Option<(String, Owner)> {
    let overridden = custom_data(delivery).get("channel").and_then(Value::as_str).map(str::to_owned);
    match overridden.filter(|channel| !channel.is_empty()) {
        Some(channel) => Some((channel, Owner::Trigger)),
        None => delivery.to.chat_channel.clone().filter(|channel| !channel.is_empty()).map(|c| (c, Owner::Subscriber)),
    }
}
