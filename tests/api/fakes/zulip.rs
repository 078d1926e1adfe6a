//! Zulip's Slack-compatible incoming webhook, `POST /api/v1/external/slack_incoming?api_key=<bot key>&stream=<s>`
//! (zulip/zulip `zerver/webhooks/slack_incoming/view.py`): the bot's key in the query, JSON with `blocks`,
//! `attachments` or `text`; success is `200 {"result":"success","msg":"","ok":true}` (also for an empty
//! rendering, and for a missing stream). Errors are `{"result":"error","code","msg"}`: `401
//! INVALID_API_KEY` (an unknown key), `401 USER_DEACTIVATED` (the deactivated bot's key), `400
//! BAD_REQUEST` (a body that is not JSON). Tests script the others ([`rate_limited`], 5xx).

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const PATH: &str = "/api/v1/external/slack_incoming";
pub const BOT_KEY: &str = "kTz8qW3nYp5vR2mXc7bL1dF9gH4jS6aE";
pub const DEACTIVATED_KEY: &str = "dEaCtIvAtEdBoTkEy000000000000000";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| FakeAnswer::json(200, json!({"result": "success", "msg": "", "ok": true}))).await
}

/// The webhook URL of a bot with `key` at `fake`, posting to stream `alerts`.
pub fn webhook_url(fake: &FakeProvider, key: &str) -> String {
    format!("{}{PATH}?api_key={key}&stream=alerts&topic=orders", fake.base_url())
}

pub fn error(status: u16, code: &str, msg: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"result": "error", "code": code, "msg": msg}))
}

/// Zulip's rate limiter (`RateLimitedError`): 429 `RATE_LIMIT_HIT` with `Retry-After` and the same
/// seconds (fractional) in the body.
pub fn rate_limited(seconds: f64) -> FakeAnswer {
    FakeAnswer::json(
        429,
        json!({"result": "error", "code": "RATE_LIMIT_HIT", "msg": "API usage exceeded rate limit",
               "retry-after": seconds}),
    )
    .with_header("retry-after", &(seconds.ceil() as u64).to_string())
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.path != PATH {
        return Some(error(404, "BAD_REQUEST", "Not Found"));
    }
    if request.method != "POST" {
        return Some(error(405, "BAD_REQUEST", "Method Not Allowed"));
    }
    let query = request.query.as_deref().unwrap_or_default();
    let key = form_urlencoded::parse(query.as_bytes()).find(|(name, _)| name == "api_key").map(|(_, key)| key);
    match key.as_deref() {
        Some(BOT_KEY) => {}
        Some(DEACTIVATED_KEY) => return Some(error(401, "USER_DEACTIVATED", "Account is deactivated")),
        Some(_) => return Some(error(401, "INVALID_API_KEY", "Invalid API key")),
        None => return Some(error(401, "UNAUTHORIZED", "Missing 'api_key' argument")),
    }
    if !request.content_type_is("application/json") || !request.json().is_object() {
        return Some(error(400, "BAD_REQUEST", "Malformed JSON"));
    }
    None
}
