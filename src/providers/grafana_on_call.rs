//! `grafana-on-call`: `POST <webhookUrl>` (the subscriber's Formatted Webhook integration,
//! `https://<oncall>/integrations/v1/formatted_webhook/<token>/`, else the integration's; the token in the
//! URL is the only authentication) with JSON
//! `{alert_uid, title, image_url, state, link_to_upstream_details, message, ...customData}`. `message` is
//! the text; the other fields are the subscriber's channel credentials (`alertUid`, `title`, `imageUrl`,
//! `state`, `externalUrl`), each falling back to the integration's (the same names; `externalLink`, the
//! reference service's name, or `externalUrl` for the link), and are left out when neither has one. All
//! alerts with one `alert_uid` group into one alert group, and `state: "ok"` resolves it.
//!
//! Success is `200` with the JSON string `"Ok."`, naming no alert: no id is recorded. Answers, as Grafana
//! OnCall's `UniversalAPIView` and its mixins give them:
//! - `403` "Integration key was not found. Permission denied.": the integration behind the URL is gone, a
//!   dead destination;
//! - `429` (300 alerts per 5 minutes per integration, 900 per organisation) comes with no `Retry-After`:
//!   transient, retried no sooner than a minute later;
//! - 5xx transient; anything else (`400` "This url is for integration with …", "Payload is required")
//!   permanent.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Map, Value};

use super::chat::{with_custom_data, Webhook};
use super::credentials::credential;
use super::http::ErrorKind;
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "grafana-on-call";
/// How long to wait after a 429 that names no wait: its limits count over five minutes.
const RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);

pub(crate) struct GrafanaOnCall {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for GrafanaOnCall {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(ID, delivery)?;
        let body = with_custom_data(alert(delivery), delivery);
        let answer = self.http.fetch(ID, self.http.client.post(webhook.url).json(&body)).await?;
        if answer.status.is_success() {
            return Ok(answer.body.accepted_as(None));
        }
        let kind = match answer.status {
            StatusCode::FORBIDDEN => ErrorKind::DeadDestination,
            status => ErrorKind::of_status(status),
        };
        let text = answer.error_text(&["detail"]);
        let mut err = answer.error_saying(ID, webhook.owner.kind(kind), text);
        if let ProviderError::Transient { retry_after: retry_after @ None, .. } = &mut err {
            if answer.status == StatusCode::TOO_MANY_REQUESTS {
                *retry_after = Some(RATE_LIMIT_WAIT);
            }
        }
        Err(err)
    }
}

/// The alert's fields: the subscriber's, else the integration's, those neither has left out.
fn alert(delivery: &Delivery) -> Value {
    let mine = &delivery.to.alert;
    let theirs = &delivery.credentials;
    let fields = [
        ("alert_uid", mine.alert_uid.as_deref(), credential(theirs, "alertUid")),
        ("title", mine.title.as_deref(), credential(theirs, "title")),
        ("image_url", mine.image_url.as_deref(), credential(theirs, "imageUrl")),
        ("state", mine.state.as_deref(), credential(theirs, "state")),
        (
            "link_to_upstream_details",
            mine.external_url.as_deref(),
            credential(theirs, "externalLink").or_else(|| credential(theirs, "externalUrl")),
        ),
    ];
    let mut body = Map::new();
    for (name, subscribers, integrations) in fields {
        if let Some(value) = subscribers.filter(|value| !value.is_empty()).or(integrations) {
            body.insert(name.to_owned(), json!(value));
        }
    }
    body.insert("message".to_owned(), json!(delivery.content));
    Value::Object(body)
}
