//! The Vonage SMS API, `POST /sms/json` (https://developer.vonage.com/en/api/sms): `api_key` and
//! `api_secret` in the JSON body with `from`, `to` and `text`. It answers `200` whatever happened:
//! `{"message-count", "messages": [{"status": "0", "message-id", …}]}` when sent, else a non-zero
//! `status` with `error-text` (statuses from Vonage's SmsStatusCode).

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const API_KEY: &str = "a1b2c3d4";
pub const API_SECRET: &str = "VonageTestSecret1";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |request| {
        let to = request.json()["to"].as_str().unwrap_or_default().to_owned();
        FakeAnswer::json(
            200,
            json!({"message-count": "1", "messages": [{"to": to, "message-id": format!("{:X}", rand_id()),
                   "status": "0", "remaining-balance": "3.14159265", "message-price": "0.03330000",
                   "network": "12345"}]}),
        )
    })
    .await
}

fn rand_id() -> u64 {
    uuid::Uuid::new_v4().as_u64_pair().0 >> 4
}

/// Vonage's failure: HTTP 200 with a non-zero status.
pub fn failed(status: &str, error_text: &str) -> FakeAnswer {
    FakeAnswer::json(200, json!({"message-count": "1", "messages": [{"status": status, "error-text": error_text}]}))
}

pub fn throttled() -> FakeAnswer {
    failed("1", "Throughput Rate Exceeded - please wait [ 1000 ] and retry")
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.path != "/sms/json" {
        return Some(FakeAnswer::text(404, "Not Found"));
    }
    if request.method != "POST" {
        return Some(FakeAnswer::text(405, "Method Not Allowed"));
    }
    let body = if request.content_type_is("application/json") { request.json() } else { Value::Null };
    let field = |name: &str| body[name].as_str().filter(|value| !value.is_empty());
    for name in ["api_key", "api_secret"] {
        if field(name).is_none() {
            return Some(failed("2", &format!("Missing {name}")));
        }
    }
    if field("api_key") != Some(API_KEY) || field("api_secret") != Some(API_SECRET) {
        return Some(failed("4", "Bad Credentials"));
    }
    for name in ["from", "to", "text"] {
        if field(name).is_none() {
            return Some(failed("2", &format!("Missing {name} param")));
        }
    }
    if !field("to").unwrap_or_default().bytes().all(|byte| byte.is_ascii_digit()) {
        return Some(failed("3", "Invalid to address"));
    }
    if !matches!(body.get("type").and_then(Value::as_str), None | Some("text" | "unicode" | "binary")) {
        return Some(failed("3", "Invalid value for param: type"));
    }
    None
}
