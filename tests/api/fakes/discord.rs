//! Discord's Execute Webhook, `POST /api/webhooks/{webhook.id}/{webhook.token}`
//! (https://discord.com/developers/docs/resources/webhook#execute-webhook): JSON with `content` (at most
//! 2000 characters) or `embeds`; with `?wait=true`, `200` and the message object, else `204`. Errors are
//! `{"message", "code"}` (codes from https://discord.com/developers/docs/topics/opcodes-and-status-codes):
//! an unknown webhook id `404` `10015`, a wrong token `401` `50027`, nothing to send `400` `50006`, a field
//! out of bounds `400` `50035` with its `errors`. A rate limit is `429` with
//! `{"message", "retry_after": <seconds, fractional>, "global"}` and a whole-second `Retry-After` header.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const WEBHOOK_ID: &str = "1180000000000000001";
pub const WEBHOOK_TOKEN: &str = "hX9-fake_webhook_token";
const CHANNEL_ID: &str = "1180000000000000100";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, success).await
}

/// The webhook's URL at `fake`.
pub fn webhook_url(fake: &FakeProvider) -> String {
    format!("{}/api/webhooks/{WEBHOOK_ID}/{WEBHOOK_TOKEN}", fake.base_url())
}

pub fn error(status: u16, code: u32, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"message": message, "code": code}))
}

/// A rate limit of `retry_after` seconds (the header rounds it up, as Discord's does).
pub fn rate_limited(retry_after: f64) -> FakeAnswer {
    FakeAnswer::json(
        429,
        json!({"message": "You are being rate limited.", "retry_after": retry_after, "global": false}),
    )
    .with_header("retry-after", &retry_after.ceil().to_string())
    .with_header("x-ratelimit-scope", "shared")
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some((id, token)) = request.path.strip_prefix("/api/webhooks/").and_then(|rest| rest.split_once('/')) else {
        return Some(error(404, 0, "404: Not Found"));
    };
    if request.method != "POST" {
        return Some(error(405, 0, "405: Method Not Allowed"));
    }
    if id != WEBHOOK_ID {
        return Some(error(404, 10015, "Unknown Webhook"));
    }
    if token != WEBHOOK_TOKEN {
        return Some(error(401, 50027, "Invalid Webhook Token"));
    }
    // Discord also takes forms and multipart; anything else carries no message for it.
    let body = if request.content_type_is("application/json") { request.json() } else { Value::Null };
    let content = body["content"].as_str().unwrap_or_default();
    if content.chars().count() > 2000 {
        return Some(FakeAnswer::json(
            400,
            json!({"message": "Invalid Form Body", "code": 50035, "errors": {"content": {"_errors": [
                {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]}}}),
        ));
    }
    if content.is_empty() && body["embeds"].as_array().is_none_or(|embeds| embeds.is_empty()) {
        return Some(error(400, 50006, "Cannot send an empty message"));
    }
    None
}

fn success(request: &Recorded) -> FakeAnswer {
    static MESSAGES: AtomicU64 = AtomicU64::new(1);
    let waits = request.query.as_deref().is_some_and(|query| {
        form_urlencoded::parse(query.as_bytes()).any(|(name, value)| name == "wait" && value == "true")
    });
    if !waits {
        return FakeAnswer { status: 204, headers: Vec::new(), body: String::new() };
    }
    let body = request.json();
    let id = format!("13{:017}", MESSAGES.fetch_add(1, Ordering::Relaxed));
    FakeAnswer::json(
        200,
        json!({
            "id": id, "type": 0, "content": body["content"], "channel_id": CHANNEL_ID,
            "author": {"id": WEBHOOK_ID, "username": body["username"].as_str().unwrap_or("Herald"), "avatar": null,
                       "discriminator": "0000", "bot": true},
            "attachments": [], "embeds": body["embeds"].as_array().cloned().unwrap_or_default(), "mentions": [],
            "mention_roles": [], "pinned": false, "mention_everyone": false, "tts": false,
            "timestamp": "2026-11-24T10:00:00.000000+00:00", "edited_timestamp": null, "flags": 0,
            "components": [], "webhook_id": WEBHOOK_ID,
        }),
    )
}
