//! An Amazon SNS topic that delivers Amazon SES's events over HTTP: it signs posts as SNS does
//! (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html: RSA over the
//! type's signed fields, with SHA-256 as for `SignatureVersion` 2; ring signs no SHA-1, so version 1
//! is proven by a known-answer unit test in `src/engine/delivery_status/sns.rs`) and serves what SNS serves
//! for them: the signing certificate (`GET /SimpleNotificationService-<id>.pem`) and the subscription
//! confirmation (`GET /?Action=ConfirmSubscription&TopicArn=…&Token=…`, answering SNS's XML).
//!
//! The key is a test-only RSA key (`keys/sns-signing-key.pem`, made with
//! `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`); its certificate is self-signed
//! here. Both routes live on the SES fake's origin, as LocalStack serves every AWS service on one
//! port: Herald fetches certificates only from Amazon SNS hosts or the integration's own `baseUrl`.

use std::sync::LazyLock;

use base64::Engine;
use rcgen::{CertificateParams, KeyPair, PKCS_RSA_SHA256};
use ring::rand::SystemRandom;
use ring::signature::{RsaKeyPair, RSA_PKCS1_SHA256};
use serde_json::{json, Value};

use super::{FakeAnswer, Recorded};

const SIGNING_KEY: &str = include_str!("keys/sns-signing-key.pem");
pub const CERTIFICATE_PATH: &str = "/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem";
pub const TOPIC_ARN: &str = "arn:aws:sns:eu-west-1:123456789012:ses-events";
pub const SUBSCRIPTION_TOKEN: &str = "2336412f37fb687f5d51e6e2425f004aed6fbd8e1d2a8b3b1e7b1c4c3b6f0e4d";

/// The self-signed certificate of the signing key, as SNS serves it.
static CERTIFICATE: LazyLock<String> = LazyLock::new(|| {
    let key = KeyPair::from_pem_and_sign_algo(SIGNING_KEY, &PKCS_RSA_SHA256).expect("the test RSA key loads");
    let params = CertificateParams::new(vec!["sns.eu-west-1.amazonaws.com".to_string()]).expect("certificate params");
    params.self_signed(&key).expect("a self-signed certificate").pem()
});

/// The SNS routes: `Some` answer for a certificate or confirmation request, `None` for anything else.
pub fn serve(request: &Recorded) -> Option<FakeAnswer> {
    if request.method != "GET" {
        return None;
    }
    if request.path == CERTIFICATE_PATH {
        return Some(FakeAnswer::text(200, &CERTIFICATE));
    }
    let query: Vec<(String, String)> =
        form_urlencoded::parse(request.query.as_deref().unwrap_or_default().as_bytes()).into_owned().collect();
    let param = |name: &str| query.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
    if request.path == "/" && param("Action") == Some("ConfirmSubscription") {
        if param("TopicArn") != Some(TOPIC_ARN) || param("Token") != Some(SUBSCRIPTION_TOKEN) {
            return Some(FakeAnswer::text(
                400,
                "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidParameter</Code>\
                 <Message>Invalid token</Message></Error></ErrorResponse>",
            ));
        }
        return Some(FakeAnswer::text(
            200,
            &format!(
                "<ConfirmSubscriptionResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\
                 <ConfirmSubscriptionResult><SubscriptionArn>{TOPIC_ARN}:9f3e0c2a-3c53-4d7e-a7a4-1f8b8e3e2f10\
                 </SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>"
            ),
        ));
    }
    None
}

/// An SNS `Notification` carrying `message` (an SES event), as the topic posts it to `origin`'s fake.
pub fn notification(origin: &str, message: &Value) -> Value {
    signed(
        json!({
            "Type": "Notification",
            "MessageId": uuid::Uuid::new_v4().to_string(),
            "TopicArn": TOPIC_ARN,
            "Message": message.to_string(),
            "Timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "UnsubscribeURL": format!("{origin}/?Action=Unsubscribe&SubscriptionArn={TOPIC_ARN}:sub"),
        }),
        origin,
    )
}

/// The `SubscriptionConfirmation` SNS posts when the webhook is subscribed to the topic.
pub fn subscription_confirmation(origin: &str) -> Value {
    signed(
        json!({
            "Type": "SubscriptionConfirmation",
            "MessageId": uuid::Uuid::new_v4().to_string(),
            "Token": SUBSCRIPTION_TOKEN,
            "TopicArn": TOPIC_ARN,
            "Message": format!("You have chosen to subscribe to the topic {TOPIC_ARN}.\nTo confirm the subscription, visit the SubscribeURL included in this message."),
            "SubscribeURL": format!("{origin}/?Action=ConfirmSubscription&TopicArn={TOPIC_ARN}&Token={SUBSCRIPTION_TOKEN}"),
            "Timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        }),
        origin,
    )
}

/// `post` with `SignatureVersion` 2, `SigningCertURL` and the signature over its signed fields.
fn signed(mut post: Value, origin: &str) -> Value {
    let names: &[&str] = if post["Type"] == "Notification" {
        &["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
    } else {
        &["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
    };
    let text: String =
        names.iter().filter_map(|name| post[*name].as_str().map(|value| format!("{name}\n{value}\n"))).collect();
    let der = pem_body(SIGNING_KEY);
    let key = RsaKeyPair::from_pkcs8(&der).expect("the test RSA key is PKCS#8");
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(&RSA_PKCS1_SHA256, &SystemRandom::new(), text.as_bytes(), &mut signature).expect("signs");
    post["SignatureVersion"] = json!("2");
    post["Signature"] = json!(base64::engine::general_purpose::STANDARD.encode(signature));
    post["SigningCertURL"] = json!(format!("{origin}{CERTIFICATE_PATH}"));
    post
}

/// The DER bytes of a one-block PEM.
fn pem_body(pem: &str) -> Vec<u8> {
    let base64: String = pem.lines().filter(|line| !line.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD.decode(base64).expect("PEM is base64")
}
