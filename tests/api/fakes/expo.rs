//! Expo's push API, `POST /--/api/v2/push/send` (https://docs.expo.dev/push-notifications/sending-notifications/):
//! JSON, one message or an array of at most 100, each with a `to`; a bearer access token when one is
//! sent (a wrong one is refused). `200 {"data": [ticket, …]}`, a ticket per message in order:
//! `{"status": "ok", "id"}` or `{"status": "error", "message", "details": {"error"}}` (a malformed or
//! unknown token is `DeviceNotRegistered`). Request-level errors: `{"errors": [{"code", "message"}]}`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const ACCESS_TOKEN: &str = "expo-access-token-test";

/// The fake and the ticket errors some device tokens get.
pub struct Expo {
    pub api: FakeProvider,
    ticket_errors: Arc<Mutex<HashMap<String, (String, String)>>>,
}

impl Expo {
    pub async fn start() -> Self {
        let ticket_errors: Arc<Mutex<HashMap<String, (String, String)>>> = Arc::default();
        let errors = ticket_errors.clone();
        let api = FakeProvider::start(check, move |request| {
            let errors = errors.lock().unwrap();
            let tickets: Vec<Value> = messages(&request.json())
                .iter()
                .map(|message| {
                    let token = message["to"].as_str().unwrap_or_default();
                    if let Some((code, text)) = errors.get(token) {
                        return json!({"status": "error", "message": text, "details": {"error": code, "expoPushToken": token}});
                    }
                    if !is_expo_token(token) {
                        return json!({"status": "error", "message": format!("\"{token}\" is not a valid Expo push token"),
                                      "details": {"error": "DeviceNotRegistered"}});
                    }
                    json!({"status": "ok", "id": uuid::Uuid::new_v4()})
                })
                .collect();
            FakeAnswer::json(200, json!({"data": tickets}))
        })
        .await;
        Self { api, ticket_errors }
    }

    /// Credentials with the access token and `baseUrl` at the fake.
    pub fn credentials(&self) -> Value {
        json!({"apiKey": ACCESS_TOKEN, "baseUrl": self.api.base_url()})
    }

    /// Messages to `token` get an error ticket: `code` in `details.error`, `message` beside it.
    pub fn ticket_error(&self, token: &str, code: &str, message: &str) {
        self.ticket_errors.lock().unwrap().insert(token.to_owned(), (code.to_owned(), message.to_owned()));
    }

    /// `token` belongs to an app that was uninstalled.
    pub fn unregister(&self, token: &str) {
        self.ticket_error(
            token,
            "DeviceNotRegistered",
            &format!("\"{token}\" is not a registered push notification recipient"),
        );
    }
}

/// A request-level error.
pub fn errors(status: u16, code: &str, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"errors": [{"code": code, "message": message}]}))
}

/// The messages of a body: an array, or one message.
fn messages(body: &Value) -> Vec<Value> {
    match body {
        Value::Array(messages) => messages.clone(),
        message => vec![message.clone()],
    }
}

/// The SDK's `isExpoPushToken`.
fn is_expo_token(token: &str) -> bool {
    let bracketed =
        (token.starts_with("ExponentPushToken[") || token.starts_with("ExpoPushToken[")) && token.ends_with(']');
    bracketed || (token.len() == 36 && uuid::Uuid::try_parse(token).is_ok())
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "POST" || request.path != "/--/api/v2/push/send" {
        return Some(errors(404, "NOT_FOUND", "Not found."));
    }
    if let Some(authorization) = request.header("authorization") {
        if authorization != format!("Bearer {ACCESS_TOKEN}") {
            return Some(FakeAnswer::json(
                401,
                json!({"error": "invalid_token", "error_description": "The bearer token is invalid"}),
            ));
        }
    }
    if !request.content_type_is("application/json") {
        return Some(errors(400, "API_ERROR", "\"value\" must be of type object."));
    }
    let body = request.json();
    if !(body.is_array() || body.is_object()) {
        return Some(errors(400, "VALIDATION_ERROR", "\"value\" must be an array or an object."));
    }
    let messages = messages(&body);
    if messages.len() > 100 {
        return Some(errors(
            400,
            "PUSH_TOO_MANY_NOTIFICATIONS",
            "You are trying to send more than 100 push notifications in one request.",
        ));
    }
    if let Some(index) = messages.iter().position(|message| !message["to"].is_string()) {
        return Some(errors(400, "VALIDATION_ERROR", &format!("\"[{index}].to\" is required.")));
    }
    if let Some(index) = messages.iter().position(|message| !message["data"].is_null() && !message["data"].is_object())
    {
        return Some(errors(400, "VALIDATION_ERROR", &format!("\"[{index}].data\" must be of type object.")));
    }
    None
}
