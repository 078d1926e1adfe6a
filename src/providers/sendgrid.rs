//! `sendgrid`: `POST {baseUrl | https://api.sendgrid.com}/v3/mail/send` with `Authorization: Bearer
//! <apiKey>`, `Accept: application/json` and a JSON body `{personalizations: [{to, cc, bcc}], from,
//! reply_to, subject, content, headers, categories, custom_args, ip_pool_name}`:
//! - `content` is the plain-text alternative then the html (SendGrid wants `text/plain` first); an empty
//!   part is left out, as SendGrid refuses empty values;
//! - `categories` is the workflow's identifier; `custom_args` carry Herald's ids (`heraldMessageId`,
//!   `heraldTransactionId`, `heraldSubscriberId`, `heraldWorkflowIdentifier`), which SendGrid echoes in its
//!   event webhooks;
//! - `ip_pool_name` is the optional `ipPoolName` credential.
//!
//! Success: `202` with an empty body and the message id in `X-Message-Id`; errors:
//! `{"errors": [{"message", "field"}]}`.

use serde_json::{json, Map, Value};

use super::account::required;
use super::credentials::credential;
use super::endpoint::endpoint;
use super::registry::Http;
use super::{Accepted, Delivery, EmailMessage, Provider, ProviderError};

const ID: &str = "sendgrid";
const API: &str = "https://api.sendgrid.com";

pub(crate) struct Sendgrid {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Sendgrid {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let api_key = required(ID, credentials, "apiKey")?;
        let email = EmailMessage::of(delivery)?;
        let url = endpoint(ID, credentials, API, "/v3/mail/send", &self.http.settings)?;
        let body = body(delivery, &email, credential(credentials, "ipPoolName"));
        let request = self.http.client.post(url).bearer_auth(api_key).header("Accept", "application/json").json(&body);
        let answer = self.http.fetch(ID, request).await?;
        let message_id = answer.header("x-message-id");
        Ok(answer.sorted(ID, &["errors.0.message"])?.accepted_as(message_id))
    }
}

fn body(delivery: &Delivery, email: &EmailMessage, ip_pool_name: Option<&str>) -> Value {
    let mailboxes = |addresses: &[String]| -> Value { addresses.iter().map(|email| json!({"email": email})).collect() };
    let mut personalization = json!({"to": mailboxes(&email.to)});
    if !email.cc.is_empty() {
        personalization["cc"] = mailboxes(&email.cc);
    }
    if !email.bcc.is_empty() {
        personalization["bcc"] = mailboxes(&email.bcc);
    }
    let mut from = json!({"email": email.from.address});
    if let Some(name) = &email.from.name {
        from["name"] = json!(name);
    }
    let content: Vec<Value> = [("text/plain", &email.text), ("text/html", &email.html)]
        .into_iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(kind, value)| json!({"type": kind, "value": value}))
        .collect();
    let mut custom_args = json!({
        "heraldMessageId": delivery.message_id.to_string(),
        "heraldTransactionId": delivery.transaction_id,
        "heraldSubscriberId": delivery.subscriber_id,
    });
    let mut body = json!({
        "personalizations": [personalization],
        "from": from,
        "subject": email.subject,
        "content": content,
    });
    if let Some(workflow) = &delivery.workflow_identifier {
        custom_args["heraldWorkflowIdentifier"] = json!(workflow);
        body["categories"] = json!([workflow]);
    }
    body["custom_args"] = custom_args;
    if let Some(reply_to) = &email.reply_to {
        body["reply_to"] = json!({"email": reply_to});
    }
    if !email.headers.is_empty() {
        let headers: Map<String, Value> =
            email.headers.iter().map(|(name, value)| (name.clone(), json!(value))).collect();
        body["headers"] = Value::Object(headers);
    }
    if let Some(pool) = ip_pool_name {
        body["ip_pool_name"] = json!(pool);
    }
    body
}
