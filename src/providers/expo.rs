//! `expo`: Expo's push service. Every device token of a message goes in one request (up to 100 per
//! request, as Expo allows; more are split into requests sent at once), each with its own ticket.
//!
//! Credentials: `apiKey`, the project's access token, optional (needed once "enhanced push security" is
//! on), and the optional `baseUrl`.
//!
//! Request: `POST {baseUrl | https://exp.host}/--/api/v2/push/send` with `Authorization: Bearer <apiKey>`
//! when there is one, and an array of messages, one per token, in order:
//! `[{"to", "title", "body", "data", …}]`. `data` is the trigger's payload (Expo takes any JSON object),
//! then the overrides' `data`; the overrides (`overrides.push`, then `overrides.expo`) may also set
//! `title`, `subtitle`, `body`, `sound` (a name or Expo's object), `badge`, `ttl`, `expiration`,
//! `priority`, `channelId`, `categoryId`, `icon`, `richContent`, `mutableContent`, `interruptionLevel`
//! and `_contentAvailable`, sent as they are. Bodies go uncompressed: Expo's SDK gzips those over 1 KiB,
//! but Expo does not ask for it, and it would take a compression crate for a few kilobytes.
//!
//! Answer: `200 {"data": [ticket, …]}`, one ticket per message in order: `{"status": "ok", "id"}` is
//! accepted, the id recorded (it names the receipt); `{"status": "error", "message", "details":
//! {"error"}}` is sorted by `details.error`: `DeviceNotRegistered` (Expo's answer to a malformed token
//! too) is a dead token,
//! `MessageRateExceeded` transient, `InvalidCredentials` (the project's FCM or APNs credentials at Expo)
//! misconfigures the integration, anything else (`MessageTooBig`) is permanent. A request-level error,
//! `{"errors": [{"code", "message"}]}`, or no answer at all, is every token's, sorted by status.

use futures_util::future::join_all;
use reqwest::Url;
use serde_json::{json, Map, Value};

use super::credentials::credential;
use super::endpoint::endpoint;
use super::http::{coded, ErrorKind, HttpAnswer};
use super::push::{one_device_token, PushMessage};
use super::registry::Http;
use super::{Accepted, Delivery, DeviceAnswer, Provider, ProviderError};

const ID: &str = "expo";
const API: &str = "https://exp.host";
/// The most messages Expo takes in one request.
const CHUNK: usize = 100;
/// The override keys Expo reads, besides `title`, `body` and `data` (see the module docs and `push`).
const PASSED_ON: &[&str] = &[
    "subtitle",
    "sound",
    "badge",
    "ttl",
    "expiration",
    "priority",
    "channelId",
    "categoryId",
    "icon",
    "richContent",
    "mutableContent",
    "interruptionLevel",
    "_contentAvailable",
];

pub(crate) struct Expo {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Expo {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        one_device_token(ID, delivery)?;
        let mut answers = self.send_each(delivery).await;
        answers.pop().expect("one answer per token").answer
    }

    async fn send_each(&self, delivery: &Delivery) -> Vec<DeviceAnswer> {
        let tokens = &delivery.to.device_tokens;
        let answers = match endpoint(ID, &delivery.credentials, API, "/--/api/v2/push/send", &self.http.settings) {
            Ok(url) => {
                let template = template(delivery);
                let requests = tokens.chunks(CHUNK).map(|chunk| {
                    let messages = chunk.iter().map(|token| message(&template, token)).collect();
                    self.post(delivery, url.clone(), messages)
                });
                join_all(requests).await.into_iter().flatten().collect()
            }
            Err(err) => vec![Err(err); tokens.len()],
        };
        tokens.iter().zip(answers).map(|(token, answer)| DeviceAnswer { token: token.clone(), answer }).collect()
    }
}

impl Expo {
    /// One request: an answer per message, in order.
    async fn post(&self, delivery: &Delivery, url: Url, messages: Vec<Value>) -> Vec<Result<Accepted, ProviderError>> {
        let count = messages.len();
        let mut request = self.http.client.post(url).header("accept", "application/json").json(&messages);
        if let Some(api_key) = credential(&delivery.credentials, "apiKey") {
            request = request.bearer_auth(api_key);
        }
        match self.http.fetch(ID, request).await {
            Ok(answer) => tickets(answer, count),
            Err(err) => vec![Err(err); count],
        }
    }
}

/// Every field of the message but `to`.
fn template(delivery: &Delivery) -> Map<String, Value> {
    let push = PushMessage::of(delivery);
    let mut message = Map::new();
    if let Some(title) = &push.title {
        message.insert("title".into(), json!(title));
    }
    message.insert("body".into(), json!(push.body));
    message.insert("data".into(), Value::Object(push.data.clone()));
    message.extend(PASSED_ON.iter().filter_map(|key| Some((key.to_string(), push.value(key)?.clone()))));
    message
}

fn message(template: &Map<String, Value>, token: &str) -> Value {
    let mut message = Map::with_capacity(template.len() + 1);
    message.insert("to".into(), json!(token));
    message.extend(template.clone());
    Value::Object(message)
}

/// The answer to one request of `count` messages, per message.
fn tickets(answer: HttpAnswer, count: usize) -> Vec<Result<Accepted, ProviderError>> {
    let json = serde_json::from_str::<Value>(answer.body.text()).unwrap_or_default();
    let request_error = json["errors"][0].is_object() || !answer.status.is_success();
    if request_error {
        let error = &json["errors"][0];
        // Expo's gateway refuses a bad access token OAuth-style: `{"error", "error_description"}`.
        let text = coded(error["code"].as_str(), error["message"].as_str())
            .or_else(|| coded(json["error"].as_str(), json["error_description"].as_str()));
        let kind = if answer.status.is_success() { ErrorKind::Permanent } else { ErrorKind::of_status(answer.status) };
        return vec![Err(answer.error_saying(ID, kind, text)); count];
    }
    match json["data"].as_array() {
        Some(tickets) if tickets.len() == count => {
            tickets.iter().map(|ticket| sorted_ticket(&answer, ticket)).collect()
        }
        tickets => {
            let got = tickets.map_or("no".to_owned(), |tickets| tickets.len().to_string());
            let text = format!("expected {count} tickets, got {got}");
            vec![Err(answer.error_saying(ID, ErrorKind::Permanent, Some(text))); count]
        }
    }
}

fn sorted_ticket(answer: &HttpAnswer, ticket: &Value) -> Result<Accepted, ProviderError> {
    let raw = Some(ticket.to_string());
    if ticket["status"] == "ok" {
        let id = ticket["id"].as_str().map(str::to_owned);
        return Ok(Accepted { provider_message_id: id, raw });
    }
    let code = ticket["details"]["error"].as_str();
    let kind = match code {
        Some("DeviceNotRegistered") => ErrorKind::DeadDestination,
        Some("MessageRateExceeded") => ErrorKind::Transient,
        Some("InvalidCredentials") => ErrorKind::Misconfigured,
        _ => ErrorKind::Permanent,
    };
    let text = coded(code, ticket["message"].as_str()).unwrap_or_else(|| "an error ticket".to_owned());
    Err(kind.error(format!("{ID}: {text}"), raw, answer.retry_after()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::tests::delivery;

    #[test]
    fn the_message_takes_the_payload_as_data_and_the_known_overrides() {
        let mut push = delivery("expo", json!({}));
        push.overrides = json!({"push": {"sound": "default", "android": {"priority": "high"}, "badge": 1},
                                "expo": {"badge": 3, "data": {"extra": true}, "channelId": "orders"}});

        let message = message(&template(&push), "ExpoPushToken[a]");

        assert_eq!(
            message,
            json!({"to": "ExpoPushToken[a]", "title": "Hello", "body": "<p>Hi Ada</p>",
                   "data": {"plan": "pro", "extra": true}, "sound": "default", "badge": 3, "channelId": "orders"})
        );
    }
}
