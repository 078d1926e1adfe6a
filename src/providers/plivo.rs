//! `plivo`: `POST {baseUrl | https://api.plivo.com}/v1/Account/{accountSid}/Message/` with Basic
//! `accountSid:token` (the auth id and auth token) and JSON `{src, dst, text}` (`src`: `overrides.sms.from`,
//! else the integration's `from`). Success: `202 {"api_id", "message": "message(s) queued",
//! "message_uuid": ["…"]}`, the first uuid recorded (the one Plivo's status callbacks name). Errors:
//! `{"api_id", "error"}`, sorted by status (401 refused credentials, 400 permanent, 429 and 5xx transient).

use serde_json::json;

use super::account::account;
use super::endpoint::endpoint;
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError, SmsMessage};

const ID: &str = "plivo";
const API: &str = "https://api.plivo.com";

pub(crate) struct Plivo {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Plivo {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let (auth_id, token) = account(ID, credentials)?;
        let sms = SmsMessage::of(delivery)?;
        let src = sms.required_from(ID)?;
        let path = format!("/v1/Account/{auth_id}/Message/");
        let url = endpoint(ID, credentials, API, &path, &self.http.settings)?;
        let request = self
            .http
            .client
            .post(url)
            .basic_auth(auth_id, Some(token))
            .json(&json!({"src": src, "dst": sms.to, "text": sms.text}));
        Ok(self.http.fetch(ID, request).await?.sorted(ID, &["error"])?.accepted("message_uuid.0"))
    }
}
