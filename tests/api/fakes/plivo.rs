//! Plivo's `POST /v1/Account/{auth_id}/Message/` (https://www.plivo.com/docs/messaging/api/message#send-a-message):
//! Basic `auth_id:auth_token`, JSON `{src, dst, text}`; `202 {"api_id", "message": "message(s) queued",
//! "message_uuid": [...]}`; errors `{"api_id", "error"}` (400 invalid, 401 authentication, 429, 5xx).

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const AUTH_ID: &str = "MAXXXXXXXXXXXXXXXXXX";
pub const AUTH_TOKEN: &str = "plivo-test-auth-token";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| {
        FakeAnswer::json(
            202,
            json!({"api_id": uuid::Uuid::new_v4(), "message": "message(s) queued",
                   "message_uuid": [uuid::Uuid::new_v4()]}),
        )
    })
    .await
}

pub fn error(status: u16, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"api_id": uuid::Uuid::new_v4(), "error": message}))
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(account) = request.path.strip_prefix("/v1/Account/").and_then(|rest| rest.strip_suffix("/Message/"))
    else {
        return Some(error(404, "not found"));
    };
    if request.method != "POST" {
        return Some(error(405, "method not allowed"));
    }
    if request.basic_auth() != Some((AUTH_ID.to_owned(), AUTH_TOKEN.to_owned())) || account != AUTH_ID {
        return Some(error(401, "Authentication failed"));
    }
    if !request.content_type_is("application/json") {
        return Some(error(400, "Content-Type must be application/json"));
    }
    let body = request.json();
    for field in ["src", "dst", "text"] {
        if !matches!(&body[field], Value::String(value) if !value.is_empty()) {
            return Some(error(400, &format!("Missing mandatory parameter: {field}")));
        }
    }
    None
}
