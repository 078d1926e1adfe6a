//! Postmark's webhooks are not signed: the webhook URL carries HTTP Basic credentials, whose password
//! must be the integration's `inboundWebhookSigningKey`.

use base64::Engine;
use serde_json::{json, Value};

use super::*;
use crate::fakes::postmark;

async fn sent(server: &TestServer) -> Sent {
    let fake = postmark::start().await;
    send_email(
        server,
        json!({"providerId": "postmark", "channel": "email", "identifier": "postmark", "active": true,
               "credentials": {"apiKey": postmark::SERVER_TOKEN, "from": "orders@acme.io", "baseUrl": fake.base_url()}}),
    )
    .await
}

/// The integration's `inboundWebhookSigningKey`, as the active-integrations listing shows it.
async fn signing_key(server: &TestServer, sent: &Sent) -> String {
    let (status, active) = server.get_json("/v1/integrations/active").await;
    assert_eq!(status, 200, "{active}");
    let integration = active.as_array().unwrap().iter().find(|item| item["_id"] == sent.integration_id.as_str());
    let key = integration.and_then(|item| item["configurations"]["inboundWebhookSigningKey"].as_str());
    key.expect("the signing key is listed").to_string()
}

/// What a client sends for `https://user:password@…`.
fn basic(user: &str, password: &str) -> HeaderMap {
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    headers(&[("content-type", "application/json"), ("authorization", &format!("Basic {encoded}"))])
}

fn record(kind: &str, sent: &Sent, extra: Value) -> String {
    let mut record = json!({"RecordType": kind, "ServerID": 23, "MessageStream": "outbound",
        "MessageID": sent.provider_message_id, "Recipient": "ada@example.com", "Tag": "", "Metadata": {}});
    merge(&mut record, extra);
    record.to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delivery_with_the_signing_key_as_password_adds_a_success_detail_and_the_delivery_time() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let body = record(
        "Delivery",
        &sent,
        json!({"DeliveredAt": "2026-11-24T10:00:07.1234567Z", "Details": "Test delivery webhook details"}),
    );
    let key = signing_key(&server, &sent).await;

    let response = post_webhook(&server, &sent.integration_id, basic("herald", &key), body).await;

    let detail = "Delivered (provider: Delivery)";
    assert_delivered(&server, &sent, response, detail, Some("2026-11-24T10:00:07.123Z")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hard_bounce_makes_the_message_an_error_with_the_description() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let description = "The server was unable to deliver your message (ex: unknown user, mailbox not found).";
    let body = record(
        "Bounce",
        &sent,
        json!({"ID": 4323372036854775807_u64, "Type": "HardBounce", "TypeCode": 1, "Name": "Hard bounce",
               "Description": description, "Details": "smtp;550 5.1.1 unknown user", "Email": "ada@example.com",
               "BouncedAt": "2026-11-24T10:00:09Z", "Inactive": true, "CanActivate": true}),
    );
    let key = signing_key(&server, &sent).await;

    let (status, _) = post_webhook(&server, &sent.integration_id, basic("anyone", &key), body).await;

    assert_eq!(status, 200);
    assert_eq!(status_and_error(&server, &sent.transaction_id).await, json!(["error", "bounced", description]));
    assert_eq!(
        webhook_details(&server, &sent.transaction_id).await,
        [format!("Failed: Bounced (provider: Bounce/HardBounce): {description}")]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn posts_without_the_signing_key_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let body = record("Bounce", &sent, json!({"Type": "HardBounce", "Description": "forged"}));
    let key = signing_key(&server, &sent).await;
    let mut bearer = headers(&[("content-type", "application/json")]);
    bearer.insert("authorization", format!("Bearer {key}").parse().unwrap());

    let cases = vec![
        ("no credentials", headers(&[("content-type", "application/json")]), body.clone()),
        ("wrong password", basic("herald", &key[..63]), body.clone()),
        ("the key as user name", basic(&key, "x"), body.clone()),
        ("another scheme", bearer, body.clone()),
    ];
    assert_all_refused(&server, &sent, cases).await;
}
