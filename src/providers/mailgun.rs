//! `mailgun`: `POST {baseUrl | https://api.mailgun.net}/v3/{domain}/messages` with HTTP Basic
//! `<user | api>:<apiKey>` and a `multipart/form-data` body: `from` (`Name <address>`), `to` (one field a
//! recipient), `cc` and `bcc` comma-joined, `subject`, `html`, `text` (when there is a plain-text
//! alternative), `h:Reply-To`, `h:<Name>` for each header of the overrides, and `v:herald-message-id` (a
//! variable Mailgun echoes in its event webhooks).
//!
//! Domains in Mailgun's EU region are served by `https://api.eu.mailgun.net` only: give that as the
//! integration's `baseUrl`. A key used against the other region's host is refused with a bare
//! `401 Forbidden`, so that error says to check the region as well as the key.
//!
//! Success: `200 {"id", "message": "Queued. Thank you."}`; errors: `{"message"}` (a plain-text
//! `Forbidden` for a refused key). A `404` (the domain is not found) misconfigures the integration like a
//! refused key: every message through it would fail the same way.

use reqwest::multipart::Form;
use reqwest::StatusCode;

use super::account::required;
use super::credentials::credential;
use super::endpoint::endpoint;
use super::http::{noted, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, EmailMessage, Provider, ProviderError};

const ID: &str = "mailgun";
const API: &str = "https://api.mailgun.net";
const REGIONS: &str = "domains in the EU region need baseUrl https://api.eu.mailgun.net, the others the default";

pub(crate) struct Mailgun {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Mailgun {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let api_key = required(ID, credentials, "apiKey")?;
        let domain = required(ID, credentials, "domain")?;
        if !domain.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-') {
            return Err(ProviderError::misconfigured(format!("{ID} `domain` credential is not a domain name")));
        }
        let user = credential(credentials, "user").unwrap_or("api");
        let email = EmailMessage::of(delivery)?;
        let url = endpoint(ID, credentials, API, &format!("/v3/{domain}/messages"), &self.http.settings)?;
        let request = self.http.client.post(url).basic_auth(user, Some(api_key)).multipart(form(delivery, email));
        let answer = self.http.fetch(ID, request).await?;
        let misconfigured = |note: &str| Err(noted(answer.error(ID, ErrorKind::Misconfigured, &["message"]), note));
        match answer.status {
            StatusCode::UNAUTHORIZED => misconfigured(&format!("a wrong API key, or the wrong region: {REGIONS}")),
            StatusCode::NOT_FOUND => misconfigured(&format!("check the `domain` credential and the region: {REGIONS}")),
            _ => Ok(answer.sorted(ID, &["message"])?.accepted("id")),
        }
    }
}

fn form(delivery: &Delivery, email: EmailMessage) -> Form {
    let mut form = Form::new().text("from", email.from.formatted());
    for to in email.to {
        form = form.text("to", to);
    }
    if !email.cc.is_empty() {
        form = form.text("cc", email.cc.join(", "));
    }
    if !email.bcc.is_empty() {
        form = form.text("bcc", email.bcc.join(", "));
    }
    form = form.text("subject", email.subject).text("html", email.html);
    if !email.text.is_empty() {
        form = form.text("text", email.text);
    }
    if let Some(reply_to) = email.reply_to {
        form = form.text("h:Reply-To", reply_to);
    }
    for (name, value) in email.headers {
        form = form.text(format!("h:{name}"), value);
    }
    form.text("v:herald-message-id", delivery.message_id.to_string())
}
