//! The email or SMS an adapter sends, assembled once from the delivery, the integration's credentials
//! and the trigger's overrides, so that every adapter applies the same rules:
//! - sender: `overrides.email.from`, else the integration's `from`; an integration without one is
//!   misconfigured (Herald never invents a sender). The name: `overrides.email.senderName`, else the
//!   step's `senderName`, else the integration's;
//! - `overrides.email` may add `replyTo`, `cc`, `bcc` (a string or a list), `text` (replaces the
//!   plain-text alternative) and `headers` (an object of strings);
//! - SMS: `overrides.sms.from`, else the integration's `from` (adapters that need one say so).

use serde_json::Value;

use super::credentials::credential;
use super::{Delivery, ProviderError};

/// An address with an optional display name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mailbox {
    pub address: String,
    pub name: Option<String>,
}

impl Mailbox {
    /// `Name <address>`, the name quoted when it holds characters with a meaning in that form; the bare
    /// address without a name.
    pub fn formatted(&self) -> String {
        match &self.name {
            None => self.address.clone(),
            Some(name) if name.chars().any(|c| "()<>[]:;@\\,.\"".contains(c)) => {
                format!("\"{}\" <{}>", name.replace('\\', "\\\\").replace('"', "\\\""), self.address)
            }
            Some(name) => format!("{name} <{}>", self.address),
        }
    }
}

/// One email as every email adapter sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailMessage {
    pub from: Mailbox,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub bcc: Vec<String>,
    pub reply_to: Option<String>,
    pub subject: String,
    pub html: String,
    /// The plain-text alternative sent with every email.
    pub text: String,
    /// Extra headers from the trigger's overrides, in name order.
    pub headers: Vec<(String, String)>,
}

impl EmailMessage {
    pub fn of(delivery: &Delivery) -> Result<Self, ProviderError> {
        let provider_id = &delivery.provider_id;
        let overrides = &delivery.overrides["email"];
        let credentials = &delivery.credentials;
        let text_of = |value: &Value| value.as_str().filter(|text| !text.is_empty()).map(str::to_owned);
        let address =
            text_of(&overrides["from"]).or_else(|| credential(credentials, "from").map(str::to_owned)).ok_or_else(
                || ProviderError::misconfigured(format!("{provider_id} integration has no `from` credential")),
            )?;
        let name = text_of(&overrides["senderName"])
            .or_else(|| delivery.sender_name.clone().filter(|name| !name.is_empty()))
            .or_else(|| credential(credentials, "senderName").map(str::to_owned));
        let to =
            delivery.to.email.clone().ok_or_else(|| {
                ProviderError::permanent(format!("{provider_id}: the subscriber has no email address"))
            })?;
        let mut headers: Vec<(String, String)> = overrides["headers"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
            .collect();
        headers.sort();
        Ok(Self {
            from: Mailbox { address, name },
            to: vec![to],
            cc: addresses(&overrides["cc"]),
            bcc: addresses(&overrides["bcc"]),
            reply_to: text_of(&overrides["replyTo"]),
            subject: delivery.subject.clone().unwrap_or_default(),
            html: delivery.content.clone(),
            text: text_of(&overrides["text"]).or_else(|| delivery.text.clone()).unwrap_or_default(),
            headers,
        })
    }
}

/// One SMS as every SMS adapter sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmsMessage {
    /// `overrides.sms.from`, else the integration's `from`.
    pub from: Option<String>,
    pub to: String,
    pub text: String,
}

impl SmsMessage {
    pub fn of(delivery: &Delivery) -> Result<Self, ProviderError> {
        let provider_id = &delivery.provider_id;
        let from = delivery.overrides["sms"]["from"]
            .as_str()
            .filter(|from| !from.is_empty())
            .or_else(|| credential(&delivery.credentials, "from"))
            .map(str::to_owned);
        let to =
            delivery.to.phone.clone().ok_or_else(|| {
                ProviderError::permanent(format!("{provider_id}: the subscriber has no phone number"))
            })?;
        Ok(Self { from, to, text: delivery.content.clone() })
    }

    /// The sender, for providers that cannot send without one.
    pub fn required_from(&self, provider_id: &str) -> Result<&str, ProviderError> {
        self.from
            .as_deref()
            .ok_or_else(|| ProviderError::misconfigured(format!("{provider_id} integration has no `from` credential")))
    }
}

/// A list of addresses given as one string (comma-separated) or an array of strings.
fn addresses(value: &Value) -> Vec<String> {
    let items: Vec<&str> = match value {
        Value::String(list) => list.split(',').collect(),
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    items.into_iter().map(str::trim).filter(|item| !item.is_empty()).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::providers::tests::delivery;

    #[test]
    fn the_sender_comes_from_the_overrides_then_the_step_then_the_integration() {
        let mut email = delivery("email-webhook", json!({"from": "news@acme.io", "senderName": "Acme"}));
        email.text = Some("Hi Ada".into());
        let message = EmailMessage::of(&email).unwrap();
        assert_eq!(message.from.formatted(), "Acme <news@acme.io>");
        assert_eq!((message.to.clone(), message.text.as_str()), (vec!["ada@example.com".to_string()], "Hi Ada"));

        email.sender_name = Some("Acme Billing".into());
        assert_eq!(EmailMessage::of(&email).unwrap().from.formatted(), "Acme Billing <news@acme.io>");

        email.overrides = json!({"email": {"from": "ops@acme.io", "senderName": "Ops, Acme", "replyTo": "help@acme.io",
            "cc": "a@acme.io, b@acme.io", "bcc": ["c@acme.io"], "text": "Plain", "headers": {"X-B": "2", "X-A": "1"}}});
        let message = EmailMessage::of(&email).unwrap();
        assert_eq!(message.from.formatted(), r#""Ops, Acme" <ops@acme.io>"#);
        assert_eq!(message.cc, ["a@acme.io", "b@acme.io"]);
        assert_eq!(message.bcc, ["c@acme.io"]);
        assert_eq!((message.reply_to.as_deref(), message.text.as_str()), (Some("help@acme.io"), "Plain"));
        assert_eq!(message.headers, [("X-A".to_string(), "1".to_string()), ("X-B".to_string(), "2".to_string())]);
    }

    #[test]
    fn an_integration_without_a_sender_is_misconfigured() {
        let err = EmailMessage::of(&delivery("email-webhook", json!({"senderName": "Acme"}))).unwrap_err();
        assert!(err.is_integration_fault(), "{err:?}");
        assert_eq!(
            err.to_string(),
            "the integration is misconfigured: email-webhook integration has no `from` credential"
        );
    }

    #[test]
    fn sms_senders_come_from_the_overrides_or_the_integration() {
        let mut sms = delivery("generic-sms", json!({"from": "+15550000"}));
        assert_eq!(SmsMessage::of(&sms).unwrap().from.as_deref(), Some("+15550000"));
        sms.overrides = json!({"sms": {"from": "ACME"}});
        let message = SmsMessage::of(&sms).unwrap();
        assert_eq!((message.from.as_deref(), message.to.as_str()), (Some("ACME"), "+15550100"));
        let none = SmsMessage::of(&delivery("generic-sms", json!({}))).unwrap();
        assert!(none.required_from("twilio").unwrap_err().is_integration_fault());
    }
}
