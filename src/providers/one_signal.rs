//! `one-signal`: `POST {baseUrl | https://api.onesignal.com}/notifications` with `Authorization: Key <apiKey>`
//! (the current API keys; the legacy `Basic` keys are retired) and a JSON body
//! `{app_id, include_subscription_ids, headings: {en}, contents: {en}, data?, idempotency_key}`. Credentials:
//! `applicationId` (the app id) and `apiKey`.
//!
//! Unlike the one-request-per-token push providers, a message goes to all its device tokens (OneSignal
//! subscription ids) in one request, at most 2,000 of them, OneSignal's limit. `idempotency_key` is a v4
//! UUID derived from Herald's message id and the tokens, the same on every retry, so a retry after a lost
//! answer returns the first request's result instead of notifying twice (OneSignal keeps keys 30 days).
//!
//! Overrides (`overrides.push`, then `overrides["one-signal"]`): `title`, `body`, `subtitle`, `data`,
//! `sound` (`ios_sound` and `android_sound`), `badge` (`ios_badgeType: SetTo`, `ios_badgeCount`),
//! `mutableContent`, `contentAvailable`, `channelId` (`android_channel_id`), `category` or `categoryId`
//! (`ios_category`), `threadId`, `collapseId` and `priority`.
//!
//! Answers, per token:
//! - `200 {"id", "recipients"}`: accepted, the notification id recorded for every token;
//! - a 200 may still refuse some: `errors.invalid_player_ids` (OneSignal's name, also for subscription
//!   ids; `invalid_subscription_ids` is read too) lists tokens OneSignal does not know, dead
//!   ([`ProviderError::DeadDestination`]) while the others are accepted; `{"id": "", "errors": ["All
//!   included players are not subscribed"]}` means no token can receive it, all dead; any other 200 without
//!   an id created nothing, permanent;
//! - `400 {"errors": [...]}` permanent, 401/403 (`Access denied. …`) a misconfigured integration, 429 and
//!   5xx transient after `Retry-After`, for every token of the request.

use std::collections::HashSet;

use reqwest::Url;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::account::required;
use super::endpoint::endpoint;
use super::http::{ErrorKind, HttpAnswer};
use super::push::{device_tokens, one_answer, PushMessage};
use super::registry::Http;
use super::{Accepted, Delivery, DeviceAnswer, Provider, ProviderError};

const ID: &str = "one-signal";
const API: &str = "https://api.onesignal.com";
/// The most subscription ids one request may name.
const MAX_TOKENS: usize = 2_000;
/// Where OneSignal's error bodies keep their text: a list of strings, or of objects.
const ERROR_PATHS: &[&str] = &["errors.0", "errors.0.message", "errors.0.title"];
/// The 200 answer that created nothing because no included subscription can receive notifications.
const NONE_SUBSCRIBED: &str = "All included players are not subscribed";

pub(crate) struct OneSignal {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for OneSignal {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        device_tokens(ID, delivery)?;
        one_answer(self.send_each(delivery).await)
    }

    async fn send_each(&self, delivery: &Delivery) -> Vec<DeviceAnswer> {
        let tokens = &delivery.to.device_tokens;
        let request = match Request::of(delivery, &self.http) {
            Ok(request) => request,
            Err(err) => return every(tokens, &err),
        };
        let mut answers = Vec::with_capacity(tokens.len());
        for batch in tokens.chunks(MAX_TOKENS) {
            answers.extend(match request.post(&self.http, batch).await {
                Ok(answer) => per_token(batch, answer),
                Err(err) => every(batch, &err),
            });
        }
        answers
    }
}

/// What every batch of one delivery shares.
struct Request<'a> {
    url: Url,
    api_key: &'a str,
    message_id: Uuid,
    /// The body without the tokens and the idempotency key.
    body: Value,
}

impl<'a> Request<'a> {
    fn of(delivery: &'a Delivery, http: &Http) -> Result<Self, ProviderError> {
        let credentials = &delivery.credentials;
        let app_id = required(ID, credentials, "applicationId")?;
        let api_key = required(ID, credentials, "apiKey")?;
        let url = endpoint(ID, credentials, API, "/notifications", &http.settings)?;
        Ok(Self { url, api_key, message_id: delivery.message_id, body: body(app_id, &PushMessage::of(delivery)) })
    }

    async fn post(&self, http: &Http, tokens: &[String]) -> Result<HttpAnswer, ProviderError> {
        let mut body = self.body.clone();
        body["include_subscription_ids"] = json!(tokens);
        body["idempotency_key"] = json!(idempotency_key(self.message_id, tokens));
        let request = http.client.post(self.url.clone()).header("Authorization", format!("Key {}", self.api_key));
        http.fetch(ID, request.json(&body)).await
    }
}

fn body(app_id: &str, message: &PushMessage) -> Value {
    let mut body = json!({"app_id": app_id, "contents": {"en": message.body}});
    if let Some(title) = &message.title {
        body["headings"] = json!({"en": title});
    }
    if let Some(subtitle) = message.text("subtitle") {
        body["subtitle"] = json!({"en": subtitle});
    }
    if !message.data.is_empty() {
        body["data"] = json!(message.data);
    }
    if let Some(sound) = message.text("sound") {
        body["ios_sound"] = json!(sound);
        body["android_sound"] = json!(sound);
    }
    if let Some(badge) = message.number("badge") {
        body["ios_badgeType"] = json!("SetTo");
        body["ios_badgeCount"] = json!(badge);
    }
    if message.flag("mutableContent") {
        body["mutable_content"] = json!(true);
    }
    if message.flag("contentAvailable") {
        body["content_available"] = json!(true);
    }
    for (ours, theirs) in [
        ("channelId", "android_channel_id"),
        ("category", "ios_category"),
        ("categoryId", "ios_category"),
        ("threadId", "thread_id"),
        ("collapseId", "collapse_id"),
    ] {
        if let Some(value) = message.text(ours) {
            body[theirs] = json!(value);
        }
    }
    if let Some(priority) = message.number("priority") {
        body["priority"] = json!(priority);
    }
    body
}

/// The same v4 UUID for every retry of one message to the same tokens (OneSignal takes v3 and v4 ones),
/// and a different one for another message or another batch.
fn idempotency_key(message_id: Uuid, tokens: &[String]) -> Uuid {
    let mut digest = Sha256::new();
    digest.update(message_id.as_bytes());
    for token in tokens {
        digest.update((token.len() as u64).to_be_bytes());
        digest.update(token.as_bytes());
    }
    let bytes: [u8; 16] = digest.finalize()[..16].try_into().expect("16 of 32 bytes");
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// One answer for each token of a batch.
fn per_token(tokens: &[String], answer: HttpAnswer) -> Vec<DeviceAnswer> {
    if !answer.status.is_success() {
        let err = answer.error(ID, ErrorKind::of_status(answer.status), ERROR_PATHS);
        return every(tokens, &err);
    }
    let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
    let notification_id = json["id"].as_str().filter(|id| !id.is_empty());
    let errors = &json["errors"];
    let invalid: HashSet<&str> = ["invalid_player_ids", "invalid_subscription_ids"]
        .iter()
        .filter_map(|key| errors[key].as_array())
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let messages: Vec<&str> = errors.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let not_created = || {
        let text = if messages.is_empty() { "no notification was created".to_owned() } else { messages.join("; ") };
        let kind = if messages.contains(&NONE_SUBSCRIBED) { ErrorKind::DeadDestination } else { ErrorKind::Permanent };
        answer.error_saying(ID, kind, Some(text))
    };
    tokens
        .iter()
        .map(|token| {
            let outcome = if invalid.contains(token.as_str()) {
                Err(answer.error_saying(
                    ID,
                    ErrorKind::DeadDestination,
                    Some("not a subscription of this app (errors.invalid_player_ids)".to_owned()),
                ))
            } else if let Some(id) = notification_id {
                Ok(Accepted { provider_message_id: Some(id.to_owned()), raw: answer.body.raw() })
            } else {
                Err(not_created())
            };
            DeviceAnswer { token: token.clone(), answer: outcome }
        })
        .collect()
}

/// `err` as the answer of each of `tokens`.
fn every(tokens: &[String], err: &ProviderError) -> Vec<DeviceAnswer> {
    tokens.iter().map(|token| DeviceAnswer { token: token.clone(), answer: Err(err.clone()) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idempotency_key_is_a_v4_uuid_fixed_by_the_message_and_its_tokens() {
        let message = Uuid::now_v7();
        let tokens = vec!["a".to_owned(), "b".to_owned()];

        let key = idempotency_key(message, &tokens);

        assert_eq!(key.get_version_num(), 4);
        assert_eq!(key, idempotency_key(message, &tokens));
        assert_ne!(key, idempotency_key(message, &tokens[..1]));
        assert_ne!(key, idempotency_key(Uuid::now_v7(), &tokens));
        assert_ne!(idempotency_key(message, &["ab".to_owned()]), idempotency_key(message, &tokens));
    }
}
