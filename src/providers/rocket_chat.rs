//! `rocket-chat`: `POST <webhookUrl>/api/v1/chat.sendMessage`, where `webhookUrl` (the subscriber's,
//! else the integration's) is the Rocket.Chat server's base URL and the subscriber's `channel` is the
//! room id. Headers `x-auth-token: <token>` and `x-user-id: <user>` (the integration's personal access
//! token and its user, who sends for every subscriber); JSON
//! `{"message": {rid, msg, ...customData}}` (`alias`, `emoji`, `attachments`… from the trigger's
//! `overrides.chat` and `overrides.rocket-chat`, spread into the message).
//!
//! Success: `200 {"message": {"_id", "rid", "msg", "ts", …}, "success": true}`; `message._id` is
//! recorded. Errors:
//! - `400 {"success": false, "error", "errorType": "error-invalid-room"}`: the room is gone, a dead
//!   destination (the subscriber's `channel`); other `400`s (`error-not-allowed`, not a member…) are
//!   permanent;
//! - `401 {"status": "error", "message": "You must be logged in to do this."}`: the integration's token or
//!   user is wrong, misconfigured;
//! - `429` "… You must wait N seconds before trying this endpoint again. [error-too-many-requests]":
//!   transient after N seconds (or `Retry-After`), as Rocket.Chat's own clients read it; 5xx transient.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use super::account::required;
use super::chat::{custom_data, Webhook};
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "rocket-chat";

pub(crate) struct RocketChat {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for RocketChat {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let token = required(ID, &delivery.credentials, "token")?;
        let user = required(ID, &delivery.credentials, "user")?;
        let Some(room) = delivery.to.chat_channel.as_deref().filter(|room| !room.is_empty()) else {
            return Err(ProviderError::permanent(format!("{ID}: the subscriber has no channel (a room id)")));
        };
        let webhook = Webhook::of(ID, delivery)?;
        let mut url = webhook.url;
        let path = format!("{}/api/v1/chat.sendMessage", url.path().trim_end_matches('/'));
        url.set_path(&path);
        let mut message = json!({"rid": room, "msg": delivery.content});
        if let Some(fields) = message.as_object_mut() {
            fields.extend(custom_data(delivery));
        }
        let request = self
            .http
            .client
            .post(url)
            .header("x-auth-token", token)
            .header("x-user-id", user)
            .json(&json!({"message": message}));
        let answer = self.http.fetch(ID, request).await?;
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        if answer.status.is_success() && json["success"] != json!(false) {
            return Ok(answer.body.accepted("message._id"));
        }
        let error_type = json["errorType"].as_str();
        let kind = match (answer.status, error_type) {
            (StatusCode::BAD_REQUEST, Some("error-invalid-room")) => ErrorKind::DeadDestination,
            (StatusCode::UNAUTHORIZED, _) => ErrorKind::Misconfigured,
            (status, _) if status.is_success() => ErrorKind::Permanent,
            (status, _) => ErrorKind::of_status(status),
        };
        let message = json["error"].as_str().or(json["message"].as_str());
        let text = coded(error_type, message).or_else(|| answer.error_text(&[]));
        let mut err = answer.error_saying(ID, kind, text);
        if let (ProviderError::Transient { retry_after, .. }, Some(seconds)) =
            (&mut err, message.and_then(wait_seconds))
        {
            *retry_after = Some(Duration::from_secs(seconds));
        }
        Err(err)
    }
}

/// N in Rocket.Chat's "You must wait N seconds before trying this endpoint again."
fn wait_seconds(text: &str) -> Option<u64> {
    let (_, rest) = text.split_once("must wait ")?;
    rest.split_whitespace().next()?.parse().ok()
}
