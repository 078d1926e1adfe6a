//! Mailgun's webhooks (the JSON ones): `{"signature": {"timestamp", "token", "signature"},
//! "event-data": {…}}`, where `signature` is the hex HMAC-SHA256 of `timestamp + token` under the
//! account's HTTP webhook signing key. The signature does not cover `event-data`; the timestamp
//! window (five minutes) and Mailgun's one-use tokens are what the scheme offers against replays.
//!
//! Secret: the integration's `secretKey` credential holds the **HTTP webhook signing key** (Mailgun's
//! dashboard, "Webhooks"; it is not the API key).
//!
//! The message is found by `event-data.message.headers.message-id`, with or without the angle
//! brackets of the `<…@domain>` id Herald stored. Events: `accepted` (pending), `delivered`,
//! `failed` (`severity` `temporary`: Mailgun retries, pending; `permanent`: a bounce when the reason
//! says so, else a failure), `complained`; engagement events are ignored.

use chrono::{DateTime, Utc};
use ring::hmac::HMAC_SHA256;
use serde_json::Value;

use super::signing::{check_fresh, hmac_matches, malformed, refused, secret};
use super::{InboundWebhook, Integration, Outcome, StatusEvent};
use crate::error::AppResult;

const PROVIDER: &str = "mailgun";

/// Verifies the post and reads its event.
pub(super) fn read(
    webhook: &InboundWebhook,
    integration: &Integration,
    now: DateTime<Utc>,
) -> AppResult<Vec<StatusEvent>> {
    let signing_key = secret(integration, "secretKey")?;
    // Unreadable JSON cannot carry a signature: refused as unsigned, not as malformed.
    let body: Value = serde_json::from_slice(&webhook.body).map_err(|_| refused(PROVIDER, "no signature"))?;
    verify(&body["signature"], signing_key, now)?;
    parse(&body["event-data"]).map(|event| event.into_iter().collect())
}

fn verify(signature: &Value, signing_key: &str, now: DateTime<Utc>) -> AppResult<()> {
    let field = |name: &str| match &signature[name] {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    };
    let (Some(timestamp), Some(token), Some(expected)) = (field("timestamp"), field("token"), field("signature"))
    else {
        return Err(refused(PROVIDER, "no signature"));
    };
    let tag = hex::decode(expected).map_err(|_| refused(PROVIDER, "the signature is not hex"))?;
    let signed = format!("{timestamp}{token}");
    if !hmac_matches(HMAC_SHA256, signing_key.as_bytes(), signed.as_bytes(), &tag) {
        return Err(refused(PROVIDER, "the signature does not match"));
    }
    check_fresh(PROVIDER, Some(&timestamp), now)
}

fn parse(event: &Value) -> AppResult<Option<StatusEvent>> {
    let name = event["event"].as_str().ok_or_else(|| malformed(PROVIDER, "no `event-data.event`"))?;
    let Some(outcome) = outcome(name, event) else { return Ok(None) };
    let message_id = event["message"]["headers"]["message-id"]
        .as_str()
        .map(|id| id.trim().trim_start_matches('<').trim_end_matches('>'))
        .filter(|id| !id.is_empty())
        .ok_or_else(|| malformed(PROVIDER, "no `event-data.message.headers.message-id`"))?;
    let status = &event["delivery-status"];
    let reason = [&status["description"], &status["message"], &event["reason"]]
        .into_iter()
        .find_map(|text| text.as_str().filter(|text| !text.is_empty()))
        .map(str::to_string);
    Ok(Some(StatusEvent {
        herald_message_id: None,
        provider_message_ids: vec![message_id.to_string(), format!("<{message_id}>")],
        outcome,
        event: name.to_string(),
        reason,
        occurred_at: event["timestamp"].as_f64().and_then(|seconds| DateTime::from_timestamp(seconds as i64, 0)),
        raw: event.to_string(),
    }))
}

fn outcome(event: &str, fields: &Value) -> Option<Outcome> {
    Some(match event {
        "delivered" => Outcome::Delivered,
        "accepted" => Outcome::Pending,
        "failed" if fields["severity"] == "temporary" => Outcome::Pending,
        "failed" if matches!(fields["reason"].as_str(), Some("bounce" | "suppress-bounce")) => {
            Outcome::Failed { error_id: "bounced" }
        }
        "failed" => Outcome::Failed { error_id: "delivery_failed" },
        "complained" => Outcome::Failed { error_id: "complained" },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const KEY: &str = "key-signing-abc";

    fn signature(timestamp: &str, token: &str, key: &str) -> Value {
        let tag = ring::hmac::sign(
            &ring::hmac::Key::new(HMAC_SHA256, key.as_bytes()),
            format!("{timestamp}{token}").as_bytes(),
        );
        json!({"timestamp": timestamp, "token": token, "signature": hex::encode(tag.as_ref())})
    }

    #[test]
    fn the_signature_is_the_hmac_of_timestamp_and_token_under_the_signing_key() {
        let now = Utc::now();
        let timestamp = now.timestamp().to_string();
        assert!(verify(&signature(&timestamp, "tok-1", KEY), KEY, now).is_ok());
        assert!(verify(&signature(&timestamp, "tok-1", "another-key"), KEY, now).is_err());
        let mut swapped = signature(&timestamp, "tok-1", KEY);
        swapped["token"] = json!("tok-2");
        assert!(verify(&swapped, KEY, now).is_err());
        let stale = (now.timestamp() - 600).to_string();
        assert!(verify(&signature(&stale, "tok-1", KEY), KEY, now).is_err());
        assert!(verify(&json!({}), KEY, now).is_err());
    }

    #[test]
    fn a_permanent_failure_is_a_bounce_and_a_temporary_one_is_pending() {
        let event = |severity: &str, reason: &str| {
            json!({"event": "failed", "severity": severity, "reason": reason, "timestamp": 1800000000.25,
                   "message": {"headers": {"message-id": "20261124.abc@mg.acme.io"}},
                   "delivery-status": {"code": 550, "message": "", "description": "No such mailbox"}})
        };
        let bounce = parse(&event("permanent", "bounce")).unwrap().unwrap();
        assert_eq!(bounce.outcome, Outcome::Failed { error_id: "bounced" });
        assert_eq!(bounce.reason.as_deref(), Some("No such mailbox"));
        assert_eq!(bounce.provider_message_ids, ["20261124.abc@mg.acme.io", "<20261124.abc@mg.acme.io>"]);
        assert_eq!(
            parse(&event("permanent", "generic")).unwrap().unwrap().outcome,
            Outcome::Failed { error_id: "delivery_failed" }
        );
        assert_eq!(parse(&event("temporary", "generic")).unwrap().unwrap().outcome, Outcome::Pending);
        assert_eq!(parse(&json!({"event": "opened"})).unwrap(), None);
        assert!(parse(&json!({"event": "delivered"})).is_err(), "no message id");
    }
}
