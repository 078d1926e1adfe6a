//! Pushpad's `POST /api/v1/projects/<project id>/notifications` (https://pushpad.xyz/docs/rest_api):
//! `Authorization: Token token="<auth token>"`, a JSON body `{"notification": {"body", "title"?, …},
//! "uids"?: [...]}`. Success is `201 {"id", "scheduled", "uids"}`, where `uids` lists only the uids that
//! have a subscription (those made by [`unsubscribed_uid`] have none, and Pushpad leaves them out).
//! Errors: `{"error": "…"}`; a wrong token is 401, an unknown project 404, a body without
//! `notification.body` 422.

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const PROJECT_ID: &str = "7023";
pub const AUTH_TOKEN: &str = "5374d7dfeffa2eb49965624ba7596a09";
pub const UNAUTHORIZED: &str = "Unauthorized";

const UNSUBSCRIBED: &str = "gone-";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, created).await
}

pub fn error(status: u16, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"error": message}))
}

pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    error(429, "Too Many Requests").with_header("retry-after", retry_after)
}

/// A uid of a user with a subscription.
pub fn uid() -> String {
    format!("user-{}", uuid::Uuid::new_v4().simple())
}

/// A uid Pushpad has no subscription for.
pub fn unsubscribed_uid() -> String {
    format!("{UNSUBSCRIBED}{}", uuid::Uuid::new_v4().simple())
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let path = format!("/api/v1/projects/{PROJECT_ID}/notifications");
    if request.method != "POST" || !request.path.starts_with("/api/v1/projects/") {
        return Some(error(404, "Not Found"));
    }
    if request.header("authorization") != Some(format!("Token token=\"{AUTH_TOKEN}\"").as_str()) {
        return Some(error(401, UNAUTHORIZED));
    }
    if request.path != path {
        return Some(error(404, "Project not found"));
    }
    if !request.content_type_is("application/json") || request.header("accept") != Some("application/json") {
        return Some(error(406, "Not Acceptable"));
    }
    let body = request.json();
    if body["notification"]["body"].as_str().is_none_or(str::is_empty) {
        return Some(error(422, "body can't be blank"));
    }
    if !body["uids"].is_array() {
        return Some(error(422, "uids must be a list"));
    }
    None
}

fn created(request: &Recorded) -> FakeAnswer {
    let body = request.json();
    let subscribed: Vec<&str> = body["uids"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|uid| !uid.starts_with(UNSUBSCRIBED))
        .collect();
    FakeAnswer::json(201, json!({"id": 197123, "scheduled": subscribed.len(), "uids": subscribed}))
}
