//! Inbox session tokens: JWTs (HS256) signed with a key derived from the server's secret key, so any
//! process sharing that key verifies a token another issued. A token names one subscriber of one
//! environment and expires after [`SESSION_LIFETIME`].
//!
//! Why one hour (the reference service issues 15 days): a token cannot be revoked, and it is handed
//! to a browser, so its lifetime is how long a leaked one stays useful; a client renews it by opening
//! a new session, which costs it one request (the `subscriberHash` it needs is computed by the
//! customer's backend once per subscriber, not per session).

use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::InboxSubscriber;
use crate::crypto::CredentialCipher;
use crate::domain::tenancy::Tenant;
use crate::error::AppError;

/// How long a session token is valid.
pub const SESSION_LIFETIME: Duration = Duration::hours(1);
const ISSUER: &str = "herald";
const AUDIENCE: &str = "herald-inbox";
/// Label of the signing key derived from the server's secret key; a new label invalidates every token.
const KEY_PURPOSE: &str = "herald inbox session token v1";

/// What a token says.
#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    iss: String,
    aud: String,
    /// The client's subscriberId.
    sub: String,
    /// Internal id of the subscriber.
    sid: Uuid,
    env: Uuid,
    org: Uuid,
    iat: i64,
    exp: i64,
}

/// Issues and verifies session tokens.
#[derive(Clone)]
pub struct SessionTokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl SessionTokens {
    pub fn new(cipher: &CredentialCipher) -> Self {
        let key = cipher.derive_key(KEY_PURPOSE);
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        // The processes that verify are the ones that issue: their clocks agree to well within this.
        validation.leeway = 5;
        Self { encoding: EncodingKey::from_secret(&key), decoding: DecodingKey::from_secret(&key), validation }
    }

    /// A token for `subscriber` issued at `issued_at`, and when it expires.
    pub fn issue(&self, subscriber: &InboxSubscriber, issued_at: DateTime<Utc>) -> (String, DateTime<Utc>) {
        let expires_at = issued_at + SESSION_LIFETIME;
        let claims = Claims {
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            sub: subscriber.subscriber_id.clone(),
            sid: subscriber.id,
            env: subscriber.tenant.environment_id,
            org: subscriber.tenant.organization_id,
            iat: issued_at.timestamp(),
            exp: expires_at.timestamp(),
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing of serializable claims cannot fail");
        (token, expires_at)
    }

    /// The subscriber a valid, unexpired token names; anything else is a 401.
    pub fn verify(&self, token: &str) -> Result<InboxSubscriber, AppError> {
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|error| match error.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => {
                    AppError::Unauthenticated("Session token expired".into())
                }
                _ => AppError::Unauthenticated("Invalid session token".into()),
            })?
            .claims;
        Ok(InboxSubscriber {
            tenant: Tenant { organization_id: claims.org, environment_id: claims.env },
            id: claims.sid,
            subscriber_id: claims.sub,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ada() -> InboxSubscriber {
        InboxSubscriber {
            tenant: Tenant { organization_id: Uuid::now_v7(), environment_id: Uuid::now_v7() },
            id: Uuid::now_v7(),
            subscriber_id: "ada".into(),
        }
    }

    #[test]
    fn a_token_names_its_subscriber_until_it_expires() {
        let tokens = SessionTokens::new(&CredentialCipher::random());
        let (token, expires_at) = tokens.issue(&ada(), Utc::now());
        assert!(expires_at > Utc::now() + Duration::minutes(59));
        assert_eq!(tokens.verify(&token).unwrap().subscriber_id, "ada");
        let (old, _) = tokens.issue(&ada(), Utc::now() - SESSION_LIFETIME - Duration::minutes(1));
        assert_eq!(tokens.verify(&old).unwrap_err().to_string(), "Session token expired");
    }

    #[test]
    fn another_servers_or_an_altered_token_is_refused() {
        let tokens = SessionTokens::new(&CredentialCipher::random());
        let (theirs, _) = SessionTokens::new(&CredentialCipher::random()).issue(&ada(), Utc::now());
        assert_eq!(tokens.verify(&theirs).unwrap_err().to_string(), "Invalid session token");
        let (mut ours, _) = tokens.issue(&ada(), Utc::now());
        ours.insert(ours.len() - 3, 'x');
        assert!(tokens.verify(&ours).is_err());
        assert!(tokens.verify("not.a.token").is_err());
    }
}
