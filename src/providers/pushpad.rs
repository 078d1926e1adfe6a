//! `pushpad`: `POST {baseUrl | https://pushpad.xyz}/api/v1/projects/<applicationId>/notifications` with
//! `Authorization: Token token="<apiKey>"` (what the reference service's `pushpad` library 1.x sends),
//! `Accept: application/json` and a JSON body `{"notification": {"body", "title"?, …}, "uids": [...]}`.
//! Credentials: `apiKey` (Pushpad's "Auth Token") and `applicationId` (the project id).
//!
//! The device tokens are Pushpad **uids** (the ids the app gave its users). A message goes to all of
//! them in one request (at most 1,000 uids a request here; Pushpad documents no limit).
//!
//! Overrides (`overrides.push`, then `overrides.pushpad`): `title`, `body`, `targetUrl` (`target_url`),
//! `iconUrl` (`icon_url`), `imageUrl` (`image_url`), `badgeUrl` (`badge_url`), `ttl`,
//! `requireInteraction` (`require_interaction`), `silent` and `urgent`; the custom data is not sent
//! (Pushpad notifications carry none).
//!
//! Answers, per uid:
//! - `201 {"id", "scheduled", "uids": [...]}`: accepted, the notification id recorded; a uid the answer's
//!   `uids` leaves out has no subscription (Pushpad ignores it silently), a dead destination;
//! - 401/403 a misconfigured integration; 404 (no such project) misconfigured too; 429 and 5xx
//!   transient after `Retry-After`; any other status (422…) permanent, for every uid of the request.

use std::collections::HashSet;

use reqwest::Url;
use serde_json::{json, Value};

use super::account::required;
use super::endpoint::endpoint;
use super::http::{ErrorKind, HttpAnswer};
use super::push::{device_tokens, one_answer, PushMessage};
use super::registry::Http;
use super::{Accepted, Delivery, DeviceAnswer, Provider, ProviderError};

const ID: &str = "pushpad";
const API: &str = "https://pushpad.xyz";
/// The most uids one request names.
const MAX_TOKENS: usize = 1_000;
const ERROR_PATHS: &[&str] = &["error", "errors.0", "message"];

pub(crate) struct Pushpad {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Pushpad {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        device_tokens(ID, delivery)?;
        one_answer(self.send_each(delivery).await)
    }

    async fn send_each(&self, delivery: &Delivery) -> Vec<DeviceAnswer> {
        let tokens = &delivery.to.device_tokens;
        let (url, api_key) = match target(delivery, &self.http) {
            Ok(target) => target,
            Err(err) => return every(tokens, &err),
        };
        let notification = notification(&PushMessage::of(delivery));
        let mut answers = Vec::with_capacity(tokens.len());
        for batch in tokens.chunks(MAX_TOKENS) {
            let body = json!({"notification": notification, "uids": batch});
            let request = self
                .http
                .client
                .post(url.clone())
                .header("Authorization", format!("Token token=\"{api_key}\""))
                .header("Accept", "application/json")
                .json(&body);
            answers.extend(match self.http.fetch(ID, request).await {
                Ok(answer) => per_token(batch, answer),
                Err(err) => every(batch, &err),
            });
        }
        answers
    }
}

fn target<'a>(delivery: &'a Delivery, http: &Http) -> Result<(Url, &'a str), ProviderError> {
    let credentials = &delivery.credentials;
    let api_key = required(ID, credentials, "apiKey")?;
    let project = required(ID, credentials, "applicationId")?;
    if !project.bytes().all(|byte| byte.is_ascii_alphanumeric()) {
        return Err(ProviderError::misconfigured(format!("{ID} `applicationId` (the project id) must be a number")));
    }
    let url = endpoint(ID, credentials, API, &format!("/api/v1/projects/{project}/notifications"), &http.settings)?;
    Ok((url, api_key))
}

fn notification(message: &PushMessage) -> Value {
    let mut notification = json!({"body": message.body});
    if let Some(title) = &message.title {
        notification["title"] = json!(title);
    }
    for (ours, theirs) in
        [("targetUrl", "target_url"), ("iconUrl", "icon_url"), ("imageUrl", "image_url"), ("badgeUrl", "badge_url")]
    {
        if let Some(value) = message.text(ours) {
            notification[theirs] = json!(value);
        }
    }
    if let Some(ttl) = message.number("ttl") {
        notification["ttl"] = json!(ttl);
    }
    for (ours, theirs) in [("requireInteraction", "require_interaction"), ("silent", "silent"), ("urgent", "urgent")] {
        if message.flag(ours) {
            notification[theirs] = json!(true);
        }
    }
    notification
}

/// One answer for each uid of a batch.
fn per_token(tokens: &[String], answer: HttpAnswer) -> Vec<DeviceAnswer> {
    if !answer.status.is_success() {
        let kind = match answer.status.as_u16() {
            404 => ErrorKind::Misconfigured,
            _ => ErrorKind::of_status(answer.status),
        };
        return every(tokens, &answer.error(ID, kind, ERROR_PATHS));
    }
    let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
    let id = match &json["id"] {
        Value::Number(id) => Some(id.to_string()),
        Value::String(id) if !id.is_empty() => Some(id.clone()),
        _ => None,
    };
    let Some(id) = id else {
        let err = answer.error_saying(ID, ErrorKind::Permanent, Some("the answer names no notification id".to_owned()));
        return every(tokens, &err);
    };
    let subscribed: HashSet<&str> = json["uids"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    tokens
        .iter()
        .map(|token| {
            let outcome = if subscribed.contains(token.as_str()) {
                Ok(Accepted { provider_message_id: Some(id.clone()), raw: answer.body.raw() })
            } else {
                Err(answer.error_saying(
                    ID,
                    ErrorKind::DeadDestination,
                    Some("the uid has no subscription in this project (absent from the answer's uids)".to_owned()),
                ))
            };
            DeviceAnswer { token: token.clone(), answer: outcome }
        })
        .collect()
}

/// `err` as the answer of each of `tokens`.
fn every(tokens: &[String], err: &ProviderError) -> Vec<DeviceAnswer> {
    tokens.iter().map(|token| DeviceAnswer { token: token.clone(), answer: Err(err.clone()) }).collect()
}
