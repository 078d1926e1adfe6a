//! `zulip`: `POST <webhookUrl>` (the subscriber's, else the integration's) with JSON
//! `{text, ...customData}`, to Zulip's Slack-compatible incoming webhook,
//! `https://<realm>/api/v1/external/slack_incoming?api_key=<bot key>&stream=<s>&topic=<t>` (the bot's key
//! is in the URL; no header). Zulip renders `blocks`, then `attachments`, then `text`, all of which may
//! come from the trigger's `overrides.chat` and `overrides.zulip`.
//!
//! Success: `200 {"result":"success","msg":"","ok":true}`; it names no message, so no id is recorded. A
//! missing stream is not an error (Zulip tells the bot's owner and answers success). A `200` that says
//! `"ok": false` or `"result": "error"` (a view error) is permanent.
//!
//! Errors are `{"result":"error","code","msg"}`: `401 INVALID_API_KEY` (a bad key) and `401
//! USER_DEACTIVATED` (the bot was deactivated) are a dead destination; `429 RATE_LIMIT_HIT` (with
//! `Retry-After` and a `retry-after` in the body, in seconds) and 5xx are transient; anything else is
//! permanent.

use std::time::Duration;

use serde_json::{json, Value};

use super::chat::{with_custom_data, Webhook};
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "zulip";

pub(crate) struct Zulip {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Zulip {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(ID, delivery)?;
        let body = with_custom_data(json!({"text": delivery.content}), delivery);
        let answer = self.http.fetch(ID, self.http.client.post(webhook.url).json(&body)).await?;
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let code = json["code"].as_str();
        let message = json["msg"].as_str().filter(|msg| !msg.is_empty()).or(json["error"].as_str());
        let refused = json["ok"] == json!(false) || json["result"] == "error";
        if answer.status.is_success() && !refused {
            return Ok(answer.body.accepted_as(None));
        }
        let kind = match (answer.status.as_u16(), code) {
            (401, Some("INVALID_API_KEY" | "USER_DEACTIVATED")) => ErrorKind::DeadDestination,
            _ if answer.status.is_success() => ErrorKind::Permanent,
            _ => ErrorKind::of_status(answer.status),
        };
        let text = coded(code, message).or_else(|| answer.error_text(&[]));
        let mut err = answer.error_saying(ID, webhook.owner.kind(kind), text);
        if let (ProviderError::Transient { retry_after, .. }, Some(seconds)) = (&mut err, json["retry-after"].as_f64())
        {
            *retry_after = Duration::try_from_secs_f64(seconds).ok().or(*retry_after);
        }
        Err(err)
    }
}
