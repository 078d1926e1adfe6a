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
    if let (Value::Object(record), Value::Object(extra)) = (&mut record, extra) {
        record.extend(extra);
    }
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

    let (status, answer) =
        post_webhook(&server, &sent.integration_id, basic("herald", &signing_key(&server, &sent).await), body).await;

    assert_eq!((status, &answer), (200, &json!({"received": 1, "recorded": 1})));
    assert_eq!(
        webhook_details(&server, &sent.transaction_id).await,
        [("Success".to_string(), "Delivered (provider: Delivery)".to_string())]
    );
    let message = message(&server, &sent.transaction_id).await;
    assert_eq!(message["status"], "sent");
    assert_eq!(delivery_times(&message), [sent_at(&message), "2026-11-24T10:00:07.123Z"], "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hard_bounce_makes_the_message_an_error_with_the_description() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let body = record(
        "Bounce",
        &sent,
        json!({"ID": 4323372036854775807_u64, "Type": "HardBounce", "TypeCode": 1, "Name": "Hard bounce",
               "Description": "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
               "Details": "smtp;550 5.1.1 unknown user", "Email": "ada@example.com", "BouncedAt": "2026-11-24T10:00:09Z",
               "Inactive": true, "CanActivate": true}),
    );

    let (status, _) =
        post_webhook(&server, &sent.integration_id, basic("anyone", &signing_key(&server, &sent).await), body).await;

    assert_eq!(status, 200);
    let message = message(&server, &sent.transaction_id).await;
    assert_eq!(
        (message["status"].as_str(), message["errorId"].as_str()),
        (Some("error"), Some("bounced")),
        "{message}"
    );
    assert!(message["errorText"].as_str().unwrap().starts_with("The server was unable to deliver"), "{message}");
    let details = webhook_details(&server, &sent.transaction_id).await;
    assert_eq!(details.len(), 1, "{details:?}");
    assert_eq!(details[0].0, "Failed");
    assert!(details[0].1.starts_with("Bounced (provider: Bounce/HardBounce): "), "{details:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn posts_without_the_signing_key_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let before = snapshot(&server, &sent.transaction_id).await;
    let body = record("Bounce", &sent, json!({"Type": "HardBounce", "Description": "forged"}));
    let key = signing_key(&server, &sent).await;
    let mut bearer = headers(&[("content-type", "application/json")]);
    bearer.insert("authorization", format!("Bearer {key}").parse().unwrap());

    for (case, credentials) in [
        ("no credentials", headers(&[("content-type", "application/json")])),
        ("wrong password", basic("herald", &key[..63])),
        ("the key as user name", basic(&key, "x")),
        ("another scheme", bearer),
    ] {
        let response = post_webhook(&server, &sent.integration_id, credentials, body.clone()).await;
        assert_eq!(response.0, 401, "{case}: {}", response.1);
        assert_refused(&server, &sent.integration_id, response);
    }
    assert_eq!(snapshot(&server, &sent.transaction_id).await, before);
}
