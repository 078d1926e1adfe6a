//! Twilio's SMS status callbacks: a form post (`MessageSid`, `MessageStatus`, `ErrorCode`, …) signed
//! in `X-Twilio-Signature` with the base64 HMAC-SHA1 of the full URL Twilio called followed by every
//! form field's name and value, sorted by name. The scheme has no timestamp, so there is no replay
//! window; a replayed callback can only repeat a status Twilio already reported.
//!
//! The URL is the one Twilio saw: `HERALD_PUBLIC_URL` plus the path and query, or, when that is
//! unset, the request's `Host` (see `crate::rest::webhooks`). Behind a proxy that changes the
//! scheme, host or path, set `HERALD_PUBLIC_URL` or every callback is refused.
//!
//! Secret: the integration's `token` credential, the **auth token** of the account (the adapter's
//! own credential: Twilio signs callbacks with it).
//!
//! Statuses: `accepted`, `scheduled`, `queued`, `sending`, `sent` (pending), `delivered`,
//! `undelivered` and `failed` (a failure naming Twilio's `ErrorCode`), `canceled`; `read` and others
//! are ignored.

use ring::hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY;
use serde_json::{Map, Value};

use super::signing::{base64_bytes, hmac_matches, malformed, refused, secret};
use super::{InboundWebhook, Integration, Outcome, StatusEvent};
use crate::error::AppResult;

const PROVIDER: &str = "twilio";

/// Verifies the post and reads its status.
pub(super) fn read(webhook: &InboundWebhook, integration: &Integration) -> AppResult<Vec<StatusEvent>> {
    let fields: Vec<(String, String)> = form_urlencoded::parse(&webhook.body).into_owned().collect();
    verify(webhook, &fields, secret(integration, "token")?)?;
    parse(&fields).map(|event| event.into_iter().collect())
}

fn verify(webhook: &InboundWebhook, fields: &[(String, String)], auth_token: &str) -> AppResult<()> {
    let signature = webhook.header("x-twilio-signature").ok_or_else(|| refused(PROVIDER, "no signature"))?;
    let tag = base64_bytes(signature).ok_or_else(|| refused(PROVIDER, "the signature is not base64"))?;
    let mut sorted: Vec<&(String, String)> = fields.iter().collect();
    sorted.sort();
    let mut signed = webhook.url.clone();
    for (name, value) in sorted {
        signed.push_str(name);
        signed.push_str(value);
    }
    if !hmac_matches(HMAC_SHA1_FOR_LEGACY_USE_ONLY, auth_token.as_bytes(), signed.as_bytes(), &tag) {
        return Err(refused(PROVIDER, "the signature does not match (is HERALD_PUBLIC_URL the URL Twilio calls?)"));
    }
    Ok(())
}

fn parse(fields: &[(String, String)]) -> AppResult<Option<StatusEvent>> {
    let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
    let status = field("MessageStatus")
        .or_else(|| field("SmsStatus"))
        .ok_or_else(|| malformed(PROVIDER, "no `MessageStatus`"))?;
    let outcome = match status {
        "delivered" => Outcome::Delivered,
        "accepted" | "scheduled" | "queued" | "sending" | "sent" => Outcome::Pending,
        "undelivered" | "failed" | "canceled" => Outcome::Failed { error_id: "delivery_failed" },
        _ => return Ok(None),
    };
    let sid = field("MessageSid")
        .or_else(|| field("SmsSid"))
        .filter(|sid| !sid.is_empty())
        .ok_or_else(|| malformed(PROVIDER, "no `MessageSid`"))?;
    let reason = match (field("ErrorCode").filter(|code| !code.is_empty()), field("ErrorMessage")) {
        (Some(code), Some(message)) => Some(format!("Twilio error {code}: {message}")),
        (Some(code), None) => Some(format!("Twilio error {code}")),
        (None, _) => None,
    };
    let raw: Map<String, Value> =
        fields.iter().map(|(name, value)| (name.clone(), Value::String(value.clone()))).collect();
    Ok(Some(StatusEvent {
        herald_message_id: None,
        provider_message_ids: vec![sid.to_string()],
        outcome,
        event: status.to_string(),
        reason,
        occurred_at: None,
        raw: Value::Object(raw).to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twilio's own example (https://www.twilio.com/docs/usage/security#validating-requests).
    #[test]
    fn the_signature_of_twilios_documented_example_verifies() {
        let fields: Vec<(String, String)> = [
            ("CallSid", "CA1234567890ABCDE"),
            ("Caller", "+12349013030"),
            ("Digits", "1234"),
            ("From", "+12349013030"),
            ("To", "+18005551212"),
        ]
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
        let mut headers = http::HeaderMap::new();
        headers.insert("x-twilio-signature", "0/KCTR6DLpKmkAf8muzZqo1nDgQ=".parse().unwrap());
        let webhook =
            InboundWebhook { url: "https://mycompany.com/myapp.php?foo=1&bar=2".into(), headers, body: Vec::new() };
        assert!(verify(&webhook, &fields, "12345").is_ok());
        assert!(verify(&webhook, &fields, "54321").is_err());
        let moved = InboundWebhook { url: "https://mycompany.com/other.php?foo=1&bar=2".into(), ..webhook };
        assert!(verify(&moved, &fields, "12345").is_err(), "the URL is signed");
    }

    #[test]
    fn statuses_map_to_outcomes_with_the_error_code() {
        let form = |status: &str| -> Vec<(String, String)> {
            vec![
                ("MessageSid".into(), "SM1".into()),
                ("MessageStatus".into(), status.into()),
                ("ErrorCode".into(), "30003".into()),
            ]
        };
        let failed = parse(&form("undelivered")).unwrap().unwrap();
        assert_eq!(failed.outcome, Outcome::Failed { error_id: "delivery_failed" });
        assert_eq!(failed.reason.as_deref(), Some("Twilio error 30003"));
        assert_eq!(parse(&form("sent")).unwrap().unwrap().outcome, Outcome::Pending);
        assert_eq!(parse(&form("read")).unwrap(), None);
        assert!(parse(&[("MessageStatus".into(), "delivered".into())]).is_err(), "no sid");
    }
}
