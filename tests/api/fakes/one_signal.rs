//! OneSignal's `POST /notifications` (https://documentation.onesignal.com/reference/push-notification):
//! `Authorization: Key <app API key>`, JSON, `app_id` of the key's app, English `contents`,
//! `include_subscription_ids` (at most 2,000) and, when given, `idempotency_key` as a v3 or v4 UUID.
//!
//! Success: `200 {"id", "recipients", "external_id": null}`. Like OneSignal, a 200 also reports ids it
//! does not know (those made by [`unknown_id`]) in `errors.invalid_player_ids`, and when no included
//! subscription can receive the notification (all unknown, or opted out: [`unsubscribed_id`]) it creates
//! none: `{"id": "", "recipients": 0, "errors": …}`. Errors: `{"errors": ["…"]}`; a refused key is 403
//! with OneSignal's "Access denied" text.

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const APP_ID: &str = "5eb5a37e-b458-11e3-ac11-000c2940e62c";
pub const API_KEY: &str = "os_v2_app_heraldfakeappkey000000000000000000000000";
/// OneSignal's text for a refused key (note the two spaces).
pub const ACCESS_DENIED: &str = "Access denied.  Please include an 'Authorization: ...' header with a valid API key \
(https://documentation.onesignal.com/docs/en/keys-and-ids#api-keys).";
pub const NONE_SUBSCRIBED: &str = "All included players are not subscribed";

const UNKNOWN: &str = "00000000-";
const UNSUBSCRIBED: &str = "ffffffff-";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, created).await
}

pub fn error(status: u16, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"errors": [message]}))
}

/// The 429 OneSignal answers past the app's rate limit.
pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    FakeAnswer::json(429, json!({"errors": ["API rate limit exceeded"], "limit": "notifications"}))
        .with_header("retry-after", retry_after)
}

/// A subscription id as OneSignal makes them.
pub fn subscription_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A well-formed subscription id that is not one of the app's.
pub fn unknown_id() -> String {
    format!("{UNKNOWN}{}", &subscription_id()[UNKNOWN.len()..])
}

/// A subscription of the app whose user turned notifications off.
pub fn unsubscribed_id() -> String {
    format!("{UNSUBSCRIBED}{}", &subscription_id()[UNSUBSCRIBED.len()..])
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "POST" || request.path != "/notifications" {
        return Some(error(404, "Not Found"));
    }
    if request.header("authorization") != Some(format!("Key {API_KEY}").as_str()) {
        return Some(error(403, ACCESS_DENIED));
    }
    let body = request.json();
    if !request.content_type_is("application/json") || body["app_id"].is_null() {
        return Some(error(400, "app_id not found. You may be missing a Content-Type: application/json header."));
    }
    if body["app_id"] != APP_ID {
        return Some(error(403, ACCESS_DENIED));
    }
    let Some(ids) = body["include_subscription_ids"].as_array() else {
        return Some(error(
            400,
            "You must include which players, segments, or tags you wish to send this notification to.",
        ));
    };
    if ids.len() > 2000 {
        return Some(error(400, "include_subscription_ids must contain no more than 2000 entries"));
    }
    if body["contents"]["en"].as_str().is_none_or(str::is_empty) {
        return Some(error(400, "Message Notifications must have English language content"));
    }
    if let Some(key) = body.get("idempotency_key") {
        let version = key.as_str().and_then(|key| uuid::Uuid::parse_str(key).ok()).map(|key| key.get_version_num());
        if !matches!(version, Some(3 | 4)) {
            return Some(error(400, "idempotency_key must be a v3 or v4 UUID"));
        }
    }
    None
}

fn created(request: &Recorded) -> FakeAnswer {
    let body = request.json();
    let ids: Vec<&str> =
        body["include_subscription_ids"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let unknown: Vec<&str> = ids.iter().copied().filter(|id| id.starts_with(UNKNOWN)).collect();
    let subscribed = ids.iter().filter(|id| !id.starts_with(UNKNOWN) && !id.starts_with(UNSUBSCRIBED)).count();
    let mut answer = if subscribed == 0 {
        json!({"id": "", "recipients": 0, "errors": [NONE_SUBSCRIBED]})
    } else {
        json!({"id": uuid::Uuid::new_v4(), "recipients": subscribed, "external_id": null})
    };
    if !unknown.is_empty() {
        answer["errors"] = json!({"invalid_player_ids": unknown});
    }
    FakeAnswer::json(200, answer)
}
