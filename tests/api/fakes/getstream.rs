//! Stream Chat's `POST /channels/{type}/{id}/message?api_key=…`
//! (https://getstream.io/chat/docs/rest/#messages-sendmessage): a server token (a JWT signed HS256 with the
//! app's secret) in `Authorization` with `stream-auth-type: jwt`, JSON `{"message": {"text", "user_id",
//! …}}`; success `201 {"message": {"id", "text", "type": "regular", "user", "cid", …}, "duration"}`.
//! Errors are `{"code", "message", "StatusCode", "duration", "more_info"}`
//! (https://getstream.io/chat/docs/node/api_errors_response/): a wrong key or a bad signature is `401`
//! code 5 (`AuthenticationError`), a channel that does not exist `404` code 16 (`DoesNotExist`), a
//! message without user `400` code 4 (`InputError`). Tests script [`rate_limited`] and 5xx.
//!
//! The reference service's wire shape is a generic POST to a relay: [`start_relay`] answers it.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::hmac;
use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const API_KEY: &str = "mmhfdzb5evj2";
pub const SECRET: &str = "t9pv4qd2n3f8wxk6r7ybz5m2hjc8sa4e6ugx3vq9w7npk2rf5tdy8mzbc4hs6xj";
pub const USER_ID: &str = "herald-bot";
pub const CHANNEL_TYPE: &str = "messaging";
pub const CHANNEL_ID: &str = "orders";
/// The subscriber's `channel` credential for [`CHANNEL_TYPE`]/[`CHANNEL_ID`].
pub const CID: &str = "messaging:orders";
pub const PATH: &str = "/channels/messaging/orders/message";
pub const MESSAGE_ID: &str = "5b2f1c1e-9e0a-4c55-a1c2-8f3b7e0c2d41";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |request| {
        let message = &request.json()["message"];
        FakeAnswer::json(
            201,
            json!({"message": {"id": MESSAGE_ID, "text": message["text"], "type": "regular",
                               "cid": CID, "user": {"id": message["user_id"], "role": "user"},
                               "created_at": "2026-11-24T10:45:00.000000Z", "attachments": [],
                               "mentioned_users": []},
                   "duration": "12.34ms"}),
        )
    })
    .await
}

/// Stream's error body.
pub fn error(status: u16, code: u16, message: &str) -> FakeAnswer {
    FakeAnswer::json(
        status,
        json!({"code": code, "message": message, "StatusCode": status, "duration": "0.00ms",
               "more_info": "https://getstream.io/chat/docs/api_errors_response"}),
    )
}

/// Stream's rate limiter: `429` code 9 with `X-RateLimit-Reset` (a Unix time in seconds).
pub fn rate_limited(reset_unix_seconds: u64) -> FakeAnswer {
    error(429, 9, "Too many requests, check response headers for more information.")
        .with_header("X-RateLimit-Limit", "60")
        .with_header("X-RateLimit-Remaining", "0")
        .with_header("X-RateLimit-Reset", &reset_unix_seconds.to_string())
}

/// Whether `token` is a JWT HS256-signed with [`SECRET`] whose claims say `server: true`.
pub fn is_server_token(token: &str) -> bool {
    let Some((input, signature)) = token.rsplit_once('.') else { return false };
    let Some((header, claims)) = input.split_once('.') else { return false };
    let decoded = |part: &str| URL_SAFE_NO_PAD.decode(part).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let (Some(header), Some(claims), Ok(signature)) =
        (decoded(header), decoded(claims), URL_SAFE_NO_PAD.decode(signature))
    else {
        return false;
    };
    let header: Value = header;
    let claims: Value = claims;
    header["alg"] == "HS256"
        && claims["server"] == json!(true)
        && hmac::verify(&hmac::Key::new(hmac::HMAC_SHA256, SECRET.as_bytes()), input.as_bytes(), &signature).is_ok()
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(channel) = request.path.strip_prefix("/channels/").and_then(|rest| rest.strip_suffix("/message")) else {
        return Some(error(404, 16, "the resource does not exist"));
    };
    if request.method != "POST" {
        return Some(error(405, 4, "method not allowed"));
    }
    if request.query.as_deref() != Some(&format!("api_key={API_KEY}")) {
        return Some(error(401, 5, "api_key not valid"));
    }
    let token_ok = request.header("authorization").is_some_and(is_server_token);
    if request.header("stream-auth-type") != Some("jwt") || !token_ok {
        return Some(error(401, 5, "JWTAuth error: signature is not valid. Make sure the token is created using the secret for API key \"mmhfdzb5evj2\""));
    }
    let body = request.json();
    let message = &body["message"];
    if !request.content_type_is("application/json") || !message["text"].is_string() {
        return Some(error(400, 4, "SendMessage failed with error: \"message.text is required\""));
    }
    if message["user_id"] != USER_ID {
        return Some(error(400, 4, "SendMessage failed with error: \"either message.user or message.user_id must be provided when using server side auth.\""));
    }
    if channel != format!("{CHANNEL_TYPE}/{CHANNEL_ID}") {
        return Some(error(
            404,
            16,
            &format!(
                "GetOrCreateChannel failed with error: \"Can't find channel with id {}\"",
                channel.replace('/', ":")
            ),
        ));
    }
    None
}

/// A relay for the reference service's generic POST: `{"text", "headers": {"X-API-KEY"}}` at `/relay`,
/// answered `200 {"ok": true}`; a key other than [`API_KEY`] is refused `401`.
pub async fn start_relay() -> FakeProvider {
    FakeProvider::start(
        |request| {
            if request.path != "/relay" || request.method != "POST" {
                return Some(FakeAnswer::json(404, json!({"message": "not found"})));
            }
            let body = request.json();
            if body["headers"]["X-API-KEY"] != API_KEY || !body["text"].is_string() {
                return Some(FakeAnswer::json(401, json!({"message": "invalid api key"})));
            }
            None
        },
        |_| FakeAnswer::json(200, json!({"ok": true})),
    )
    .await
}
