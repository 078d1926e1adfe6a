//! SendGrid's Event Webhook with signature verification on: a JSON array of events, signed with
//! ECDSA P-256 / SHA-256 over `timestamp + body`, the DER signature in base64 in
//! `X-Twilio-Email-Event-Webhook-Signature` and the Unix timestamp in
//! `X-Twilio-Email-Event-Webhook-Timestamp`.
//!
//! Secret: the integration's `secretKey` credential holds the **verification key** SendGrid shows when
//! signing is enabled (base64 DER SubjectPublicKeyInfo, `MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…`; a PEM
//! block works too). It is a public key: it can check signatures, not make them.
//!
//! A message is found by `heraldMessageId` (the custom arg the adapter sends, which SendGrid copies
//! into every event), else by `sg_message_id`: the `X-Message-Id` Herald stored plus a suffix
//! (`.filter…`) that is cut off. Delivery events: `processed` and `deferred` (pending), `delivered`,
//! `bounce`, `dropped`, `spamreport`; engagement events (`open`, `click`, unsubscribes) are ignored.

use chrono::{DateTime, Utc};
use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_ASN1};
use serde_json::Value;
use uuid::Uuid;

use super::signing::{base64_bytes, check_fresh, malformed, refused, secret};
use super::{InboundWebhook, Integration, Outcome, StatusEvent};
use crate::error::AppResult;

const PROVIDER: &str = "sendgrid";
const SIGNATURE_HEADER: &str = "x-twilio-email-event-webhook-signature";
const TIMESTAMP_HEADER: &str = "x-twilio-email-event-webhook-timestamp";
/// The DER of a P-256 SubjectPublicKeyInfo up to its 65-byte uncompressed point.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
    0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// Verifies the post and reads its events.
pub(super) fn read(
    webhook: &InboundWebhook,
    integration: &Integration,
    now: DateTime<Utc>,
) -> AppResult<Vec<StatusEvent>> {
    verify(webhook, secret(integration, "secretKey")?, now)?;
    parse(&webhook.body)
}

fn verify(webhook: &InboundWebhook, verification_key: &str, now: DateTime<Utc>) -> AppResult<()> {
    let signature = webhook.header(SIGNATURE_HEADER).ok_or_else(|| refused(PROVIDER, "no signature"))?;
    let timestamp = webhook.header(TIMESTAMP_HEADER);
    let point = public_point(verification_key)
        .ok_or_else(|| refused(PROVIDER, "the `secretKey` credential is not a P-256 verification key"))?;
    let signature = base64_bytes(signature).ok_or_else(|| refused(PROVIDER, "the signature is not base64"))?;
    let mut signed = timestamp.unwrap_or_default().as_bytes().to_vec();
    signed.extend_from_slice(&webhook.body);
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, point)
        .verify(&signed, &signature)
        .map_err(|_| refused(PROVIDER, "the signature does not match"))?;
    check_fresh(PROVIDER, timestamp, now)
}

/// The uncompressed point of a verification key given as base64 DER SubjectPublicKeyInfo (bare or
/// in a PEM block) or as the bare 65-byte point.
fn public_point(key: &str) -> Option<Vec<u8>> {
    let base64: String = key.lines().filter(|line| !line.starts_with("-----")).collect::<String>();
    let der = base64_bytes(&base64)?;
    let point = der.strip_prefix(&P256_SPKI_PREFIX[..]).unwrap_or(&der);
    (point.len() == 65 && point[0] == 0x04).then(|| point.to_vec())
}

fn parse(body: &[u8]) -> AppResult<Vec<StatusEvent>> {
    let events: Vec<Value> = serde_json::from_slice(body).map_err(|error| malformed(PROVIDER, error))?;
    let mut read = Vec::new();
    for event in events {
        let name = event["event"].as_str().ok_or_else(|| malformed(PROVIDER, "an event without `event`"))?;
        let Some(outcome) = outcome(name, &event) else { continue };
        let herald_message_id = event["heraldMessageId"].as_str().and_then(|id| Uuid::parse_str(id).ok());
        let provider_message_ids = provider_message_ids(&event);
        if herald_message_id.is_none() && provider_message_ids.is_empty() {
            return Err(malformed(PROVIDER, format!("a `{name}` event names no message")));
        }
        let reason = ["reason", "response"].iter().find_map(|field| event[*field].as_str()).map(str::to_string);
        read.push(StatusEvent {
            herald_message_id,
            provider_message_ids,
            outcome,
            event: name.to_string(),
            reason,
            occurred_at: event["timestamp"].as_i64().and_then(|seconds| DateTime::from_timestamp(seconds, 0)),
            raw: event.to_string(),
        });
    }
    Ok(read)
}

fn outcome(event: &str, fields: &Value) -> Option<Outcome> {
    Some(match event {
        "delivered" => Outcome::Delivered,
        "processed" | "deferred" => Outcome::Pending,
        "bounce" if fields["type"] == "blocked" => Outcome::Failed { error_id: "delivery_failed" },
        "bounce" => Outcome::Failed { error_id: "bounced" },
        "dropped" => Outcome::Failed { error_id: "dropped" },
        "spamreport" => Outcome::Failed { error_id: "complained" },
        _ => return None,
    })
}

/// `sg_message_id` as sent, and without the `.filter…` suffix SendGrid adds to the `X-Message-Id`.
fn provider_message_ids(event: &Value) -> Vec<String> {
    let Some(id) = event["sg_message_id"].as_str() else { return Vec::new() };
    let mut ids = vec![id.to_string()];
    if let Some((message_id, _)) = id.split_once(".filter") {
        ids.push(message_id.to_string());
    }
    ids
}

#[cfg(test)]
mod tests {
    use ring::rand::SystemRandom;
    use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};

    use super::*;

    fn signed(body: &str, timestamp: &str, key: &EcdsaKeyPair) -> InboundWebhook {
        let signature = key.sign(&SystemRandom::new(), format!("{timestamp}{body}").as_bytes()).unwrap();
        let mut headers = http::HeaderMap::new();
        let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, signature.as_ref());
        headers.insert(SIGNATURE_HEADER, encoded.parse().unwrap());
        headers.insert(TIMESTAMP_HEADER, timestamp.parse().unwrap());
        InboundWebhook { url: String::new(), headers, body: body.as_bytes().to_vec() }
    }

    fn key_pair() -> (EcdsaKeyPair, String) {
        let random = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &random).unwrap();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &random).unwrap();
        let spki = [&P256_SPKI_PREFIX[..], key.public_key().as_ref()].concat();
        (key, base64::Engine::encode(&base64::engine::general_purpose::STANDARD, spki))
    }

    #[test]
    fn the_signature_covers_timestamp_and_body_with_the_verification_key() {
        let (key, verification_key) = key_pair();
        let now = Utc::now();
        let timestamp = now.timestamp().to_string();
        let body = r#"[{"event":"delivered","sg_message_id":"abc.filter0001"}]"#;
        assert!(verify(&signed(body, &timestamp, &key), &verification_key, now).is_ok());
        let pem = format!("-----BEGIN PUBLIC KEY-----\n{verification_key}\n-----END PUBLIC KEY-----");
        assert!(verify(&signed(body, &timestamp, &key), &pem, now).is_ok());

        let mut tampered = signed(body, &timestamp, &key);
        tampered.body = body.replace("delivered", "bounce").into_bytes();
        assert!(verify(&tampered, &verification_key, now).is_err());
        let (other, _) = key_pair();
        assert!(verify(&signed(body, &timestamp, &other), &verification_key, now).is_err());
        let stale = (now.timestamp() - 301).to_string();
        assert!(verify(&signed(body, &stale, &key), &verification_key, now).is_err());
    }

    #[test]
    fn events_map_to_outcomes_and_the_filter_suffix_is_cut() {
        let body = r#"[
            {"event":"delivered","sg_message_id":"W2dY3gn8RdG4Ll0QbWRLQw.filterdrecv-5645d9c87f-2m7kz-1-5B0E5E2E-1.0","timestamp":1800000000},
            {"event":"open","sg_message_id":"x.filter1"},
            {"event":"bounce","type":"bounce","reason":"550 5.1.1 no such user","heraldMessageId":"0194f0a4-8a1e-7c3b-9d2e-5f6a7b8c9d0e"}
        ]"#;
        let events = parse(body.as_bytes()).unwrap();
        assert_eq!(events.len(), 2, "the open is not a delivery status");
        assert_eq!(events[0].outcome, Outcome::Delivered);
        assert_eq!(events[0].provider_message_ids[1], "W2dY3gn8RdG4Ll0QbWRLQw");
        assert_eq!(events[0].occurred_at.unwrap().timestamp(), 1_800_000_000);
        assert_eq!(events[1].outcome, Outcome::Failed { error_id: "bounced" });
        assert_eq!(events[1].reason.as_deref(), Some("550 5.1.1 no such user"));
        assert!(events[1].herald_message_id.is_some());
        assert!(parse(b"{}").is_err());
        assert!(parse(br#"[{"event":"delivered"}]"#).is_err(), "an event naming no message");
    }
}
