//! `msteams`: `POST <webhookUrl>` (the subscriber's webhook, else the integration's): a Teams Workflows
//! webhook ("When a Teams webhook request is received"), which takes Adaptive Cards only; the retired
//! Office 365 connectors' MessageCard is not sent. The message goes as
//! `{"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive",
//! "content": {"type": "AdaptiveCard", "version": "1.4", "body": [{"type": "TextBlock", "text", "wrap": true}]}}]}`,
//! unless the content is itself a JSON object with `type` or `attachments` (a card the workflow's author
//! wrote): that goes as it is, as the reference service does. No trigger `customData`: its fields have no
//! place in a Teams message.
//!
//! Success: `202 Accepted` (a Workflows trigger answers before its flow runs) or `200` (legacy connectors).
//! The id recorded is the flow run's `x-ms-workflow-run-id` header, which finds the run in the flow's
//! history, else `x-ms-request-id` or (connectors) `request-id`. Errors are Logic Apps' JSON
//! `{"error": {"code", "message"}}`: `404` is a deleted flow (a dead destination); `429` (`Retry-After`)
//! and 5xx are transient; `400`, and `401`/`403` for a bad `sig` in the URL, are permanent. (As for every
//! chat webhook, a gone or refusing webhook that is the integration's makes it misconfigured instead: see
//! `chat::Owner`.)

use serde_json::{json, Value};

use super::chat::Webhook;
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "msteams";
/// The answer headers that name the request, best first.
const ID_HEADERS: [&str; 3] = ["x-ms-workflow-run-id", "x-ms-request-id", "request-id"];

pub(crate) struct MsTeams {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for MsTeams {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(ID, delivery)?;
        let answer = self.http.fetch(ID, self.http.client.post(webhook.url).json(&message(&delivery.content))).await?;
        if answer.status.is_success() {
            let id = ID_HEADERS.iter().find_map(|name| answer.header(name));
            return Ok(answer.body.accepted_as(id));
        }
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let kind = match answer.status.as_u16() {
            404 => ErrorKind::DeadDestination,
            _ => ErrorKind::of_status(answer.status),
        };
        let text =
            coded(json["error"]["code"].as_str(), json["error"]["message"].as_str()).or_else(|| answer.error_text(&[]));
        Err(answer.error_saying(ID, webhook.owner.kind(kind), text))
    }
}

/// The Teams message for `content`: the content itself when it is one already, else a one-text card.
fn message(content: &str) -> Value {
    match serde_json::from_str::<Value>(content) {
        Ok(Value::Object(message)) if message.contains_key("type") || message.contains_key("attachments") => {
            Value::Object(message)
        }
        _ => json!({
            "type": "message",
            "attachments": [{
                "contentType": "application/vnd.microsoft.card.adaptive",
                "content": {
                    "type": "AdaptiveCard",
                    "version": "1.4",
                    "body": [{"type": "TextBlock", "text": content, "wrap": true}],
                },
            }],
        }),
    }
}
