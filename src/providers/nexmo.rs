//! `nexmo` (the Vonage SMS API): `POST {baseUrl | https://rest.nexmo.com}/sms/json` with JSON
//! `{api_key, api_secret, from, to, text}` (`apiKey`, `secretKey`; the sender is `overrides.sms.from`, else
//! the integration's `from`). Numbers go without their leading `+`, as Vonage writes E.164; a text beyond
//! ASCII is sent as `type: unicode`, which Vonage otherwise mangles into `?`.
//!
//! Vonage answers `200` whether or not it sent: `{"message-count", "messages": [{"status", "message-id",
//! "error-text", …}]}`, success when `messages[0].status` is `"0"`. Status 1 (throttled) and 5 (internal
//! error) pass on a retry; 4 (invalid credentials) and 14 (invalid signature) are a refused integration;
//! every other status is permanent, quoted with Vonage's `error-text`.

use serde_json::{json, Value};

use super::account::required;
use super::answer::dotted;
use super::endpoint::endpoint;
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError, SmsMessage};

const ID: &str = "nexmo";
const API: &str = "https://rest.nexmo.com";

pub(crate) struct Nexmo {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Nexmo {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let api_key = required(ID, credentials, "apiKey")?;
        let api_secret = required(ID, credentials, "secretKey")?;
        let sms = SmsMessage::of(delivery)?;
        let from = sms.required_from(ID)?;
        let url = endpoint(ID, credentials, API, "/sms/json", &self.http.settings)?;
        let mut body = json!({
            "api_key": api_key,
            "api_secret": api_secret,
            "from": without_plus(from),
            "to": without_plus(&sms.to),
            "text": sms.text,
        });
        if !sms.text.is_ascii() {
            body["type"] = json!("unicode");
        }
        let answer = self.http.fetch(ID, self.http.client.post(url).json(&body)).await?;
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let status = dotted(&json, "messages.0.status").and_then(Value::as_str);
        let kind = match status {
            // Not Vonage's 200 answer: sorted by its HTTP status.
            None | Some("0") => {
                return Ok(answer.sorted(ID, &["error-text", "title"])?.accepted("messages.0.message-id"))
            }
            Some("1" | "5") => ErrorKind::Transient,
            Some("4" | "14") => ErrorKind::Misconfigured,
            Some(_) => ErrorKind::Permanent,
        };
        let status = status.map(|status| format!("status {status}"));
        let text = coded(status.as_deref(), dotted(&json, "messages.0.error-text").and_then(Value::as_str));
        Err(answer.error_saying(ID, kind, text))
    }
}

/// A `+E.164` number as Vonage writes it (without the `+`); an alphanumeric sender as it is.
fn without_plus(number: &str) -> &str {
    match number.strip_prefix('+') {
        Some(digits) if digits.bytes().all(|byte| byte.is_ascii_digit()) => digits,
        _ => number,
    }
}
