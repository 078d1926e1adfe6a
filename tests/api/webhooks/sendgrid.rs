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
    merge(&mut event, extra);
    event
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
        ["Pending: Delivery pending (provider: processed)", "Success: Delivered (provider: delivered): 250 2.0.0 OK"]
    );
    let message = message(&server, &sent.transaction_id).await;
    assert_eq!(message["status"], "sent");
    assert_eq!(message["deliveredAt"][1], "2026-11-18T11:06:40.000Z", "{message}");
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
    assert_eq!(
        status_and_error(&server, &sent.transaction_id).await,
        json!(["error", "bounced", "550 5.1.1 The email account does not exist."])
    );
    assert_eq!(
        webhook_details(&server, &sent.transaction_id).await,
        ["Failed: Bounced (provider: bounce): 550 5.1.1 The email account does not exist."]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unsigned_wrongly_signed_and_stale_posts_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let signer = Signer::new();
    let sent = sent(&server, &signer).await;
    let body = json!([event("dropped", &sent, json!({"reason": "Bounced Address"}))]).to_string();
    let impostor = Signer::new();
    let mut moved = signer.headers(&body, now());
    moved.insert("x-twilio-email-event-webhook-timestamp", (now() + 1).to_string().parse().unwrap());

    let cases = vec![
        ("unsigned", headers(&[("content-type", "application/json")]), body.clone()),
        ("another key", impostor.headers(&body, now()), body.clone()),
        ("stale", signer.headers(&body, now() - 6 * 60), body.clone()),
        ("timestamp changed", moved, body.clone()),
        ("body changed", signer.headers(&body, now()), body.replace("dropped", "delivered")),
    ];
    assert_all_refused(&server, &sent, cases).await;
}
