//! Mailgun's webhooks: the body carries `signature {timestamp, token, signature}`, the hex
//! HMAC-SHA256 of `timestamp + token` under the HTTP webhook signing key (the `secretKey` credential).

use ring::hmac;
use serde_json::{json, Value};

use super::*;
use crate::fakes::mailgun;

const SIGNING_KEY: &str = "key-webhook-signing-7b3c0e";

async fn sent(server: &TestServer) -> Sent {
    let fake = mailgun::start().await;
    send_email(
        server,
        json!({"providerId": "mailgun", "channel": "email", "identifier": "mailgun", "active": true,
               "credentials": {"apiKey": mailgun::API_KEY, "domain": mailgun::DOMAIN, "from": "orders@acme.io",
                               "baseUrl": fake.base_url(), "secretKey": SIGNING_KEY}}),
    )
    .await
}

/// Mailgun's post for `event_data`, signed with `key` at `timestamp`.
fn signed(event_data: Value, timestamp: i64, key: &str) -> String {
    let token = format!("{:x}", uuid::Uuid::new_v4().as_u128());
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key.as_bytes()), format!("{timestamp}{token}").as_bytes());
    json!({"signature": {"timestamp": timestamp.to_string(), "token": token, "signature": hex::encode(tag.as_ref())},
           "event-data": event_data})
    .to_string()
}

/// `event-data` naming the message by its id without the angle brackets, as Mailgun does.
fn event_data(kind: &str, sent: &Sent, extra: Value) -> Value {
    let message_id = sent.provider_message_id.trim_start_matches('<').trim_end_matches('>');
    let mut data = json!({"event": kind, "timestamp": 1_795_000_000.123, "id": "CPgfbmQMTCKtHW6uIWtuVe",
        "recipient": "ada@example.com", "message": {"headers": {"message-id": message_id}}});
    merge(&mut data, extra);
    data
}

fn json_headers() -> HeaderMap {
    headers(&[("content-type", "application/json")])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_delivered_event_adds_a_success_detail_and_the_delivery_time() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    assert!(sent.provider_message_id.starts_with('<'), "Mailgun's id is stored with its brackets");
    let body = signed(event_data("delivered", &sent, json!({})), now(), SIGNING_KEY);

    let response = post_webhook(&server, &sent.integration_id, json_headers(), body).await;

    let detail = "Delivered (provider: delivered)";
    assert_delivered(&server, &sent, response, detail, Some("2026-11-18T11:06:40.000Z")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permanent_failure_is_a_bounce_and_a_temporary_one_only_a_pending_detail() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let temporary = json!({"severity": "temporary", "reason": "generic",
                           "delivery-status": {"code": 452, "message": "", "description": "Mailbox full, retrying"}});
    let body = signed(event_data("failed", &sent, temporary), now(), SIGNING_KEY);
    assert_eq!(post_webhook(&server, &sent.integration_id, json_headers(), body).await.0, 200);
    assert_eq!(message(&server, &sent.transaction_id).await["status"], "sent", "Mailgun retries a temporary failure");

    let permanent = json!({"severity": "permanent", "reason": "bounce",
                           "delivery-status": {"code": 550, "message": "", "description": "No such mailbox"}});
    let body = signed(event_data("failed", &sent, permanent), now(), SIGNING_KEY);
    assert_eq!(post_webhook(&server, &sent.integration_id, json_headers(), body).await.0, 200);

    assert_eq!(status_and_error(&server, &sent.transaction_id).await, json!(["error", "bounced", "No such mailbox"]));
    assert_eq!(
        webhook_details(&server, &sent.transaction_id).await,
        [
            "Pending: Delivery pending (provider: failed): Mailbox full, retrying",
            "Failed: Bounced (provider: failed): No such mailbox"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unsigned_wrongly_signed_and_stale_posts_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let failure = event_data("failed", &sent, json!({"severity": "permanent", "reason": "bounce"}));
    let mut swapped: Value = serde_json::from_str(&signed(failure.clone(), now(), SIGNING_KEY)).unwrap();
    swapped["signature"]["token"] = json!("a-token-mailgun-never-signed");

    let cases = vec![
        ("unsigned", json_headers(), json!({"event-data": failure}).to_string()),
        ("another key", json_headers(), signed(failure.clone(), now(), "key-of-another-account")),
        ("stale", json_headers(), signed(failure.clone(), now() - 6 * 60, SIGNING_KEY)),
        ("token changed", json_headers(), swapped.to_string()),
        ("not JSON", json_headers(), "signature=forged".to_string()),
    ];
    assert_all_refused(&server, &sent, cases).await;
}
