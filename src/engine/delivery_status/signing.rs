//! What the providers' verifiers share: the secret from the integration, constant-time HMAC checks,
//! the five-minute replay window and the refusals.

use base64::Engine;
use chrono::{DateTime, Utc};
use ring::hmac;

use super::Integration;
use crate::error::{AppError, AppResult};

/// How far a signed timestamp may be from now, either way, before the post is refused as a replay.
pub(super) const TOLERANCE_SECS: i64 = 5 * 60;

/// A 401 for a post that does not prove it comes from the provider. Says why, never with a secret.
pub(super) fn refused(provider: &str, why: &str) -> AppError {
    AppError::Unauthenticated(format!("{provider} webhook refused: {why}"))
}

/// A 400 for a verified post whose events cannot be read.
pub(super) fn malformed(provider: &str, what: impl std::fmt::Display) -> AppError {
    AppError::BadRequest(format!("Malformed {provider} webhook: {what}"))
}

/// The text credential `name` of the integration: the webhook's secret. Without it nothing can be
/// verified, so the post is refused.
pub(super) fn secret<'a>(integration: &'a Integration, name: &str) -> AppResult<&'a str> {
    let provider = integration.row.provider_id.as_str();
    integration.credentials[name]
        .as_str()
        .map(str::trim)
        .filter(|secret| !secret.is_empty())
        .ok_or_else(|| refused(provider, &format!("the integration has no `{name}` credential to verify it with")))
}

/// Refuses a post whose signed timestamp (Unix seconds, as text) is missing, unreadable, or more
/// than [`TOLERANCE_SECS`] away from `now`.
pub(super) fn check_fresh(provider: &str, timestamp: Option<&str>, now: DateTime<Utc>) -> AppResult<()> {
    let seconds = timestamp
        .and_then(|text| text.trim().parse::<i64>().ok())
        .ok_or_else(|| refused(provider, "no signed timestamp"))?;
    if (now.timestamp() - seconds).abs() > TOLERANCE_SECS {
        return Err(refused(provider, "the signed timestamp is more than 5 minutes off (a replay?)"));
    }
    Ok(())
}

/// Whether `tag` is the HMAC of `message` under `key` (compared in constant time).
pub(super) fn hmac_matches(algorithm: hmac::Algorithm, key: &[u8], message: &[u8], tag: &[u8]) -> bool {
    hmac::verify(&hmac::Key::new(algorithm, key), message, tag).is_ok()
}

/// Whether two secrets are equal, compared in constant time (through their HMACs under a throwaway key).
pub(super) fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let key = hmac::Key::new(hmac::HMAC_SHA256, b"herald-webhook-secret-comparison");
    hmac::verify(&key, given, hmac::sign(&key, expected).as_ref()).is_ok()
}

/// Standard base64, `None` when it is not.
pub(super) fn base64_bytes(text: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(text.trim()).ok()
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_timestamp_within_five_minutes_either_way_is_fresh() {
        let now = Utc.timestamp_opt(1_800_000_000, 0).unwrap();
        assert!(check_fresh("p", Some("1800000300"), now).is_ok());
        assert!(check_fresh("p", Some("1799999700"), now).is_ok());
        for stale in [Some("1799999699"), Some("1800000301"), Some("soon"), None] {
            let refusal = check_fresh("p", stale, now).unwrap_err();
            assert!(matches!(refusal, AppError::Unauthenticated(_)), "{stale:?}: {refusal:?}");
        }
    }
}
