//! `resend`: `POST {baseUrl | https://api.resend.com}/emails` with `Authorization: Bearer <apiKey>` and
//! a JSON body `{from, to, subject, html, text, cc, bcc, reply_to, headers}`. The message id goes in
//! `Idempotency-Key`, so a retry after a lost answer is not sent twice. Success: `200 {"id"}`; errors:
//! `{"statusCode", "name", "message"}`.

use serde_json::{json, Map, Value};

use super::account::required;
use super::endpoint::endpoint;
use super::registry::Http;
use super::{Accepted, Delivery, EmailMessage, Provider, ProviderError};

const ID: &str = "resend";
const API: &str = "https://api.resend.com";

pub(crate) struct Resend {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Resend {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let api_key = required(ID, credentials, "apiKey")?;
        let email = EmailMessage::of(delivery)?;
        let url = endpoint(ID, credentials, API, "/emails", &self.http.settings)?;
        let mut body = json!({
            "from": email.from.formatted(),
            "to": email.to,
            "subject": email.subject,
            "html": email.html,
            "text": email.text,
        });
        if !email.cc.is_empty() {
            body["cc"] = json!(email.cc);
        }
        if !email.bcc.is_empty() {
            body["bcc"] = json!(email.bcc);
        }
        if let Some(reply_to) = &email.reply_to {
            body["reply_to"] = json!(reply_to);
        }
        if !email.headers.is_empty() {
            let headers: Map<String, Value> =
                email.headers.iter().map(|(name, value)| (name.clone(), json!(value))).collect();
            body["headers"] = Value::Object(headers);
        }
        let request = self
            .http
            .client
            .post(url)
            .bearer_auth(api_key)
            .header("Idempotency-Key", delivery.message_id.to_string())
            .json(&body);
        Ok(self.http.fetch(ID, request).await?.sorted(ID, &["message"])?.accepted("id"))
    }
}
