//! `ses`: Amazon SES v2 `SendEmail`, `POST {baseUrl | https://email.{region}.amazonaws.com}/v2/email/outbound-emails`,
//! signed with SigV4 (service `ses`; credentials `apiKey` = access key id, `secretKey`, `region`, each
//! required). JSON body `{FromEmailAddress, Destination: {ToAddresses, CcAddresses, BccAddresses},
//! ReplyToAddresses, Content: {Simple: {Subject, Body: {Html, Text}, Headers}}}`, every text `UTF-8`.
//! Success: `200 {"MessageId"}`. Errors: the code in `x-amzn-ErrorType` or the body's `__type`/`code`, the
//! text in `message`/`Message`, sorted by [`super::aws`].

use serde_json::{json, Value};

use super::aws;
use super::registry::Http;
use super::sigv4::AwsKey;
use super::{Accepted, Delivery, EmailMessage, Provider, ProviderError};

const ID: &str = "ses";
const SERVICE: &str = "ses";
const PATH: &str = "/v2/email/outbound-emails";

pub(crate) struct Ses {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Ses {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let key = AwsKey::of(ID, credentials, SERVICE)?;
        let email = EmailMessage::of(delivery)?;
        let body = serde_json::to_vec(&send_email(&email)).expect("JSON serializes");
        let answer = key.send(&self.http, credentials, "email", PATH, "application/json", body).await?;
        if answer.status.is_success() {
            return Ok(answer.body.accepted("MessageId"));
        }
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let code = answer
            .headers
            .get("x-amzn-errortype")
            .and_then(|value| value.to_str().ok())
            .or_else(|| json["__type"].as_str())
            .or_else(|| json["code"].as_str())
            .unwrap_or_default();
        let message = json["message"].as_str().or_else(|| json["Message"].as_str());
        Err(aws::error(ID, &answer, aws::error_code(code), message))
    }
}

/// The `SendEmail` request body.
fn send_email(email: &EmailMessage) -> Value {
    let utf8 = |data: &str| json!({"Data": data, "Charset": "UTF-8"});
    let mut body = json!({"Html": utf8(&email.html)});
    if !email.text.is_empty() {
        body["Text"] = utf8(&email.text);
    }
    let mut simple = json!({"Subject": utf8(&email.subject), "Body": body});
    if !email.headers.is_empty() {
        let headers: Vec<Value> =
            email.headers.iter().map(|(name, value)| json!({"Name": name, "Value": value})).collect();
        simple["Headers"] = Value::Array(headers);
    }
    let mut destination = json!({"ToAddresses": email.to});
    if !email.cc.is_empty() {
        destination["CcAddresses"] = json!(email.cc);
    }
    if !email.bcc.is_empty() {
        destination["BccAddresses"] = json!(email.bcc);
    }
    let mut request = json!({
        "FromEmailAddress": email.from.formatted(),
        "Destination": destination,
        "Content": {"Simple": simple},
    });
    if let Some(reply_to) = &email.reply_to {
        request["ReplyToAddresses"] = json!([reply_to]);
    }
    request
}
