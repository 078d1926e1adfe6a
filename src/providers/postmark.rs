//! `postmark`: `POST {baseUrl | https://api.postmarkapp.com}/email` with `X-Postmark-Server-Token:
//! <apiKey>`, `Accept: application/json` and a JSON body `{From: "Name <address>", To, Cc, Bcc (addresses
//! joined with ", "), Subject, HtmlBody, TextBody, ReplyTo, Headers: [{Name, Value}], MessageStream:
//! "outbound", Metadata: {heraldMessageId}}`. `TextBody` is the plain-text alternative (left out when
//! there is none), never the html.
//!
//! Success: `200 {"To", "SubmittedAt", "MessageID", "ErrorCode": 0, "Message": "OK"}`; errors:
//! `{"ErrorCode", "Message"}`, whose code the error's text names (`422` with 406: an inactive recipient,
//! 300: an invalid email, 405, 412, 413: the account may not send).

use serde_json::{json, Value};

use super::account::required;
use super::endpoint::endpoint;
use super::http::noted;
use super::registry::Http;
use super::{Accepted, Delivery, EmailMessage, Provider, ProviderError};

const ID: &str = "postmark";
const API: &str = "https://api.postmarkapp.com";

pub(crate) struct Postmark {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Postmark {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let api_key = required(ID, credentials, "apiKey")?;
        let email = EmailMessage::of(delivery)?;
        let url = endpoint(ID, credentials, API, "/email", &self.http.settings)?;
        let request = self
            .http
            .client
            .post(url)
            .header("X-Postmark-Server-Token", api_key)
            .header("Accept", "application/json")
            .json(&body(delivery, &email));
        let answer = self.http.fetch(ID, request).await?;
        let code = answer.body.value("ErrorCode");
        match answer.sorted(ID, &["Message"]) {
            Ok(body) => Ok(body.accepted("MessageID")),
            Err(err) => Err(match code {
                Some(code) => noted(err, &format!("ErrorCode {code}")),
                None => err,
            }),
        }
    }
}

fn body(delivery: &Delivery, email: &EmailMessage) -> Value {
    let mut body = json!({
        "From": email.from.formatted(),
        "To": email.to.join(", "),
        "Subject": email.subject,
        "HtmlBody": email.html,
        "MessageStream": "outbound",
        "Metadata": {"heraldMessageId": delivery.message_id.to_string()},
    });
    if !email.text.is_empty() {
        body["TextBody"] = json!(email.text);
    }
    if !email.cc.is_empty() {
        body["Cc"] = json!(email.cc.join(", "));
    }
    if !email.bcc.is_empty() {
        body["Bcc"] = json!(email.bcc.join(", "));
    }
    if let Some(reply_to) = &email.reply_to {
        body["ReplyTo"] = json!(reply_to);
    }
    if !email.headers.is_empty() {
        body["Headers"] =
            email.headers.iter().map(|(name, value)| json!({"Name": name, "Value": value})).collect::<Value>();
    }
    body
}
