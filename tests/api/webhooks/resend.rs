//! Resend's status webhooks, signed the Svix way with the endpoint's `whsec_` secret (the `secretKey`
//! credential).

use base64::Engine;
use ring::hmac;
use serde_json::{json, Value};

use super::*;
use crate::fakes::resend;

const SECRET: &str = "whsec_c2VjcmV0LWZvci10aGUtc3RhdHVzLXdlYmhvb2s=";

async fn sent(server: &TestServer) -> Sent {
    let fake = resend::start().await;
    send_email(
        server,
        json!({"providerId": "resend", "channel": "email", "identifier": "resend", "active": true,
               "credentials": {"apiKey": resend::API_KEY, "from": "orders@acme.io", "baseUrl": fake.base_url(),
                               "secretKey": SECRET}}),
    )
    .await
}

/// Svix's headers for `body`, signed with `secret` at `timestamp`.
fn svix_headers(body: &str, timestamp: i64, secret: &str) -> HeaderMap {
    let id = "msg_2bVdyBfLmBfXV3bXJmhYhrD1Fk1";
    let key = base64::engine::general_purpose::STANDARD.decode(secret.trim_start_matches("whsec_")).unwrap();
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, &key), format!("{id}.{timestamp}.{body}").as_bytes());
    let signature = format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(tag.as_ref()));
    headers(&[("svix-id", id), ("svix-timestamp", &timestamp.to_string()), ("svix-signature", &signature)])
}

fn event(kind: &str, email_id: &str, extra: Value) -> String {
    let mut data =
        json!({"email_id": email_id, "from": "orders@acme.io", "to": ["ada@example.com"], "subject": "Order W-1"});
    merge(&mut data, extra);
    json!({"type": kind, "created_at": "2026-11-24T10:00:05.000Z", "data": data}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_delivered_event_adds_a_success_detail_and_the_delivery_time() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let body = event("email.delivered", &sent.provider_message_id, json!({}));

    let response = post_webhook(&server, &sent.integration_id, svix_headers(&body, now(), SECRET), body).await;

    let detail = "Delivered (provider: email.delivered)";
    assert_delivered(&server, &sent, response, detail, Some("2026-11-24T10:00:05.000Z")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_bounce_makes_the_message_an_error_with_the_providers_text() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let bounce = json!({"bounce": {"message": "The recipient's mailbox does not exist", "type": "Permanent"}});
    let body = event("email.bounced", &sent.provider_message_id, bounce);

    let (status, _) = post_webhook(&server, &sent.integration_id, svix_headers(&body, now(), SECRET), body).await;

    assert_eq!(status, 200);
    assert_eq!(
        status_and_error(&server, &sent.transaction_id).await,
        json!(["error", "bounced", "The recipient's mailbox does not exist"])
    );
    assert_eq!(
        webhook_details(&server, &sent.transaction_id).await,
        ["Failed: Bounced (provider: email.bounced): The recipient's mailbox does not exist"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unsigned_wrongly_signed_and_stale_posts_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let body = event("email.bounced", &sent.provider_message_id, json!({}));
    let other_secret = "whsec_b3RoZXItc2VjcmV0LW9mLWFub3RoZXItZW5kcG9pbnQ=";
    let mut another_id = svix_headers(&body, now(), SECRET);
    another_id.insert("svix-id", "msg_other".parse().unwrap());

    let cases = vec![
        ("unsigned", HeaderMap::new(), body.clone()),
        ("another secret", svix_headers(&body, now(), other_secret), body.clone()),
        ("stale", svix_headers(&body, now() - 6 * 60, SECRET), body.clone()),
        ("another svix-id", another_id, body.clone()),
        ("another body", svix_headers(&body, now(), SECRET), body.replace("bounced", "delivered")),
    ];
    assert_all_refused(&server, &sent, cases).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_verified_post_for_an_unknown_message_is_accepted_and_a_malformed_one_is_a_400_both_changing_nothing() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let before = snapshot(&server, &sent.transaction_id).await;

    let unknown = event("email.bounced", "4ef9a417-02e9-4d39-ad75-9611e0fcc33c", json!({}));
    let response = post_webhook(&server, &sent.integration_id, svix_headers(&unknown, now(), SECRET), unknown).await;
    assert_eq!(response, (200, json!({"received": 1, "recorded": 0})));

    let no_email_id =
        json!({"type": "email.bounced", "created_at": "2026-11-24T10:00:05.000Z", "data": {}}).to_string();
    let (status, body) =
        post_webhook(&server, &sent.integration_id, svix_headers(&no_email_id, now(), SECRET), no_email_id).await;
    assert_eq!(status, 400, "{body}");
    assert_error_shape(&body, 400, "Bad Request", &webhook_path(&server, &sent.integration_id));
    assert!(body["message"].as_str().unwrap().contains("data.email_id"), "{body}");

    let opened = event("email.opened", &sent.provider_message_id, json!({}));
    let response = post_webhook(&server, &sent.integration_id, svix_headers(&opened, now(), SECRET), opened).await;
    assert_eq!(response, (200, json!({"received": 0, "recorded": 0})), "engagement events are not statuses");
    assert_eq!(snapshot(&server, &sent.transaction_id).await, before);
}
