//! A Rocket.Chat server's `POST /api/v1/chat.sendMessage` (https://developer.rocket.chat/apidocs/send-message):
//! headers `X-Auth-Token` and `X-User-Id` (a personal access token and its user), JSON
//! `{"message": {"rid", "msg", …}}`; success `200 {"message": {"_id", "rid", "msg", "ts", "u", …},
//! "success": true}`. Errors: `401 {"status": "error", "message": "You must be logged in to do this."}`
//! (a wrong token or user), `400 {"success": false, "error", "errorType"}` with `error-invalid-room` (no
//! such room), `error-not-allowed` (the user is not in the room) or `error-invalid-params`. Tests script
//! [`rate_limited`] and 5xx.

use serde_json::json;

use super::{FakeAnswer, FakeProvider, Recorded};

pub const PATH: &str = "/api/v1/chat.sendMessage";
pub const TOKEN: &str = "9HqLlyZOugoStsXCUfD_0YdwnNnunAJF8V47U3QHXSq";
pub const USER_ID: &str = "aobEdbYhXfu5hkeqG";
pub const ROOM: &str = "GENERAL";
/// A room the token's user is not a member of.
pub const PRIVATE_ROOM: &str = "ByehQjC44FwMeiLbX";
pub const MESSAGE_ID: &str = "7aDSXtjMA3KPLxLjt";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |request| {
        let message = &request.json()["message"];
        FakeAnswer::json(
            200,
            json!({"message": {"_id": MESSAGE_ID, "rid": message["rid"], "msg": message["msg"],
                               "ts": "2026-11-24T10:45:00.000Z", "u": {"_id": USER_ID, "username": "herald"},
                               "_updatedAt": "2026-11-24T10:45:00.000Z"},
                   "success": true}),
        )
    })
    .await
}

pub fn failure(error_type: &str, error: &str) -> FakeAnswer {
    FakeAnswer::json(
        400,
        json!({"success": false, "error": format!("{error} [{error_type}]"), "errorType": error_type}),
    )
}

/// Rocket.Chat's API rate limiter (`API.v1.tooManyRequests`).
pub fn rate_limited(seconds: u64) -> FakeAnswer {
    let error = format!(
        "Error, too many requests. Please slow down. You must wait {seconds} seconds before trying this endpoint again. [error-too-many-requests]"
    );
    FakeAnswer::json(429, json!({"success": false, "error": error}))
        .with_header("x-ratelimit-limit", "10")
        .with_header("x-ratelimit-remaining", "0")
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.path != PATH {
        return Some(FakeAnswer::json(404, json!({"success": false, "error": "Not found"})));
    }
    if request.method != "POST" {
        return Some(FakeAnswer::json(405, json!({"success": false, "error": "Method not allowed"})));
    }
    if request.header("x-auth-token") != Some(TOKEN) || request.header("x-user-id") != Some(USER_ID) {
        return Some(FakeAnswer::json(401, json!({"status": "error", "message": "You must be logged in to do this."})));
    }
    let body = request.json();
    let message = &body["message"];
    if !request.content_type_is("application/json") || !message.is_object() {
        return Some(failure("error-invalid-params", "The 'message' parameter must be provided."));
    }
    match message["rid"].as_str() {
        Some(ROOM) => None,
        Some(PRIVATE_ROOM) => Some(failure("error-not-allowed", "Not allowed")),
        _ => Some(failure("error-invalid-room", "Invalid room")),
    }
}
