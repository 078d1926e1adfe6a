//! Slack, both ways a message reaches it.
//!
//! - An incoming webhook, `POST /services/<team>/<bot>/<secret>`
//!   (https://api.slack.com/messaging/webhooks): JSON with `text` (or `blocks`/`attachments`); `200` with
//!   the text `ok` and an `x-slack-req-id` header. Errors are text bodies
//!   (https://api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks): `400
//!   invalid_payload | no_text`, `403 invalid_token` (a wrong secret), `404 no_service` (no such hook),
//!   and, scripted by tests, `403 action_prohibited`, `404 channel_not_found`, `410 channel_is_archived`,
//!   `500 rollup_error`. The body of a webhook's 429 is not documented; this fake says `rate_limited`.
//! - The Web API's `POST /api/chat.postMessage` (https://api.slack.com/methods/chat.postMessage):
//!   `Authorization: Bearer <bot token>`, JSON `{channel, text | blocks | attachments}`; `200 {"ok": true,
//!   "channel", "ts", "message"}`. Errors are `200 {"ok": false, "error"}` (`not_authed`, `invalid_auth`,
//!   `invalid_form_data`, `invalid_json`, `channel_not_found`, `is_archived`, `no_text`…), but a rate
//!   limit is an HTTP `429` with `Retry-After` and `{"ok": false, "error": "ratelimited"}`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const WEBHOOK_PATH: &str = "/services/T0001/B0001/Xq7HOOKSECRETxxxxxxxxxxx";
pub const BOT_TOKEN: &str = "xoxb-1111-2222-fakebottoken";
/// A channel the bot may post to.
pub const CHANNEL: &str = "C0123456789";
/// A channel that was archived.
pub const ARCHIVED_CHANNEL: &str = "C0ARCHIVED1";
const POST_MESSAGE: &str = "/api/chat.postMessage";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, success).await
}

/// The incoming-webhook URL at `fake`.
pub fn webhook_url(fake: &FakeProvider) -> String {
    format!("{}{WEBHOOK_PATH}", fake.base_url())
}

/// An incoming webhook's answer: a status and one word of text (`ok`, or the error).
pub fn webhook_answer(status: u16, text: &str) -> FakeAnswer {
    FakeAnswer { status, headers: vec![("content-type".into(), "text/html".into())], body: text.to_owned() }
}

/// A Web API error, which Slack answers with HTTP 200.
pub fn api_error(error: &str) -> FakeAnswer {
    FakeAnswer::json(200, json!({"ok": false, "error": error}))
}

/// A Web API rate limit: HTTP 429 with `Retry-After`.
pub fn api_rate_limited(retry_after: &str) -> FakeAnswer {
    FakeAnswer::json(429, json!({"ok": false, "error": "ratelimited"})).with_header("retry-after", retry_after)
}

/// An incoming webhook's rate limit.
pub fn webhook_rate_limited(retry_after: &str) -> FakeAnswer {
    webhook_answer(429, "rate_limited").with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.path == POST_MESSAGE {
        return check_post_message(request);
    }
    let Some(hook) = request.path.strip_prefix("/services/") else {
        return Some(webhook_answer(404, "Not Found"));
    };
    if request.method != "POST" {
        return Some(webhook_answer(405, "invalid_method"));
    }
    if request.path != WEBHOOK_PATH {
        let known_hook = WEBHOOK_PATH.strip_prefix("/services/").and_then(|path| path.rsplit_once('/')).unwrap().0;
        let wrong_secret = hook.rsplit_once('/').is_some_and(|(team_and_bot, _)| team_and_bot == known_hook);
        return Some(if wrong_secret {
            webhook_answer(403, "invalid_token")
        } else {
            webhook_answer(404, "no_service")
        });
    }
    let body = request.json();
    if !request.content_type_is("application/json") || !body.is_object() {
        return Some(webhook_answer(400, "invalid_payload"));
    }
    if !has_content(&body) {
        return Some(webhook_answer(400, "no_text"));
    }
    None
}

fn check_post_message(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "POST" {
        return Some(api_error("method_not_supported_for_channel_type"));
    }
    match request.header("authorization") {
        None => return Some(api_error("not_authed")),
        Some(value) if value != format!("Bearer {BOT_TOKEN}") => return Some(api_error("invalid_auth")),
        Some(_) => {}
    }
    if !request.content_type_is("application/json") {
        return Some(api_error("invalid_form_data"));
    }
    let body = request.json();
    if !body.is_object() {
        return Some(api_error("invalid_json"));
    }
    match body["channel"].as_str() {
        Some(CHANNEL) => {}
        Some(ARCHIVED_CHANNEL) => return Some(api_error("is_archived")),
        _ => return Some(api_error("channel_not_found")),
    }
    if !has_content(&body) {
        return Some(api_error("no_text"));
    }
    None
}

/// Slack needs something to show: a text, blocks or attachments.
fn has_content(body: &Value) -> bool {
    body["text"].as_str().is_some_and(|text| !text.is_empty())
        || body["blocks"].as_array().is_some_and(|blocks| !blocks.is_empty())
        || body["attachments"].as_array().is_some_and(|attachments| !attachments.is_empty())
}

fn success(request: &Recorded) -> FakeAnswer {
    static MESSAGES: AtomicU64 = AtomicU64::new(1);
    if request.path != POST_MESSAGE {
        let request_id = uuid::Uuid::new_v4().simple().to_string();
        return webhook_answer(200, "ok").with_header("x-slack-req-id", &request_id);
    }
    let body = request.json();
    let ts = format!("1764000000.{:06}", MESSAGES.fetch_add(1, Ordering::Relaxed));
    FakeAnswer::json(
        200,
        json!({
            "ok": true, "channel": body["channel"], "ts": ts,
            "message": {"type": "message", "subtype": "bot_message", "text": body["text"], "ts": ts,
                        "bot_id": "B0001", "username": "Herald"},
        }),
    )
}
