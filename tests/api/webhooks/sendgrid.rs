//! SendGrid's signed Event Webhook: ECDSA P-256 over `timestamp + body`, checked with the verification
//! key in the `secretKey` credential. The test makes its own key pair and gives SendGrid's form of the
//! public half (base64 DER SubjectPublicKeyInfo) as the credential.

use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
use serde_json::{json, Value};

use super::*;
use crate::fakes::sendgrid;

/// DER of a P-256 SubjectPublicKeyInfo before its 65-byte point.
const SPKI_PREFIX: &str = "3059301306072a8648ce3d020106082a8648ce3d030107034200";

struct Signer {
    key: EcdsaKeyPair,
    /// What SendGrid shows as the verification key.
    verification_key: String,
}

impl Signer {
    fn new() -> Self {
        let random = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &random).unwrap();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &random).unwrap();
        let spki = [hex::decode(SPKI_PREFIX).unwrap(), key.public_key().as_ref().to_vec()].concat();
        Self { key, verification_key: base64::engine::general_purpose::STANDARD.encode(spki) }
    }

    fn headers(&self, body: &str, timestamp: i64) -> HeaderMap {
        let signed = format!("{timestamp}{body}");
        let signature = self.key.sign(&SystemRandom::new(), signed.as_bytes()).unwrap();
        let signature = base64::engine::general_purpose::STANDARD.encode(signature.as_ref());
        headers(&[
            ("content-type", "application/json"),
            ("x-twilio-email-event-webhook-signature", &signature),
            ("x-twilio-email-event-webhook-timestamp", &timestamp.to_string()),
        ])
    }
}

async fn sent(server: &TestServer, signer: &Signer) -> Sent {
    let fake = sendgrid::start().await;
    send_email(
        server,
        json!({"providerId": "sendgrid", "channel": "email", "identifier": "sendgrid", "active": true,
               "credentials": {"apiKey": sendgrid::API_KEY, "from": "orders@acme.io", "baseUrl": fake.base_url(),
                               "secretKey": signer.verification_key}}),
    )
    .await
}

/// An event for the message with SendGrid's `sg_message_id` (the stored id plus its filter suffix).
fn event(kind: &str, sent: &Sent, extra: Value) -> Value {
    let mut event = json!({"email": "ada@example.com", "timestamp": 1_795_000_000, "event": kind,
        "sg_event_id": "sg_event_id", "sg_message_id": format!("{}.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0", sent.provider_message_id)});
    if let (Value::Object(event), Value::Object(extra)) = (&mut event, extra) {
        event.extend(extra);
    }
    event
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_batch_records_each_status_in_order_by_sg_message_id_or_herald_message_id() {
    let server = TestServer::start().await;
    let signer = Signer::new();
    let sent = sent(&server, &signer).await;
    let herald_id = message(&server, &sent.transaction_id).await["_id"].as_str().unwrap().to_string();
    let body = json!([
        event("processed", &sent, json!({})),
        event("open", &sent, json!({})),
        event(
            "delivered",
            &sent,
            json!({"sg_message_id": "someone-else.filter0001", "heraldMessageId": herald_id,
                                         "response": "250 2.0.0 OK"})
        ),
        event("delivered", &sent, json!({"sg_message_id": "unknown.filter0001"})),
    ])
    .to_string();

    let (status, answer) = post_webhook(&server, &sent.integration_id, signer.headers(&body, now()), body).await;

    assert_eq!((status, &answer), (200, &json!({"received": 3, "recorded": 2})), "the open is no status");
    assert_eq!(
        webhook_details(&server, &sent.transaction_id).await,
        [
            ("Pending".to_string(), "Delivery pending (provider: processed)".to_string()),
            ("Success".to_string(), "Delivered (provider: delivered): 250 2.0.0 OK".to_string()),
        ]
    );
    let message = message(&server, &sent.transaction_id).await;
    assert_eq!(message["status"], "sent");
    assert_eq!(delivery_times(&message), [sent_at(&message), "2026-11-18T11:06:40.000Z"], "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_bounce_makes_the_message_an_error_with_the_reason() {
    let server = TestServer::start().await;
    let signer = Signer::new();
    let sent = sent(&server, &signer).await;
    let body = json!([event(
        "bounce",
        &sent,
        json!({"type": "bounce", "status": "5.1.1",
                                                     "reason": "550 5.1.1 The email account does not exist."})
    )])
    .to_string();

    let (status, _) = post_webhook(&server, &sent.integration_id, signer.headers(&body, now()), body).await;

    assert_eq!(status, 200);
    let message = message(&server, &sent.transaction_id).await;
    assert_eq!(
        (message["status"].as_str(), message["errorId"].as_str(), message["errorText"].as_str()),
        (Some("error"), Some("bounced"), Some("550 5.1.1 The email account does not exist."))
    );
    let details = webhook_details(&server, &sent.transaction_id).await;
    assert_eq!(details.len(), 1, "{details:?}");
    assert_eq!(details[0].0, "Failed");
}

#[tokio::test(flavor = "multi_thread")]
async fn unsigned_wrongly_signed_and_stale_posts_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let signer = Signer::new();
    let sent = sent(&server, &signer).await;
    let before = snapshot(&server, &sent.transaction_id).await;
    let body = json!([event("dropped", &sent, json!({"reason": "Bounced Address"}))]).to_string();
    let impostor = Signer::new();
    let mut tampered = signer.headers(&body, now());
    tampered.insert("x-twilio-email-event-webhook-timestamp", (now() + 1).to_string().parse().unwrap());

    for (case, signed) in [
        ("unsigned", headers(&[("content-type", "application/json")])),
        ("another key", impostor.headers(&body, now())),
        ("stale", signer.headers(&body, now() - 6 * 60)),
        ("timestamp changed", tampered),
    ] {
        let response = post_webhook(&server, &sent.integration_id, signed, body.clone()).await;
        assert_eq!(response.0, 401, "{case}: {}", response.1);
        assert_refused(&server, &sent.integration_id, response);
    }
    assert_eq!(snapshot(&server, &sent.transaction_id).await, before);
}
