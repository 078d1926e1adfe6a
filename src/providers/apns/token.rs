//! APNs provider tokens: a JWT with header `{"alg": "ES256", "kid": <key id>}` and claims
//! `{"iss": <team id>, "iat": <unix seconds>}`, signed with the team's `.p8` key (PKCS#8, P-256) as
//! base64url(header).base64url(claims).base64url(r‖s).
//!
//! Apple rejects a token older than an hour (403 `ExpiredProviderToken`) and one renewed more often than
//! every 20 minutes (429 `TooManyProviderTokenUpdates`), so a token is signed once and reused by every
//! send for [`TOKEN_LIFETIME`]. The renewal is single-flight: the one lock is held while signing (tens of
//! microseconds, no await), so concurrent sends that find the token stale sign it once between them.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::providers::ProviderError;

/// How long one token is used: inside Apple's 20–60 minute window, with room for clock skew at the
/// top end.
pub(super) const TOKEN_LIFETIME: Duration = Duration::from_secs(50 * 60);

/// One team's signing key and the token it signed last. No `Debug`: it holds the private key.
pub(super) struct ProviderTokens {
    team_id: String,
    key_id: String,
    key: EcdsaKeyPair,
    /// SHA-256 of the key as configured, so that a replaced key under the same key id is noticed
    /// without keeping its text.
    fingerprint: [u8; 32],
    rng: SystemRandom,
    current: Mutex<Option<Signed>>,
}

struct Signed {
    jwt: String,
    at: Instant,
}

impl ProviderTokens {
    /// Reads the `.p8` key: its PEM text (the `-----BEGIN PRIVATE KEY-----` lines are optional, and so
    /// are line breaks, written out as `\n` or not). The error never quotes the key.
    pub(super) fn new(team_id: &str, key_id: &str, p8: &str) -> Result<Self, ProviderError> {
        let unreadable = || {
            ProviderError::misconfigured(
                "apns `secretKey` is not a P-256 private key in PKCS#8 PEM (the text of the .p8 file Apple issued)",
            )
        };
        let base64: String = p8
            .replace("\\n", "\n")
            .lines()
            .filter(|line| !line.trim_start().starts_with("-----"))
            .flat_map(|line| line.chars().filter(|c| !c.is_whitespace()))
            .collect();
        let der = STANDARD.decode(base64).map_err(|_| unreadable())?;
        let rng = SystemRandom::new();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng).map_err(|_| unreadable())?;
        Ok(Self {
            team_id: team_id.to_owned(),
            key_id: key_id.to_owned(),
            key,
            fingerprint: fingerprint(p8),
            rng,
            current: Mutex::new(None),
        })
    }

    /// Whether `p8` is the key these tokens are signed with.
    pub(super) fn signs_with(&self, p8: &str) -> bool {
        self.fingerprint == fingerprint(p8)
    }

    /// The token to send now: the current one while it is younger than [`TOKEN_LIFETIME`], else a new one.
    pub(super) fn token(&self) -> Result<String, ProviderError> {
        self.token_at(Instant::now())
    }

    fn token_at(&self, now: Instant) -> Result<String, ProviderError> {
        let mut current = self.current.lock().expect("the token lock is never poisoned");
        if let Some(fresh) = current.as_ref().filter(|signed| now.saturating_duration_since(signed.at) < TOKEN_LIFETIME)
        {
            return Ok(fresh.jwt.clone());
        }
        self.sign_into(&mut current, now)
    }

    /// A new token after APNs refused `rejected` as expired. When another send renewed it already, that
    /// newer token is used instead of signing yet another (APNs limits how often a token may change).
    pub(super) fn renew(&self, rejected: &str) -> Result<String, ProviderError> {
        let mut current = self.current.lock().expect("the token lock is never poisoned");
        if let Some(newer) = current.as_ref().filter(|signed| signed.jwt != rejected) {
            return Ok(newer.jwt.clone());
        }
        self.sign_into(&mut current, Instant::now())
    }

    /// Signs a token issued now and makes it the current one.
    fn sign_into(&self, current: &mut Option<Signed>, now: Instant) -> Result<String, ProviderError> {
        let issued_at = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        let header = json!({"alg": "ES256", "kid": self.key_id});
        let claims = json!({"iss": self.team_id, "iat": issued_at});
        let signing_input =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = self
            .key
            .sign(&self.rng, signing_input.as_bytes())
            .map_err(|_| ProviderError::transient("apns: could not sign the provider token (no randomness)"))?;
        let jwt = format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()));
        *current = Some(Signed { jwt: jwt.clone(), at: now });
        Ok(jwt)
    }
}

fn fingerprint(p8: &str) -> [u8; 32] {
    Sha256::digest(p8.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use ring::signature::{KeyPair, UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};
    use serde_json::Value;

    use super::*;

    fn test_key() -> (String, Vec<u8>) {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let public = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap()
            .public_key()
            .as_ref()
            .to_vec();
        let body = STANDARD.encode(pkcs8.as_ref());
        let lines: Vec<&str> = body.as_bytes().chunks(64).map(|line| std::str::from_utf8(line).unwrap()).collect();
        (format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", lines.join("\n")), public)
    }

    fn part(jwt: &str, index: usize) -> Value {
        let part = jwt.split('.').nth(index).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_token_is_an_es256_jwt_that_the_public_key_verifies() {
        let (p8, public) = test_key();
        let tokens = ProviderTokens::new("TEAM123456", "KEY1234567", &p8).unwrap();

        let jwt = tokens.token().unwrap();

        assert_eq!(part(&jwt, 0), json!({"alg": "ES256", "kid": "KEY1234567"}));
        let claims = part(&jwt, 1);
        assert_eq!(claims["iss"], "TEAM123456");
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        assert!(now.abs_diff(claims["iat"].as_u64().unwrap()) <= 5, "{claims}");
        let (signing_input, signature) = jwt.rsplit_once('.').unwrap();
        let signature = URL_SAFE_NO_PAD.decode(signature).unwrap();
        assert_eq!(signature.len(), 64, "r‖s, not DER");
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, public).verify(signing_input.as_bytes(), &signature).unwrap();
    }

    #[test]
    fn a_token_is_reused_for_its_lifetime_then_signed_again() {
        let (p8, _) = test_key();
        let tokens = ProviderTokens::new("TEAM123456", "KEY1234567", &p8).unwrap();
        let start = Instant::now();

        let first = tokens.token_at(start).unwrap();

        assert_eq!(tokens.token_at(start + Duration::from_secs(49 * 60)).unwrap(), first);
        let later = tokens.token_at(start + TOKEN_LIFETIME).unwrap();
        assert_ne!(later, first);
        assert_eq!(tokens.token_at(start + TOKEN_LIFETIME + Duration::from_secs(1)).unwrap(), later);
    }

    #[test]
    fn an_expired_token_is_renewed_once_however_many_sends_saw_it_refused() {
        let (p8, _) = test_key();
        let tokens = ProviderTokens::new("TEAM123456", "KEY1234567", &p8).unwrap();
        let refused = tokens.token().unwrap();

        let renewed = tokens.renew(&refused).unwrap();

        assert_ne!(renewed, refused);
        assert_eq!(tokens.renew(&refused).unwrap(), renewed, "a second refusal of the old token signs nothing");
        assert_eq!(tokens.token().unwrap(), renewed);
    }

    #[test]
    fn keys_are_read_with_or_without_pem_lines_and_escaped_newlines() {
        let (p8, _) = test_key();
        let escaped = p8.replace('\n', "\\n");
        let bare: String = p8.lines().filter(|line| !line.starts_with("-----")).collect();
        for text in [&p8, &escaped, &bare] {
            assert!(ProviderTokens::new("T", "K", text).is_ok(), "{text}");
        }
        let tokens = ProviderTokens::new("T", "K", &p8).unwrap();
        assert!(tokens.signs_with(&p8) && !tokens.signs_with(&escaped));
    }

    #[test]
    fn an_unreadable_key_misconfigures_the_integration_without_being_quoted() {
        let rsa_like = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----";
        for p8 in ["not a key", rsa_like] {
            let err = ProviderTokens::new("T", "K", p8).err().expect("refused");
            assert!(err.is_integration_fault(), "{err:?}");
            assert!(!err.to_string().contains("c2VjcmV0") && !err.to_string().contains("not a key"), "{err}");
        }
    }
}
