//! `twilio`: `POST {baseUrl | https://api.twilio.com}/2010-04-01/Accounts/{accountSid}/Messages.json` with
//! Basic `accountSid:token` and a form body `To`, `From` (or `MessagingServiceSid` when the sender is a
//! messaging service: `MG` and 34 characters, so an `MGM Resorts` sender stays a `From`), `Body`, and
//! `StatusCallback` (Herald's status webhook for the integration) when `HERALD_PUBLIC_URL` is set, so
//! delivery reports arrive without configuring anything at Twilio.
//! Success: `201 {"sid": "SM…", "status": "queued", …}`. Errors: `{"code", "message", "more_info", "status"}`;
//! 20429 (too many requests) and 21611 (the sender's queue is full) pass on a retry like 429 and 5xx,
//! 20003 (authenticate) is a refused account; the message quotes Twilio's code.

use serde_json::Value;

use super::account::account;
use super::endpoint::endpoint;
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError, SmsMessage};

const ID: &str = "twilio";
const API: &str = "https://api.twilio.com";

pub(crate) struct Twilio {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for Twilio {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let (account_sid, token) = account(ID, credentials)?;
        let sms = SmsMessage::of(delivery)?;
        let from = sms.required_from(ID)?;
        let path = format!("/2010-04-01/Accounts/{account_sid}/Messages.json");
        let url = endpoint(ID, credentials, API, &path, &self.http.settings)?;
        let sender = if from.starts_with("MG") && from.len() == 34 { "MessagingServiceSid" } else { "From" };
        let mut form = vec![("To", sms.to.as_str()), (sender, from), ("Body", sms.text.as_str())];
        if let Some(callback) = &delivery.status_callback_url {
            form.push(("StatusCallback", callback.as_str()));
        }
        let request = self.http.client.post(url).basic_auth(account_sid, Some(token)).form(&form);
        let answer = self.http.fetch(ID, request).await?;
        if answer.status.is_success() {
            return Ok(answer.body.accepted("sid"));
        }
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let code = json["code"].as_u64();
        let kind = match code {
            Some(20429 | 21611) => ErrorKind::Transient,
            Some(20003) => ErrorKind::Misconfigured,
            _ => ErrorKind::of_status(answer.status),
        };
        let text = coded(code.map(|code| code.to_string()).as_deref(), json["message"].as_str());
        Err(answer.error_saying(ID, kind, text))
    }
}
