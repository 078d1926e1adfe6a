//! Resend's webhooks, signed the Svix way: `svix-signature` lists `v1,<base64>` signatures (several
//! while a secret rotates), each the HMAC-SHA256 of `{svix-id}.{svix-timestamp}.{body}` keyed with the
//! base64-decoded part of the secret after `whsec_`; `svix-timestamp` must be within five minutes.
//!
//! Secret: the integration's `secretKey` credential holds the endpoint's **signing secret** (`whsec_…`,
//! shown by Resend for the webhook endpoint).
//!
//! One event per post, `{"type", "created_at", "data": {"email_id", …}}`; the message is found by
//! `data.email_id` (the `id` Resend answered). Events: `email.sent` and `email.delivery_delayed`
//! (pending), `email.delivered`, `email.bounced`, `email.failed`, `email.complained`; the others
//! (opens, clicks, contacts, domains) are ignored.

use chrono::{DateTime, Utc};
use ring::hmac::HMAC_SHA256;
use serde_json::Value;

use super::signing::{base64_bytes, check_fresh, hmac_matches, malformed, refused, secret};
use super::{InboundWebhook, Integration, Outcome, StatusEvent};
use crate::error::AppResult;

const PROVIDER: &str = "resend";

/// Verifies the post and reads its event.
pub(super) fn read(
    webhook: &InboundWebhook,
    integration: &Integration,
    now: DateTime<Utc>,
) -> AppResult<Vec<StatusEvent>> {
    verify(webhook, secret(integration, "secretKey")?, now)?;
    let body: Value = serde_json::from_slice(&webhook.body).map_err(|error| malformed(PROVIDER, error))?;
    parse(&body).map(|event| event.into_iter().collect())
}

fn verify(webhook: &InboundWebhook, signing_secret: &str, now: DateTime<Utc>) -> AppResult<()> {
    let (Some(id), Some(timestamp), Some(signatures)) =
        (webhook.header("svix-id"), webhook.header("svix-timestamp"), webhook.header("svix-signature"))
    else {
        return Err(refused(PROVIDER, "no signature"));
    };
    let key = base64_bytes(signing_secret.strip_prefix("whsec_").unwrap_or(signing_secret))
        .ok_or_else(|| refused(PROVIDER, "the `secretKey` credential is not a whsec_ signing secret"))?;
    let mut signed = format!("{id}.{timestamp}.").into_bytes();
    signed.extend_from_slice(&webhook.body);
    let matches = signatures
        .split_whitespace()
        .filter_map(|entry| entry.strip_prefix("v1,"))
        .filter_map(base64_bytes)
        .any(|tag| hmac_matches(HMAC_SHA256, &key, &signed, &tag));
    if !matches {
        return Err(refused(PROVIDER, "the signature does not match"));
    }
    check_fresh(PROVIDER, Some(timestamp), now)
}

fn parse(body: &Value) -> AppResult<Option<StatusEvent>> {
    let name = body["type"].as_str().ok_or_else(|| malformed(PROVIDER, "no `type`"))?;
    let data = &body["data"];
    let (outcome, reason) = match name {
        "email.delivered" => (Outcome::Delivered, None),
        "email.sent" | "email.delivery_delayed" => (Outcome::Pending, None),
        "email.bounced" => (Outcome::Failed { error_id: "bounced" }, Some(&data["bounce"]["message"])),
        "email.failed" => (Outcome::Failed { error_id: "delivery_failed" }, Some(&data["failed"]["reason"])),
        "email.complained" => (Outcome::Failed { error_id: "complained" }, None),
        _ => return Ok(None),
    };
    let email_id = data["email_id"].as_str().ok_or_else(|| malformed(PROVIDER, "no `data.email_id`"))?;
    Ok(Some(StatusEvent {
        herald_message_id: None,
        provider_message_ids: vec![email_id.to_string()],
        outcome,
        event: name.to_string(),
        reason: reason.and_then(Value::as_str).map(str::to_string),
        occurred_at: body["created_at"]
            .as_str()
            .and_then(|at| DateTime::parse_from_rfc3339(at).ok())
            .map(|at| at.to_utc()),
        raw: body.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use base64::Engine;

    use super::*;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    fn signed(id: &str, timestamp: &str, body: &str, signatures: &str) -> InboundWebhook {
        let mut headers = http::HeaderMap::new();
        headers.insert("svix-id", id.parse().unwrap());
        headers.insert("svix-timestamp", timestamp.parse().unwrap());
        headers.insert("svix-signature", signatures.parse().unwrap());
        InboundWebhook { url: String::new(), headers, body: body.as_bytes().to_vec() }
    }

    fn sign(id: &str, timestamp: &str, body: &str) -> String {
        let key = base64_bytes(SECRET.strip_prefix("whsec_").unwrap()).unwrap();
        let tag =
            ring::hmac::sign(&ring::hmac::Key::new(HMAC_SHA256, &key), format!("{id}.{timestamp}.{body}").as_bytes());
        format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(tag.as_ref()))
    }

    #[test]
    fn any_v1_signature_over_id_timestamp_and_body_is_accepted() {
        let now = Utc::now();
        let timestamp = now.timestamp().to_string();
        let body = r#"{"type":"email.delivered","data":{"email_id":"e-1"}}"#;
        let good = sign("msg_1", &timestamp, body);
        assert!(verify(&signed("msg_1", &timestamp, body, &good), SECRET, now).is_ok());
        let rotated = format!("v1,bm90IGl0 {good}");
        assert!(verify(&signed("msg_1", &timestamp, body, &rotated), SECRET, now).is_ok());
        assert!(verify(&signed("msg_2", &timestamp, body, &good), SECRET, now).is_err(), "the id is signed");
        assert!(verify(&signed("msg_1", &timestamp, "{}", &good), SECRET, now).is_err(), "the body is signed");
        let stale = (now.timestamp() - 301).to_string();
        let stale_signature = sign("msg_1", &stale, body);
        assert!(verify(&signed("msg_1", &stale, body, &stale_signature), SECRET, now).is_err());
    }
}
