//! Amazon SNS's HTTP(S) deliveries, which carry Amazon SES's delivery events: SES publishes each event
//! to an SNS topic (a configuration set's event destination, or an identity's notification topic), and
//! the topic's HTTPS subscription posts it here as JSON (with `Content-Type: text/plain`).
//!
//! Verification (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html): the
//! post names the certificate that signed it (`SigningCertURL`); Herald fetches it (cached per URL, so
//! a certificate is fetched once per process) only from an Amazon SNS host over https
//! (`sns.<region>.amazonaws.com`, or `.amazonaws.com.cn`), or from the origin of the integration's own
//! `baseUrl` (a private endpoint, a test's local fake), and checks the RSA signature over the fields
//! SNS signs: SHA1withRSA for `SignatureVersion` 1, SHA256withRSA for 2. There is no secret of the
//! integration in this scheme: the events are matched only to messages this integration sent, by SES's
//! unguessable message ids.
//!
//! `SubscriptionConfirmation`: once verified, Herald confirms the subscription by fetching its
//! `SubscribeURL` (under the same host rule), so an operator only points the topic at the webhook URL.
//! Raw message delivery must stay off: a raw post carries no signature and is refused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::{Client, Url};
use ring::signature::{
    UnparsedPublicKey, VerificationAlgorithm, RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY, RSA_PKCS1_2048_8192_SHA256,
};
use serde_json::Value;

use super::signing::{base64_bytes, malformed, refused};
use super::{InboundWebhook, Integration};
use crate::error::{AppError, AppResult};
use crate::providers::{integration_base, refusal_in, ProviderSettings};

const PROVIDER: &str = "ses";
/// Certificates kept per process; SNS signs with one certificate per region at a time.
const MAX_CACHED_CERTIFICATES: usize = 64;
/// A certificate or a confirmation that takes longer is not worth holding SNS's request for: it retries.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// What a verified SNS post is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum SnsPost {
    /// A published message: for SES, one delivery event as JSON text.
    Notification { message: String },
    /// The topic asks to confirm the subscription (already confirmed when this is returned).
    Confirmed,
    /// The subscription was removed; nothing to do.
    Unsubscribed,
}

/// Fetches and caches SNS signing certificates, and confirms subscriptions. One per process.
pub struct SnsCertificates {
    client: Client,
    settings: ProviderSettings,
    /// Each certificate URL's RSA public key (DER).
    keys: Mutex<HashMap<String, Arc<Vec<u8>>>>,
}

impl SnsCertificates {
    pub fn new(settings: ProviderSettings) -> Self {
        // The outbound policy's client never follows a redirect: the host rule is checked on the URL the
        // post names, and a redirect would step around it.
        let client = settings
            .outbound
            .http_client()
            .timeout(FETCH_TIMEOUT)
            .build()
            .expect("the HTTP client's TLS backend initializes");
        Self { client, settings, keys: Mutex::new(HashMap::new()) }
    }

    /// Verifies the post's signature and, for a subscription confirmation, confirms it.
    pub(super) async fn verify(&self, webhook: &InboundWebhook, integration: &Integration) -> AppResult<SnsPost> {
        let post: Value = serde_json::from_slice(&webhook.body)
            .map_err(|_| refused(PROVIDER, "the body is not an Amazon SNS message (is raw message delivery on?)"))?;
        let field = |name: &str| post[name].as_str();
        let kind = field("Type").ok_or_else(|| refused(PROVIDER, "not an Amazon SNS message (no `Type`)"))?;
        let algorithm = field("SignatureVersion")
            .and_then(algorithm)
            .ok_or_else(|| refused(PROVIDER, "unknown or missing `SignatureVersion`"))?;
        let signature =
            field("Signature").and_then(base64_bytes).ok_or_else(|| refused(PROVIDER, "no base64 `Signature`"))?;
        let signed = string_to_sign(&post, kind)?;
        let base = integration_base(PROVIDER, &integration.credentials, &self.settings)
            .map_err(|error| refused(PROVIDER, &error.to_string()))?;
        let certificate_url = field("SigningCertURL")
            .and_then(|url| trusted_url(url, base.as_ref()))
            .ok_or_else(|| refused(PROVIDER, "`SigningCertURL` is not an Amazon SNS https URL"))?;
        let key = self.public_key(certificate_url).await?;
        if UnparsedPublicKey::new(algorithm, key.as_slice()).verify(signed.as_bytes(), &signature).is_err() {
            return Err(refused(PROVIDER, "the Amazon SNS signature does not match"));
        }
        match kind {
            "Notification" => {
                let message = field("Message").ok_or_else(|| malformed(PROVIDER, "no `Message`"))?;
                Ok(SnsPost::Notification { message: message.to_owned() })
            }
            "SubscriptionConfirmation" => {
                let subscribe_url = field("SubscribeURL")
                    .and_then(|url| trusted_url(url, base.as_ref()))
                    .ok_or_else(|| malformed(PROVIDER, "`SubscribeURL` is not an Amazon SNS https URL"))?;
                self.confirm(subscribe_url).await?;
                Ok(SnsPost::Confirmed)
            }
            _ => Ok(SnsPost::Unsubscribed),
        }
    }

    async fn public_key(&self, url: Url) -> AppResult<Arc<Vec<u8>>> {
        if let Some(key) = self.keys.lock().expect("the certificate cache is not poisoned").get(url.as_str()) {
            return Ok(key.clone());
        }
        let pem = self.fetch(url.clone(), "its signing certificate").await?;
        let key = Arc::new(rsa_public_key(&pem)?);
        let mut keys = self.keys.lock().expect("the certificate cache is not poisoned");
        if keys.len() >= MAX_CACHED_CERTIFICATES {
            keys.clear();
        }
        keys.insert(url.to_string(), key.clone());
        Ok(key)
    }

    async fn confirm(&self, subscribe_url: Url) -> AppResult<()> {
        self.fetch(subscribe_url, "the subscription confirmation").await?;
        tracing::info!("Amazon SNS subscription confirmed for an ses integration");
        Ok(())
    }

    /// GETs `url`; a failure is a 503, so SNS tries the post again later.
    async fn fetch(&self, url: Url, what: &str) -> AppResult<Vec<u8>> {
        let unavailable = |why: String| AppError::Unavailable(format!("Amazon SNS: fetching {what}: {why}").into());
        // A refused destination is refused again on SNS's retry: a 401, not a 503 SNS would retry. An
        // integration's `baseUrl` origin may be an IP address, which the client's resolver never sees.
        let outbound_refusal = |why: &dyn std::fmt::Display| refused(PROVIDER, &format!("fetching {what}: {why}"));
        self.settings.outbound.check_url(&url).map_err(|refusal| outbound_refusal(&refusal))?;
        let answer = self.client.get(url).send().await.map_err(|error| match refusal_in(&error) {
            Some(refusal) => outbound_refusal(refusal),
            None => unavailable(error.to_string()),
        })?;
        if !answer.status().is_success() {
            return Err(unavailable(format!("HTTP {}", answer.status())));
        }
        let body = answer.bytes().await.map_err(|error| unavailable(error.to_string()))?;
        Ok(body.to_vec())
    }
}

/// The signature scheme of a `SignatureVersion`.
fn algorithm(version: &str) -> Option<&'static dyn VerificationAlgorithm> {
    match version {
        "1" => Some(&RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY),
        "2" => Some(&RSA_PKCS1_2048_8192_SHA256),
        _ => None,
    }
}

/// The text SNS signs: the signed fields of the message's type, each as `name\nvalue\n`, in this order.
fn string_to_sign(post: &Value, kind: &str) -> AppResult<String> {
    let names: &[&str] = match kind {
        "Notification" => &["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
        "SubscriptionConfirmation" | "UnsubscribeConfirmation" => {
            &["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
        }
        other => return Err(refused(PROVIDER, &format!("unknown Amazon SNS message type `{other}`"))),
    };
    let mut signed = String::new();
    for name in names {
        match post[*name].as_str() {
            Some(value) => {
                signed.push_str(name);
                signed.push('\n');
                signed.push_str(value);
                signed.push('\n');
            }
            // Only a notification's subject is optional (and then not signed).
            None if *name == "Subject" => {}
            None => return Err(refused(PROVIDER, &format!("the signed field `{name}` is missing"))),
        }
    }
    Ok(signed)
}

/// `url` when Herald may fetch it: https on an Amazon SNS host, or on the integration's `baseUrl` origin.
fn trusted_url(url: &str, base: Option<&Url>) -> Option<Url> {
    let url = Url::parse(url).ok()?;
    let host = url.host_str()?;
    let amazon = url.scheme() == "https"
        && url.port().is_none()
        && ["amazonaws.com", "amazonaws.com.cn"].iter().any(|domain| {
            host.strip_suffix(domain)
                .and_then(|rest| rest.strip_prefix("sns."))
                .and_then(|region| region.strip_suffix('.'))
                .is_some_and(|region| {
                    !region.is_empty() && region.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
        });
    let own = base.is_some_and(|base| base.origin() == url.origin());
    (amazon || own).then_some(url)
}

/// The RSA public key (DER) of a PEM certificate that is valid now.
fn rsa_public_key(pem: &[u8]) -> AppResult<Vec<u8>> {
    let bad = |why: &str| refused(PROVIDER, &format!("the signing certificate {why}"));
    let (_, pem) = x509_parser::pem::parse_x509_pem(pem).map_err(|_| bad("is not PEM"))?;
    let certificate = pem.parse_x509().map_err(|_| bad("is not an X.509 certificate"))?;
    if !certificate.validity().is_valid() {
        return Err(bad("has expired or is not valid yet"));
    }
    Ok(certificate.public_key().subject_public_key.data.to_vec())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn certificates_come_only_from_amazon_sns_over_https_or_the_integrations_own_origin() {
        let trusted = |url: &str, base: Option<&str>| {
            let base = base.map(|base| Url::parse(base).unwrap());
            trusted_url(url, base.as_ref()).is_some()
        };
        assert!(trusted("https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem", None));
        assert!(trusted("https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem", None));
        for forged in [
            "http://sns.us-east-1.amazonaws.com/cert.pem",
            "https://sns.us-east-1.amazonaws.com.evil.com/cert.pem",
            "https://evil.com/sns.us-east-1.amazonaws.com/cert.pem",
            "https://sns..amazonaws.com/cert.pem",
            "https://s3.amazonaws.com/cert.pem",
            "https://sns.us-east-1.amazonaws.com:8443/cert.pem",
            "https://xsns.us-east-1.amazonaws.com/cert.pem",
            "not a url",
        ] {
            assert!(!trusted(forged, None), "{forged}");
        }
        assert!(trusted("http://127.0.0.1:9000/cert.pem", Some("http://127.0.0.1:9000")));
        assert!(!trusted("http://127.0.0.1:9001/cert.pem", Some("http://127.0.0.1:9000")));
    }

    /// Version 1 (SHA1withRSA) is the default of SNS topics, and the API tests' fake signs with SHA-256
    /// (ring signs no SHA-1): a known answer made with `openssl dgst -sha1 -sign` over the string to
    /// sign of the next test, with the fake's test key (`tests/api/fakes/keys/sns-signing-key.pem`).
    #[test]
    fn a_version_1_signature_made_by_openssl_verifies_and_a_changed_one_does_not() {
        use base64::Engine;
        let decode = |text: &str| base64::engine::general_purpose::STANDARD.decode(text).unwrap();
        let public_key = decode("MIIBCgKCAQEA6t+m2UW83rSuoaHCWxwqVQtzreHPIzDhoYoX91O+bCbC5Zyn4muksgQ+eV9uAf+Qz9n7bW9oI4MSWKVhpYfslB1+SKPVqBcE75qdZTicldAAyrGuaDlJ83vJvRz4tTKpGP7g25+yZ4fKX0/Db8CxM+dvzKsGTUyFFR/wLsz5YBsrdtWgZS7TGCTEel9ieMRhKTRTWtgA7qVDWqO/LnZ0wgS6lO7JJYOdU8bOypcqv3ja618iLM33dp8ZikSZTNb3THwoylUBJ2n0UCj6TmHVNPFmLPdxKolHxQpTYE1EDBXvVNx+WpqP4bv++YXw5yRm3nadDDuHL/b6YeSn1K8auQIDAQAB");
        let mut signature = decode("JwNHaVdBDrkmy871cb3pskcDcErGz9T3GNs1qkFGOvnhLultSfoXWzHh+wYsXtQZhgEzCPC0c+UL4Qg1st95Sn+6ncuVTwhoyqHKZvpFVs93zQCgiU+JLAy92uXNs2hklzUTUN7po6+IDKhjAPZX3iN2970PF/2fEL8Ac1SKPahi2Wu2scHdy9KhdBbAHQGrIZhMw9WlLfb5LyqBK2yHuNDR78WD11ryHU0eV5AfwK1o+4MNxQ2Xrit8cFZpQ6AV9RUof4TvPzo2Dc2aRIE+pB2Ipk5PUtKGZGBGdwUSGGh4s2HGTpp3Vr3jSkgjbIBlOQnLEAMTENSt06GIboRwwA==");
        let signed = "Message\nhi\nMessageId\nm\nTimestamp\nt\nTopicArn\narn\nType\nNotification\n";
        let verify = |version: &str, signature: &[u8]| {
            UnparsedPublicKey::new(algorithm(version).unwrap(), &public_key)
                .verify(signed.as_bytes(), signature)
                .is_ok()
        };
        assert!(verify("1", &signature));
        assert!(!verify("2", &signature), "the version decides the hash");
        signature[10] ^= 1;
        assert!(!verify("1", &signature));
        assert!(algorithm("3").is_none());
    }

    /// The fields and order of AWS's documentation; `Subject` only when the message has one.
    #[test]
    fn the_string_to_sign_lists_the_signed_fields_in_order() {
        let notification = json!({"Type": "Notification", "MessageId": "m", "TopicArn": "arn", "Message": "hi",
                                  "Timestamp": "t", "UnsubscribeURL": "u", "Signature": "s"});
        assert_eq!(
            string_to_sign(&notification, "Notification").unwrap(),
            "Message\nhi\nMessageId\nm\nTimestamp\nt\nTopicArn\narn\nType\nNotification\n"
        );
        let mut with_subject = notification.clone();
        with_subject["Subject"] = json!("sub");
        assert!(string_to_sign(&with_subject, "Notification")
            .unwrap()
            .contains("MessageId\nm\nSubject\nsub\nTimestamp"));
        let confirmation = json!({"Type": "SubscriptionConfirmation", "MessageId": "m", "Token": "k", "TopicArn": "arn",
                                  "Message": "hi", "SubscribeURL": "s", "Timestamp": "t"});
        assert_eq!(
            string_to_sign(&confirmation, "SubscriptionConfirmation").unwrap(),
            "Message\nhi\nMessageId\nm\nSubscribeURL\ns\nTimestamp\nt\nToken\nk\nTopicArn\narn\nType\nSubscriptionConfirmation\n"
        );
        let mut unsigned = confirmation;
        unsigned.as_object_mut().unwrap().remove("Token");
        assert!(string_to_sign(&unsigned, "SubscriptionConfirmation").is_err());
    }
}
