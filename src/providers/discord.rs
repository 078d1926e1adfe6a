//! `discord`: `POST <webhookUrl>?wait=true` (the subscriber's webhook, else the integration's; the URL's
//! own query, such as `thread_id`, is kept) with JSON `{content, ...customData}` (`embeds`, `username`,
//! `avatar_url`… from the trigger's `overrides.chat` and `overrides.discord`). `wait=true` makes Discord
//! answer `200` with the message object, whose `id` is recorded (without it: `204`, no id).
//!
//! Errors are JSON `{"message", "code"}`: `404` with code `10015` (Unknown Webhook) is a dead destination;
//! `429` (`{"message", "retry_after": <seconds, fractional>, "global"}` and a `Retry-After` header) and
//! 5xx are transient; everything else (`400` `50006` empty message, `50035` invalid form body, `401`
//! `50027` invalid webhook token…) is permanent.

use std::time::Duration;

use reqwest::{StatusCode, Url};
use serde_json::{json, Value};

use super::chat::{with_custom_data, Webhook};
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "discord";
/// Discord's JSON error code for a deleted (or never existing) webhook.
const UNKNOWN_WEBHOOK: u64 = 10015;

pub(crate) struct Discord {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Discord {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(ID, delivery)?;
        let body = with_custom_data(json!({"content": delivery.content}), delivery);
        let answer = self.http.fetch(ID, self.http.client.post(waiting(webhook.url)).json(&body)).await?;
        if answer.status.is_success() {
            return Ok(answer.body.accepted("id"));
        }
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let code = json["code"].as_u64();
        let kind = match (answer.status, code) {
            (StatusCode::NOT_FOUND, Some(UNKNOWN_WEBHOOK)) => ErrorKind::DeadDestination,
            (status, _) => ErrorKind::of_status(status),
        };
        let text = coded(code.map(|code| code.to_string()).as_deref(), json["message"].as_str())
            .or_else(|| answer.error_text(&[]));
        let mut err = answer.error_saying(ID, webhook.owner.kind(kind), text);
        // The body's `retry_after` is exact to the millisecond; the header is rounded to whole seconds.
        if let (ProviderError::Transient { retry_after, .. }, Some(seconds)) = (&mut err, json["retry_after"].as_f64())
        {
            *retry_after = Duration::try_from_secs_f64(seconds).ok().or(*retry_after);
        }
        Err(err)
    }
}

/// `url` with `wait=true`, and whatever else its query says.
fn waiting(mut url: Url) -> Url {
    let kept: Vec<(String, String)> = url.query_pairs().into_owned().filter(|(name, _)| name != "wait").collect();
    url.query_pairs_mut().clear().extend_pairs(kept).append_pair("wait", "true");
    url
}
