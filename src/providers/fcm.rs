//! `fcm`: Firebase Cloud Messaging, HTTP v1. One request per device token (FCM has no batch endpoint any
//! more), all of one message at once over one HTTP/2 connection (`send_each`'s default).
//!
//! Credentials: `serviceAccount` (older integrations: `user`), the service account's key file as JSON
//! text or as an object; its token is obtained and cached as module `auth` describes. Optional `baseUrl`.
//!
//! Request: `POST {baseUrl | https://fcm.googleapis.com}/v1/projects/{project_id}/messages:send` with
//! `Authorization: Bearer <access token>` and
//! `{"message": {"token", "notification": {"title", "body", "image"}, "data": {string: string},
//! "android", "apns", "webpush", "fcm_options"}}`:
//! - `data`: the trigger's payload with every value a string (FCM takes nothing else: other values are
//!   written as JSON), without the keys FCM reserves (`from`, `message_type`, `google.*`, `gcm.*`),
//!   then the overrides' `data`;
//! - the overrides (`overrides.push`, then `overrides.fcm`; see module `push`) may set `title`, `body`,
//!   `image` (or firebase-admin's `imageUrl`), `data`, and `android`, `apns`, `webpush` (or `webPush`)
//!   and `fcm_options` (or `fcmOptions`), which go out as they are, in FCM v1's JSON shape;
//!   `"type": "data"` sends a data-only message instead (title, body and `message` in `data`), as Novu
//!   does;
//! - `apns.headers.apns-collapse-id` is Herald's message id unless the overrides set one, so a message
//!   sent twice (a retry after a lost answer) shows once on an iPhone. Not Android's `collapse_key`:
//!   FCM keeps only four of those per device, so unique ones would drop an offline device's messages.
//!
//! Success: `200 {"name": "projects/{project_id}/messages/{id}"}`, recorded as the provider message id.
//! Errors are `{"error": {"code", "message", "status", "details": [{"@type": "…FcmError", "errorCode"}]}}`,
//! sorted by `errorCode` (else `status`): `UNREGISTERED`, `SENDER_ID_MISMATCH` and an `INVALID_ARGUMENT`
//! about the registration token mean the device token is dead; `QUOTA_EXCEEDED` (429), `UNAVAILABLE`
//! and `INTERNAL` are transient, no sooner than `Retry-After`; `THIRD_PARTY_AUTH_ERROR` (the APNs or web
//! push credentials in Firebase) and 401/403 misconfigure the integration. A 401 `UNAUTHENTICATED` is
//! first taken for an expired access token: it is replaced and the send tried once more.
//!
//! A plain `http://` `baseUrl` (a local fake; on loopback only, unless the operator allows plain http)
//! is spoken to in HTTP/2 with prior knowledge, as APNs is: it has no TLS to negotiate HTTP/2 with, and
//! one connection should carry every send, as it does with Google.

mod auth;

use reqwest::{StatusCode, Url};
use serde_json::{json, Map, Value};

use self::auth::{AccessTokens, ServiceAccount};
use super::endpoint::endpoint;
use super::http::{coded, ErrorKind, HttpAnswer};
use super::push::{one_device_token, PushMessage};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "fcm";
const API: &str = "https://fcm.googleapis.com";
/// The FCM v1 message fields the overrides pass on as they are, with their firebase-admin spellings.
const PASSED_ON: &[(&str, &str)] = &[
    ("android", "android"),
    ("apns", "apns"),
    ("webpush", "webpush"),
    ("webPush", "webpush"),
    ("fcm_options", "fcm_options"),
    ("fcmOptions", "fcm_options"),
];

pub(crate) struct Fcm {
    pub(crate) http: Http,
    tokens: AccessTokens,
}

impl Fcm {
    pub(crate) fn new(http: Http) -> Self {
        Self { http, tokens: AccessTokens::default() }
    }

    async fn post(&self, url: &Url, access_token: &str, body: &Value) -> Result<HttpAnswer, ProviderError> {
        let client = if url.scheme() == "http" { &self.http.h2c } else { &self.http.client };
        self.http.fetch(ID, client.post(url.clone()).bearer_auth(access_token).json(body)).await
    }
}

#[tonic::async_trait]
impl Provider for Fcm {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let token = one_device_token(ID, delivery)?;
        let account = ServiceAccount::of(&delivery.credentials)?;
        let path = format!("/v1/projects/{}/messages:send", account.project_id);
        let url = endpoint(ID, &delivery.credentials, API, &path, &self.http.settings)?;
        let body = json!({"message": message(delivery, token)});
        let access_token = self.tokens.get(&account, &self.http, None).await?;
        let mut answer = self.post(&url, &access_token, &body).await?;
        if expired_token(&answer) {
            let renewed = self.tokens.get(&account, &self.http, Some(&access_token)).await?;
            answer = self.post(&url, &renewed, &body).await?;
        }
        sorted(answer)
    }
}

/// The FCM v1 message to `token` (see the module docs).
fn message(delivery: &Delivery, token: &str) -> Value {
    let push = PushMessage::of(delivery);
    let mut data: Map<String, Value> = push
        .data
        .iter()
        .filter(|(key, _)| !reserved(key))
        .map(|(key, value)| (key.clone(), stringified(value)))
        .collect();
    let title = push.title.clone().unwrap_or_default();
    let mut message = json!({"token": token});
    if push.text("type") == Some("data") {
        data.insert("title".into(), json!(title));
        data.insert("message".into(), json!(push.body));
        data.insert("body".into(), json!(push.body));
    } else {
        message["notification"] = json!({"title": title, "body": push.body});
        if let Some(image) = ["image", "imageUrl"].iter().find_map(|key| push.text(key)) {
            message["notification"]["image"] = json!(image);
        }
    }
    if !data.is_empty() {
        message["data"] = Value::Object(data);
    }
    for (key, field) in PASSED_ON {
        if let Some(value) = push.value(key).filter(|value| value.is_object()) {
            message[*field] = value.clone();
        }
    }
    let apns_headers = &mut message["apns"]["headers"];
    // (Headers that are not an object are the overrides' mistake, for FCM to name.)
    if apns_headers.is_null() || apns_headers.is_object() && apns_headers.get("apns-collapse-id").is_none() {
        apns_headers["apns-collapse-id"] = json!(delivery.message_id.to_string());
    }
    message
}

/// A data key FCM refuses ("a reserved word": `from`, `message_type`, and prefixes `google.`, `gcm.`).
fn reserved(key: &str) -> bool {
    matches!(key, "from" | "message_type") || key.starts_with("google.") || key.starts_with("gcm.")
}

/// FCM's `data` holds strings only: anything else is sent as its JSON text (Novu does the same).
fn stringified(value: &Value) -> Value {
    match value {
        Value::String(_) => value.clone(),
        other => Value::String(other.to_string()),
    }
}

/// FCM's error body: its `errorCode` (in the `FcmError` detail), `status` and `message`.
struct FcmError {
    code: Option<String>,
    status: Option<String>,
    message: Option<String>,
    json: Value,
}

impl FcmError {
    fn of(answer: &HttpAnswer) -> Self {
        let json = serde_json::from_str::<Value>(answer.body.text()).unwrap_or_default();
        let error = &json["error"];
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let code = error["details"].as_array().into_iter().flatten().find_map(|detail| {
            let fcm_error = detail["@type"].as_str()?.ends_with("google.firebase.fcm.v1.FcmError");
            fcm_error.then(|| text(&detail["errorCode"])).flatten()
        });
        Self { code, status: text(&error["status"]), message: text(&error["message"]), json }
    }

    /// `errorCode`, else the gRPC status.
    fn name(&self) -> Option<&str> {
        self.code.as_deref().or(self.status.as_deref())
    }

    /// An `INVALID_ARGUMENT` about the device token rather than a field of the message: "The registration
    /// token is not a valid FCM registration token", or a field violation on `message.token`.
    fn is_about_the_token(&self) -> bool {
        let violations = self.json["error"]["details"].as_array().into_iter().flatten();
        let mut fields = violations.flat_map(|detail| detail["fieldViolations"].as_array().into_iter().flatten());
        self.message.as_deref().is_some_and(|message| message.to_ascii_lowercase().contains("registration token"))
            || fields.any(|violation| violation["field"] == "message.token")
    }
}

/// FCM refused the access token itself (it expired or was revoked), not the integration's Firebase setup.
fn expired_token(answer: &HttpAnswer) -> bool {
    answer.status == StatusCode::UNAUTHORIZED && FcmError::of(answer).code.as_deref() != Some("THIRD_PARTY_AUTH_ERROR")
}

fn sorted(answer: HttpAnswer) -> Result<Accepted, ProviderError> {
    if answer.status.is_success() {
        return Ok(answer.body.accepted("name"));
    }
    let error = FcmError::of(&answer);
    let kind = match error.name() {
        Some("UNREGISTERED" | "SENDER_ID_MISMATCH") => ErrorKind::DeadDestination,
        Some("INVALID_ARGUMENT") if error.is_about_the_token() => ErrorKind::DeadDestination,
        Some("QUOTA_EXCEEDED" | "UNAVAILABLE" | "INTERNAL") => ErrorKind::Transient,
        Some("THIRD_PARTY_AUTH_ERROR") => ErrorKind::Misconfigured,
        _ => ErrorKind::of_status(answer.status),
    };
    let text = coded(error.name(), error.message.as_deref());
    Err(answer.error_saying(ID, kind, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::tests::delivery;

    #[test]
    fn data_values_are_strings_without_reserved_keys_and_overrides_shape_the_message() {
        let mut push = delivery("fcm", json!({}));
        push.payload = json!({"orderId": "A-1", "total": 42, "items": [1, 2], "paid": true, "note": null,
                              "from": "Ada", "google.c.a": "x"});
        push.overrides = json!({"push": {"sound": "ping", "imageUrl": "https://cdn/i.png"},
                                "fcm": {"data": {"campaign": 7}, "webPush": {"headers": {"TTL": "60"}},
                                        "apns": {"payload": {"aps": {"badge": 1}}}}});

        let message = message(&push, "token-a");

        assert_eq!(
            message,
            json!({
                "token": "token-a",
                "notification": {"title": "Hello", "body": "<p>Hi Ada</p>", "image": "https://cdn/i.png"},
                "data": {"orderId": "A-1", "total": "42", "items": "[1,2]", "paid": "true", "note": "null",
                         "campaign": "7"},
                "webpush": {"headers": {"TTL": "60"}},
                "apns": {"payload": {"aps": {"badge": 1}}, "headers": {"apns-collapse-id": push.message_id.to_string()}},
            })
        );
    }

    #[test]
    fn a_data_message_carries_title_and_body_in_its_data() {
        let mut push = delivery("fcm", json!({}));
        push.overrides = json!({"fcm": {"type": "data", "apns": {"headers": {"apns-collapse-id": "mine"}}}});

        let message = message(&push, "token-a");

        assert_eq!(message.get("notification"), None);
        assert_eq!(
            message["data"],
            json!({"plan": "pro", "title": "Hello", "body": "<p>Hi Ada</p>", "message": "<p>Hi Ada</p>"})
        );
        assert_eq!(message["apns"], json!({"headers": {"apns-collapse-id": "mine"}}));
    }
}
