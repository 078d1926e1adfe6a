//! `whatsapp-business` (the WhatsApp Cloud API), a chat provider that sends to the subscriber's
//! **phone** (its profile field, not a channel credential): `POST {baseUrl | https://graph.facebook.com}
//! /v22.0/<phoneNumberIdentification>/messages` with `Authorization: Bearer <apiToken>` and JSON
//! `{"messaging_product": "whatsapp", "recipient_type": "individual", "to": <phone>, "type": "text",
//! "text": {"body": <content>, "preview_url": false}}`. Credentials: `apiToken` and
//! `phoneNumberIdentification` (the sender's phone number id).
//!
//! A `template` in the trigger's `overrides.chat`/`overrides["whatsapp-business"]` is sent instead
//! (`"type": "template"`, the object passed through as given), as is any one of `interactive`, `image`,
//! `document`, `video`, `audio`, `location`, `contacts` or `sticker` (the first one given, in that order).
//!
//! Success: `200 {"messages": [{"id": "wamid…"}]}`, the wamid recorded. A 200 means accepted, not
//! delivered: an undeliverable number (131026) or a closed 24-hour window (131047) usually comes later,
//! through the status webhook, which Herald does not read. Errors are `{"error": {"message", "code",
//! "error_subcode"?, "error_data": {"details"}}}`, sorted by `code` as Meta asks, not by HTTP status:
//! - 1, 2, 4, 80007, 130429, 131000, 131016, 131048, 131056: transient (rate limits, service errors);
//! - 0, 190 (the token), 10 and 200–299 (permissions), and 100 with subcode 33 (no such phone number id):
//!   the integration is misconfigured;
//! - everything else (100, 131008, 131009, 131026, 131030, 131047, 132000, 132001, 368…): permanent. A
//!   synchronous 131026 is not taken as a dead destination: it also means an outdated app, and the phone
//!   is the subscriber's profile field, which Herald does not delete.

use serde_json::{json, Value};

use super::account::required;
use super::chat::custom_data;
use super::endpoint::endpoint;
use super::http::{noted, ErrorKind, HttpAnswer};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "whatsapp-business";
const API: &str = "https://graph.facebook.com";
const VERSION: &str = "v22.0";
/// The message types taken from the overrides, besides `template`, in the order they are looked for.
const TYPES: &[&str] =
    &["template", "interactive", "image", "document", "video", "audio", "location", "contacts", "sticker"];

pub(crate) struct WhatsappBusiness {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for WhatsappBusiness {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let token = required(ID, credentials, "apiToken")?;
        let sender = required(ID, credentials, "phoneNumberIdentification")?;
        if !sender.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(ProviderError::misconfigured(format!(
                "{ID} `phoneNumberIdentification` (the phone number id) must be digits"
            )));
        }
        let Some(phone) = delivery.to.phone.as_deref().filter(|phone| !phone.is_empty()) else {
            return Err(ProviderError::permanent(format!("{ID}: the subscriber has no phone number")));
        };
        let url = endpoint(ID, credentials, API, &format!("/{VERSION}/{sender}/messages"), &self.http.settings)?;
        let answer =
            self.http.fetch(ID, self.http.client.post(url).bearer_auth(token).json(&body(delivery, phone))).await?;
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        if answer.status.is_success() {
            return match json["messages"][0]["id"].as_str().filter(|id| !id.is_empty()) {
                Some(id) => Ok(answer.body.accepted_as(Some(id.to_owned()))),
                None => Err(answer.error_saying(ID, ErrorKind::Permanent, Some("no message id".to_owned()))),
            };
        }
        Err(error(&answer, &json["error"]))
    }
}

fn body(delivery: &Delivery, phone: &str) -> Value {
    let data = custom_data(delivery);
    let mut body = json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone});
    match TYPES.iter().find_map(|kind| data.get(*kind).filter(|value| !value.is_null()).map(|value| (kind, value))) {
        Some((kind, value)) => {
            body["type"] = json!(kind);
            body[*kind] = value.clone();
        }
        None => {
            body["type"] = json!("text");
            body["text"] = json!({"body": delivery.content, "preview_url": false});
        }
    }
    body
}

fn error(answer: &HttpAnswer, error: &Value) -> ProviderError {
    let code = error["code"].as_i64();
    let kind = match (code, error["error_subcode"].as_i64()) {
        (Some(1 | 2 | 4 | 80007 | 130429 | 131000 | 131016 | 131048 | 131056), _) => ErrorKind::Transient,
        (Some(0 | 10 | 190 | 200..=299), _) | (Some(100), Some(33)) => ErrorKind::Misconfigured,
        (Some(_), _) => ErrorKind::Permanent,
        (None, _) => ErrorKind::of_status(answer.status),
    };
    let text = match (error["message"].as_str(), error["error_data"]["details"].as_str()) {
        (Some(message), Some(details)) if !details.is_empty() => Some(format!("{message}: {details}")),
        (Some(message), _) => Some(message.to_owned()),
        (None, _) => answer.error_text(&[]),
    };
    let err = answer.error_saying(ID, kind, text);
    match code {
        Some(131047) => noted(err, "the 24-hour window is closed: send a template"),
        _ => err,
    }
}
