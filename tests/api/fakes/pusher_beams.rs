//! Pusher Beams' publish to users (https://pusher.com/docs/beams/reference/publish-api):
//! `POST /publish_api/v1/instances/<instance id>/publishes/users`, `Authorization: Bearer <secret key>`,
//! JSON `{"users": [1..=1000 ids of at most 164 chars], "apns"|"fcm"|"web": …}` (at least one platform).
//! Success: `200 {"publishId": "pubid-…"}`, whatever the users (Beams reports nothing per user).
//! Errors: `{"error", "description"}`; a wrong key is 401, an unknown instance 404.

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const INSTANCE_ID: &str = "8f9a6e22-2483-49aa-8552-125f1a4c5781";
pub const SECRET_KEY: &str = "C54D42FB7CD2D408DDB22D7A0166F1D";
pub const INCORRECT_KEY: &str = "Incorrect API Key";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, published).await
}

pub fn error(status: u16, error: &str, description: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"error": error, "description": description}))
}

pub fn rate_limited(retry_after: &str) -> FakeAnswer {
    error(429, "Too Many Requests", "Rate limit exceeded: max 100 RPS").with_header("retry-after", retry_after)
}

/// A Beams user id.
pub fn user_id() -> String {
    format!("user-{}", uuid::Uuid::new_v4().simple())
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(rest) = request.path.strip_prefix("/publish_api/v1/instances/") else {
        return Some(error(404, "Not Found", "Not Found"));
    };
    if request.method != "POST" {
        return Some(error(405, "Method Not Allowed", "Method Not Allowed"));
    }
    if rest != format!("{INSTANCE_ID}/publishes/users") {
        return Some(error(404, "Instance not found", "Could not find the instance"));
    }
    if request.header("authorization") != Some(format!("Bearer {SECRET_KEY}").as_str()) {
        return Some(error(401, "Unauthorized", INCORRECT_KEY));
    }
    if !request.content_type_is("application/json") {
        return Some(error(400, "Bad Request", "Content-Type must be application/json"));
    }
    let body = request.json();
    let Some(users) = body["users"].as_array().filter(|users| !users.is_empty()) else {
        return Some(error(400, "Bad Request", "Publish request must contain at least one user"));
    };
    if users.len() > 1000 {
        return Some(error(400, "Bad Request", "Publish request can contain at most 1000 users"));
    }
    if users.iter().any(|user| user.as_str().is_none_or(|user| user.is_empty() || user.chars().count() > 164)) {
        return Some(error(400, "Bad Request", "User ids must be 1 to 164 characters"));
    }
    if ["apns", "fcm", "web"].iter().all(|platform| body[platform].is_null()) {
        return Some(error(400, "Bad Request", "Publish request must contain an apns, fcm or web payload"));
    }
    None
}

fn published(_: &Recorded) -> FakeAnswer {
    FakeAnswer::json(200, json!({"publishId": format!("pubid-{}", uuid::Uuid::new_v4())}))
}
