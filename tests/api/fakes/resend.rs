//! Resend's `POST /emails` (https://resend.com/docs/api-reference/emails/send-email): bearer API key,
//! JSON, `from`, `to` and `subject` required; `200 {"id"}`; errors `{"statusCode", "name", "message"}`.

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const API_KEY: &str = "re_test_key";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| FakeAnswer::json(200, json!({"id": uuid::Uuid::new_v4()}))).await
}

pub fn error(status: u16, name: &str, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"statusCode": status, "name": name, "message": message}))
}

/// The 429 Resend answers when the rate limit is hit.
pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    error(429, "rate_limit_exceeded", "Too many requests. You can only make 2 requests per second.")
        .with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "POST" || request.path != "/emails" {
        return Some(error(404, "not_found", "The requested endpoint does not exist."));
    }
    match request.header("authorization") {
        None => return Some(error(401, "missing_api_key", "Missing API key in the authorization header.")),
        Some(value) if value != format!("Bearer {API_KEY}") => {
            return Some(error(403, "invalid_api_key", "API key is invalid"))
        }
        Some(_) => {}
    }
    if !request.content_type_is("application/json") {
        return Some(error(400, "validation_error", "Invalid content type."));
    }
    let body = request.json();
    for field in ["from", "to", "subject"] {
        if body[field].is_null() {
            return Some(error(422, "missing_required_field", &format!("Missing `{field}` field.")));
        }
    }
    let key = request.header("idempotency-key").unwrap_or_default();
    if key.len() > 256 {
        return Some(error(400, "invalid_idempotency_key", "The key must be between 1-256 chars."));
    }
    if !matches!(&body["to"], Value::Array(to) if !to.is_empty() && to.len() <= 50) {
        return Some(error(422, "validation_error", "Invalid `to` field."));
    }
    None
}
