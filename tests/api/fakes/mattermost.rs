//! A Mattermost incoming webhook, `POST /hooks/{id}` (https://developers.mattermost.com/integrate/webhooks/incoming/),
//! answering as Mattermost's server code does (`web/webhook.go`, `App::HandleIncomingWebhook`): JSON with
//! `text` (or `attachments`) and an optional `channel` (a channel name or `@username`); `200 ok` as
//! text, with an `X-Request-Id` header. Errors are `{"id", "message", "detailed_error", "request_id",
//! "status_code"}`: `400 web.incoming_webhook.decode.app_error` (a body it cannot read), `400
//! web.incoming_webhook.text.app_error` (no text), `400 web.incoming_webhook.invalid.app_error` (no such
//! hook: deleted, or never was), `404 web.incoming_webhook.channel.app_error` (an unknown `channel`).
//! Tests script the others (`501 web.incoming_webhook.disabled.app_error`, [`rate_limited`], 5xx).

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const HOOK_ID: &str = "x6g9f3wq5pbuzq9tnkd5ca7pyh";
/// The channels of the hook's team, by name.
pub const CHANNELS: [&str; 2] = ["town-square", "ops-alerts"];
const REQUEST_ID: &str = "p4k8m1ctrfbx7q3ynzw6d9ahse";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| FakeAnswer::text(200, "ok").with_header("x-request-id", REQUEST_ID)).await
}

/// The hook's URL at `fake`.
pub fn webhook_url(fake: &FakeProvider) -> String {
    format!("{}/hooks/{HOOK_ID}", fake.base_url())
}

pub fn error(status: u16, id: &str, message: &str) -> FakeAnswer {
    FakeAnswer::json(
        status,
        json!({"id": id, "message": message, "detailed_error": "", "request_id": REQUEST_ID, "status_code": status}),
    )
    .with_header("x-request-id", REQUEST_ID)
}

/// Mattermost's rate limiter (`app/ratelimit.go`): a plain-text 429 with its `X-RateLimit-*` headers and
/// `Retry-After`.
pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    FakeAnswer::text(429, "limit exceeded\n")
        .with_header("x-ratelimit-limit", "10")
        .with_header("x-ratelimit-remaining", "0")
        .with_header("x-ratelimit-reset", retry_after)
        .with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(hook) = request.path.strip_prefix("/hooks/") else {
        return Some(error(404, "api.context.404.app_error", "Sorry, we could not find the page."));
    };
    if request.method != "POST" {
        return Some(error(405, "api.context.405.app_error", "Method not allowed."));
    }
    // Mattermost reads a form's `payload` field, else the body as JSON; this fake only knows JSON.
    let body = request.json();
    if !request.content_type_is("application/json") || !body.is_object() {
        return Some(error(400, "web.incoming_webhook.decode.app_error", "Unable to decode the incoming data."));
    }
    if body["text"].as_str().unwrap_or_default().is_empty() && body["attachments"].is_null() {
        return Some(error(400, "web.incoming_webhook.text.app_error", "No text specified."));
    }
    if hook != HOOK_ID {
        return Some(error(400, "web.incoming_webhook.invalid.app_error", "Invalid webhook."));
    }
    if let Some(channel) = body["channel"].as_str().filter(|channel| !channel.is_empty()) {
        let known = channel.starts_with('@') || CHANNELS.contains(&channel.trim_start_matches('#'));
        if !known {
            return Some(error(404, "web.incoming_webhook.channel.app_error", "Couldn't find the channel."));
        }
    }
    None
}
