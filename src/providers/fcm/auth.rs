//! FCM's access tokens: Google's server-to-server OAuth flow (RFC 7523, a JWT bearer assertion).
//!
//! The integration's service account signs a JWT with its RSA key (RS256):
//! header `{"alg":"RS256","typ":"JWT","kid":<private_key_id>}`, claims
//! `{"iss":<client_email>,"scope":".../auth/firebase.messaging","aud":<token_uri>,"iat","exp":iat+3600}`.
//! `POST <token_uri>` (form: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>`)
//! answers `{"access_token","expires_in","token_type":"Bearer"}`, or `400 {"error":"invalid_grant",
//! "error_description"}` for a refused assertion (a revoked key, a bad signature, a skewed clock).
//!
//! Tokens are cached per service account (a hash of what the assertion is made of, never the key
//! itself in the clear) until a minute before they expire, and refreshed single-flight: the sends that
//! find the token stale wait for one exchange, and share its failure too, instead of each making their
//! own. Novu made one exchange per message; Herald makes about one an hour per integration.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{RsaKeyPair, RSA_PKCS1_SHA256};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::ID;
use crate::providers::endpoint::checked_url;
use crate::providers::http::{coded, noted, ErrorKind};
use crate::providers::registry::Http;
use crate::providers::ProviderError;

/// The only scope FCM's send needs.
pub(crate) const SCOPE: &str = "https://www.googleapis.com/auth/firebase.messaging";
const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// Where an account without a `token_uri` exchanges its assertions (every real key file names it).
const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
/// The longest lifetime Google accepts for an assertion.
const ASSERTION_LIFETIME: u64 = 3600;
/// A token is replaced this long before it expires, so that no send carries one that expires on the way
/// (Google's own libraries use 20 to 30 s; a minute also absorbs some clock drift).
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);
const EXCHANGING: &str = "exchanging the service account's assertion for an access token";

/// The fields of a service-account key file that FCM needs. Not `Debug`: it holds the private key.
pub(crate) struct ServiceAccount {
    pub(crate) project_id: String,
    client_email: String,
    private_key: String,
    private_key_id: Option<String>,
    token_uri: String,
}

impl ServiceAccount {
    /// The account in credential `serviceAccount` (older integrations: `user`): the key file's JSON as a
    /// string, or as an object.
    pub(crate) fn of(credentials: &Value) -> Result<Self, ProviderError> {
        let misconfigured = |why: &str| ProviderError::misconfigured(format!("{ID} `serviceAccount` {why}"));
        let given = ["serviceAccount", "user"]
            .into_iter()
            .map(|key| &credentials[key])
            .find(|value| value.as_str().is_some_and(|text| !text.is_empty()) || value.is_object())
            .ok_or_else(|| {
                ProviderError::misconfigured(format!("{ID} integration has no `serviceAccount` credential"))
            })?;
        let parsed;
        let account = match given {
            Value::String(text) => {
                // serde's message could quote the text, which holds the private key: say only where.
                parsed = serde_json::from_str::<Value>(text).map_err(|err| {
                    misconfigured(&format!("is not JSON (line {}, column {})", err.line(), err.column()))
                })?;
                &parsed
            }
            object => object,
        };
        let field = |name: &str| account[name].as_str().filter(|value| !value.is_empty()).map(str::to_owned);
        let required = |name: &str| field(name).ok_or_else(|| misconfigured(&format!("has no `{name}`")));
        let project_id = required("project_id")?;
        // It goes into the send's path: Google's ids are letters, digits and hyphens (`example.com:name`
        // for old domain-scoped projects).
        if !project_id.chars().all(|c| c.is_ascii_alphanumeric() || "-.:_".contains(c)) {
            return Err(misconfigured("has a `project_id` that is not a Google Cloud project id"));
        }
        Ok(Self {
            project_id,
            client_email: required("client_email")?,
            private_key: required("private_key")?,
            private_key_id: field("private_key_id"),
            token_uri: field("token_uri").unwrap_or_else(|| DEFAULT_TOKEN_URI.to_owned()),
        })
    }

    /// What tells two accounts' tokens apart. A hash, so the cache holds no key material.
    fn cache_key(&self) -> [u8; 32] {
        let mut hash = Sha256::new();
        for part in [&self.token_uri, &self.client_email, &self.private_key] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        hash.update(self.private_key_id.as_deref().unwrap_or_default().as_bytes());
        hash.finalize().into()
    }

    /// The signed JWT that asks `token_uri` for an FCM token, issued at `iat` (Unix seconds).
    pub(crate) fn assertion(&self, iat: u64) -> Result<String, ProviderError> {
        let mut header = json!({"alg": "RS256", "typ": "JWT"});
        if let Some(kid) = &self.private_key_id {
            header["kid"] = json!(kid);
        }
        let claims = json!({
            "iss": self.client_email,
            "scope": SCOPE,
            "aud": self.token_uri,
            "iat": iat,
            "exp": iat + ASSERTION_LIFETIME,
        });
        let signed =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let key = self.key_pair()?;
        let mut signature = vec![0; key.public().modulus_len()];
        key.sign(&RSA_PKCS1_SHA256, &SystemRandom::new(), signed.as_bytes(), &mut signature).map_err(|_| {
            ProviderError::misconfigured(format!("{ID}: signing with the service account's key failed"))
        })?;
        Ok(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature)))
    }

    /// The RSA key of `private_key`: PEM, PKCS#8 as Google issues it (PKCS#1 accepted too). A key pasted
    /// with its line breaks escaped twice (`\\n`) still reads.
    fn key_pair(&self) -> Result<RsaKeyPair, ProviderError> {
        let misconfigured = |why: String| ProviderError::misconfigured(format!("{ID} `serviceAccount` {why}"));
        let pem = self.private_key.replace("\\n", "\n");
        let label = ["PRIVATE KEY", "RSA PRIVATE KEY"]
            .into_iter()
            .find(|label| pem.contains(&format!("-----BEGIN {label}-----")))
            .ok_or_else(|| misconfigured("private_key is not a PEM private key".to_owned()))?;
        let inside = pem
            .split(&format!("-----BEGIN {label}-----"))
            .nth(1)
            .and_then(|rest| rest.split(&format!("-----END {label}-----")).next())
            .unwrap_or_default();
        let der = STANDARD
            .decode(inside.chars().filter(|c| !c.is_ascii_whitespace()).collect::<String>())
            .map_err(|_| misconfigured("private_key is not valid PEM (bad base64)".to_owned()))?;
        let parsed = if label == "PRIVATE KEY" { RsaKeyPair::from_pkcs8(&der) } else { RsaKeyPair::from_der(&der) };
        parsed.map_err(|rejected| misconfigured(format!("private_key is not a usable RSA key: {rejected}")))
    }
}

/// The access tokens of every service account this process has sent with.
#[derive(Default)]
pub(crate) struct AccessTokens {
    slots: Mutex<HashMap<[u8; 32], Arc<tokio::sync::Mutex<Slot>>>>,
}

/// One account's token, and the failure of its last exchange (shared with the sends that waited for it).
#[derive(Default)]
struct Slot {
    token: Option<AccessToken>,
    failure: Option<(Instant, ProviderError)>,
}

struct AccessToken {
    value: String,
    refresh_at: Instant,
}

impl Slot {
    fn fresh_token(&self) -> Option<&str> {
        self.token.as_ref().filter(|token| Instant::now() < token.refresh_at).map(|token| token.value.as_str())
    }
}

impl AccessTokens {
    /// A valid access token for `account`: the cached one, or a new one when there is none, it is about
    /// to expire, or it is `refused` (FCM answered 401 to it). One exchange at a time per account; the
    /// sends that waited for it take its token, or its error.
    pub(crate) async fn get(
        &self,
        account: &ServiceAccount,
        http: &Http,
        refused: Option<&str>,
    ) -> Result<String, ProviderError> {
        let asked_at = Instant::now();
        let slot = self.slot(account.cache_key());
        let mut slot = slot.lock().await;
        if let Some((failed_at, err)) = &slot.failure {
            if *failed_at >= asked_at {
                return Err(err.clone());
            }
        }
        if let Some(token) = slot.fresh_token().filter(|token| Some(*token) != refused) {
            return Ok(token.to_owned());
        }
        match exchange(account, http).await {
            Ok(token) => {
                let value = token.value.clone();
                *slot = Slot { token: Some(token), failure: None };
                Ok(value)
            }
            Err(err) => {
                *slot = Slot { token: None, failure: Some((Instant::now(), err.clone())) };
                Err(err)
            }
        }
    }

    fn slot(&self, key: [u8; 32]) -> Arc<tokio::sync::Mutex<Slot>> {
        let mut slots = self.slots.lock().expect("the token cache lock is never poisoned");
        if let Some(slot) = slots.get(&key) {
            return slot.clone();
        }
        // A new account (or a rotated key): forget the accounts whose tokens expired and that no send
        // is using, so that rotations do not pile up.
        slots.retain(|_, slot| {
            Arc::strong_count(slot) > 1 || slot.try_lock().is_ok_and(|slot| slot.fresh_token().is_some())
        });
        slots.entry(key).or_default().clone()
    }
}

/// One exchange at the account's `token_uri`. Refusals of the assertion (4xx) are the integration's
/// fault: its key was revoked, or the key file is wrong.
async fn exchange(account: &ServiceAccount, http: &Http) -> Result<AccessToken, ProviderError> {
    let url = checked_url(ID, "token_uri", &account.token_uri, &http.settings)?;
    let iat = SystemTime::now().duration_since(UNIX_EPOCH).map(|since| since.as_secs()).unwrap_or_default();
    let assertion = account.assertion(iat)?;
    let request = http.client.post(url).form(&[("grant_type", GRANT_TYPE), ("assertion", &assertion)]);
    let obtained_at = Instant::now();
    let answer = http.fetch(ID, request).await.map_err(|err| noted(err, EXCHANGING))?;
    if !answer.status.is_success() {
        let kind = match ErrorKind::of_status(answer.status) {
            ErrorKind::Permanent => ErrorKind::Misconfigured,
            kind => kind,
        };
        let json = serde_json::from_str::<Value>(answer.body.text()).unwrap_or_default();
        let text = coded(json["error"].as_str(), json["error_description"].as_str());
        return Err(noted(answer.error_saying(ID, kind, text), EXCHANGING));
    }
    // No `raw` in these errors: a 200 body holds a token.
    let json = serde_json::from_str::<Value>(answer.body.text()).unwrap_or_default();
    let (Some(value), Some(expires_in)) = (json["access_token"].as_str(), json["expires_in"].as_u64()) else {
        return Err(ProviderError::misconfigured(format!(
            "{ID}: the token_uri answered {} without an access_token and expires_in ({EXCHANGING})",
            answer.status
        )));
    };
    let lifetime = Duration::from_secs(expires_in).saturating_sub(EXPIRY_MARGIN);
    Ok(AccessToken { value: value.to_owned(), refresh_at: obtained_at + lifetime })
}

#[cfg(test)]
mod tests {
    use ring::signature::{UnparsedPublicKey, RSA_PKCS1_2048_8192_SHA256};

    use super::*;

    const KEY: &str = include_str!("../../../tests/fixtures/fcm-test-key.pem");

    fn account() -> Value {
        json!({"type": "service_account", "project_id": "herald-test", "private_key_id": "kid-1",
               "private_key": KEY, "client_email": "push@herald-test.iam.gserviceaccount.com",
               "token_uri": "https://oauth2.example.com/token"})
    }

    fn decoded(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn the_assertion_is_an_rs256_jwt_that_the_public_half_verifies() {
        let account = ServiceAccount::of(&json!({"serviceAccount": account().to_string()})).unwrap();

        let jwt = account.assertion(1_700_000_000).unwrap();

        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(decoded(parts[0]), json!({"alg": "RS256", "typ": "JWT", "kid": "kid-1"}));
        assert_eq!(
            decoded(parts[1]),
            json!({"iss": "push@herald-test.iam.gserviceaccount.com", "scope": SCOPE,
                   "aud": "https://oauth2.example.com/token", "iat": 1_700_000_000u64, "exp": 1_700_003_600u64})
        );
        let public = account.key_pair().unwrap().public().as_ref().to_vec();
        let signed = format!("{}.{}", parts[0], parts[1]);
        UnparsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, public)
            .verify(signed.as_bytes(), &URL_SAFE_NO_PAD.decode(parts[2]).unwrap())
            .expect("a valid signature");
    }

    #[test]
    fn the_account_reads_as_an_object_from_user_and_with_escaped_line_breaks() {
        let mut escaped = account();
        escaped["private_key"] = json!(KEY.replace('\n', "\\n"));
        let account = ServiceAccount::of(&json!({"user": escaped})).unwrap();
        assert_eq!(account.project_id, "herald-test");
        assert!(account.assertion(0).is_ok());
    }

    #[test]
    fn a_broken_account_misconfigures_the_integration_without_quoting_it() {
        let mut no_email = account();
        no_email.as_object_mut().unwrap().remove("client_email");
        let mut bad_key = account();
        bad_key["private_key"] = json!("-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n");
        let mut bad_project = account();
        bad_project["project_id"] = json!("../admin");
        for (credentials, message) in [
            (json!({}), "fcm integration has no `serviceAccount` credential"),
            (
                json!({"serviceAccount": "{\"private_key\": \"secret"}),
                "fcm `serviceAccount` is not JSON (line 1, column",
            ),
            (json!({"serviceAccount": no_email}), "fcm `serviceAccount` has no `client_email`"),
            (json!({"serviceAccount": bad_project}), "fcm `serviceAccount` has a `project_id` that is not"),
        ] {
            let err = ServiceAccount::of(&credentials).err().expect("refused");
            assert!(err.is_integration_fault(), "{err:?}");
            assert!(err.to_string().contains(message), "{err}");
            assert!(!err.to_string().contains("secret"), "{err}");
        }
        let err = ServiceAccount::of(&json!({"serviceAccount": bad_key})).unwrap().assertion(0).unwrap_err();
        assert!(err.to_string().contains("private_key is not a usable RSA key"), "{err}");
    }
}
