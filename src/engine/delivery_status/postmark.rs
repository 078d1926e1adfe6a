//! Postmark's webhooks. Postmark does not sign them; it sends the HTTP Basic credentials written in
//! the webhook URL (`https://herald:<key>@host/v1/webhooks/…`), so the password is what authenticates
//! a post (compared in constant time). There is no timestamp, hence no replay window: keep the URL
//! on HTTPS.
//!
//! Secret: the integration's **`inboundWebhookSigningKey`** (Herald generates it; the API shows it),
//! as the password; any user name. Not a credential: Postmark has no webhook secret to copy.
//!
//! One record per post, found by `MessageID`. Records: `Delivery`; `Bounce` (a failure, except the
//! `Transient`, `DnsError` and `AutoResponder` types, which are not final: pending); `SpamComplaint`;
//! opens, clicks and subscription changes are ignored.

use base64::Engine;
use serde_json::Value;

use super::signing::{malformed, refused, same_secret};
use super::{InboundWebhook, Integration, Outcome, StatusEvent};
use crate::error::AppResult;

const PROVIDER: &str = "postmark";

/// Checks the password and reads the record.
pub(super) fn read(webhook: &InboundWebhook, integration: &Integration) -> AppResult<Vec<StatusEvent>> {
    verify(webhook, &integration.row.inbound_webhook_signing_key)?;
    let body: Value = serde_json::from_slice(&webhook.body).map_err(|error| malformed(PROVIDER, error))?;
    parse(&body).map(|event| event.into_iter().collect())
}

fn verify(webhook: &InboundWebhook, signing_key: &str) -> AppResult<()> {
    let password = webhook
        .header("authorization")
        .and_then(|value| value.strip_prefix("Basic "))
        .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok())
        .and_then(|decoded| String::from_utf8(decoded).ok())
        .and_then(|pair| pair.split_once(':').map(|(_, password)| password.to_string()))
        .ok_or_else(|| refused(PROVIDER, "no Basic credentials (put them in the webhook URL)"))?;
    if signing_key.is_empty() || !same_secret(password.as_bytes(), signing_key.as_bytes()) {
        return Err(refused(PROVIDER, "wrong password"));
    }
    Ok(())
}

fn parse(record: &Value) -> AppResult<Option<StatusEvent>> {
    let kind = record["RecordType"].as_str().ok_or_else(|| malformed(PROVIDER, "no `RecordType`"))?;
    let (outcome, reason, at) = match kind {
        "Delivery" => (Outcome::Delivered, None, "DeliveredAt"),
        "Bounce" if matches!(record["Type"].as_str(), Some("Transient" | "DnsError" | "AutoResponder")) => {
            (Outcome::Pending, Some(&record["Description"]), "BouncedAt")
        }
        "Bounce" => (Outcome::Failed { error_id: "bounced" }, Some(&record["Description"]), "BouncedAt"),
        "SpamComplaint" => (Outcome::Failed { error_id: "complained" }, None, "BouncedAt"),
        _ => return Ok(None),
    };
    let message_id = record["MessageID"]
        .as_str()
        .filter(|id| !id.is_empty())
        .ok_or_else(|| malformed(PROVIDER, "no `MessageID`"))?;
    let event = match record["Type"].as_str() {
        Some(bounce_type) if kind == "Bounce" => format!("Bounce/{bounce_type}"),
        _ => kind.to_string(),
    };
    Ok(Some(StatusEvent {
        herald_message_id: None,
        provider_message_ids: vec![message_id.to_string()],
        outcome,
        event,
        reason: reason.and_then(Value::as_str).map(str::to_string),
        occurred_at: record[at]
            .as_str()
            .and_then(|text| chrono::DateTime::parse_from_rfc3339(text).ok())
            .map(|at| at.to_utc()),
        raw: record.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn with_basic(user_and_password: &str) -> InboundWebhook {
        let mut headers = http::HeaderMap::new();
        let encoded = base64::engine::general_purpose::STANDARD.encode(user_and_password);
        headers.insert("authorization", format!("Basic {encoded}").parse().unwrap());
        InboundWebhook { url: String::new(), headers, body: Vec::new() }
    }

    #[test]
    fn the_password_must_be_the_signing_key_whatever_the_user() {
        assert!(verify(&with_basic("herald:k3y"), "k3y").is_ok());
        assert!(verify(&with_basic("anyone:k3y"), "k3y").is_ok());
        assert!(verify(&with_basic("herald:k3"), "k3y").is_err());
        assert!(verify(&with_basic("herald:"), "").is_err());
        let unsigned = InboundWebhook { url: String::new(), headers: http::HeaderMap::new(), body: Vec::new() };
        assert!(verify(&unsigned, "k3y").is_err());
    }

    #[test]
    fn a_transient_bounce_is_pending_and_a_hard_one_fails() {
        let bounce = |kind: &str| {
            json!({"RecordType": "Bounce", "Type": kind, "MessageID": "m-1", "Description": "Mailbox full",
                   "BouncedAt": "2026-11-24T10:00:00Z"})
        };
        let hard = parse(&bounce("HardBounce")).unwrap().unwrap();
        assert_eq!((hard.outcome, hard.event.as_str()), (Outcome::Failed { error_id: "bounced" }, "Bounce/HardBounce"));
        assert_eq!(hard.reason.as_deref(), Some("Mailbox full"));
        assert_eq!(parse(&bounce("Transient")).unwrap().unwrap().outcome, Outcome::Pending);
        assert_eq!(parse(&json!({"RecordType": "Open", "MessageID": "m-1"})).unwrap(), None);
        assert!(parse(&json!({"RecordType": "Delivery"})).is_err());
    }
}
