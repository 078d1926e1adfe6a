//! Amazon SES's delivery events through an SNS topic: SNS posts JSON (as `text/plain`) signed with
//! RSA by the certificate its `SigningCertURL` names; Herald fetches that certificate (once), checks
//! the signature, confirms subscriptions, and records the SES event the notification carries.

use serde_json::{json, Value};

use super::*;
use crate::fakes::ses::{self, ACCESS_KEY_ID, REGION, SECRET};
use crate::fakes::sns_topic::{self, CERTIFICATE_PATH, SUBSCRIPTION_TOKEN};
use crate::fakes::FakeProvider;

/// An email sent through the SES fake, whose origin also serves the SNS topic's certificate.
async fn sent(server: &TestServer) -> (Sent, FakeProvider) {
    let fake = ses::start().await;
    let sent = send_email(
        server,
        json!({"providerId": "ses", "channel": "email", "identifier": "ses", "active": true,
               "credentials": {"apiKey": ACCESS_KEY_ID, "secretKey": SECRET, "region": REGION,
                               "from": "orders@acme.io", "baseUrl": fake.base_url()}}),
    )
    .await;
    (sent, fake)
}

/// An SES event of `event_type` about `message_id`, with its detail object under `detail_key`.
fn ses_event(event_type: &str, message_id: &str, detail_key: &str, detail: Value) -> Value {
    json!({"eventType": event_type,
           "mail": {"timestamp": "2026-11-24T10:00:00.000Z", "source": "orders@acme.io",
                    "messageId": message_id, "destination": ["ada@example.com"]},
           detail_key: detail})
}

/// Posts an SNS message as SNS does: JSON with `text/plain` and SNS's headers.
async fn post_sns(server: &TestServer, sent: &Sent, post: &Value) -> (u16, Value) {
    let kind = post["Type"].as_str().unwrap_or("Notification").to_string();
    let headers = headers(&[
        ("content-type", "text/plain; charset=UTF-8"),
        ("x-amz-sns-message-type", &kind),
        ("x-amz-sns-topic-arn", sns_topic::TOPIC_ARN),
        ("user-agent", "Amazon Simple Notification Service Agent"),
    ]);
    post_webhook(server, &sent.integration_id, headers, post.to_string()).await
}

fn certificate_fetches(fake: &FakeProvider) -> usize {
    fake.requests().iter().filter(|request| request.path == CERTIFICATE_PATH).count()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscription_confirmation_is_verified_then_confirmed_at_its_subscribe_url() {
    let server = TestServer::start().await;
    let (sent, fake) = sent(&server).await;

    let response = post_sns(&server, &sent, &sns_topic::subscription_confirmation(fake.base_url())).await;

    assert_eq!(response, (200, json!({"received": 0, "recorded": 0})));
    let confirmations: Vec<_> =
        fake.requests().into_iter().filter(|request| request.method == "GET" && request.path == "/").collect();
    assert_eq!(confirmations.len(), 1, "confirmed once");
    let query = confirmations[0].query.clone().unwrap();
    assert!(query.contains("Action=ConfirmSubscription") && query.contains(SUBSCRIPTION_TOKEN), "{query}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delivery_then_a_bounce_are_recorded_with_one_certificate_fetch() {
    let server = TestServer::start().await;
    let (sent, fake) = sent(&server).await;
    let delivery = ses_event(
        "Delivery",
        &sent.provider_message_id,
        "delivery",
        json!({"timestamp": "2026-11-24T10:00:02.500Z", "recipients": ["ada@example.com"], "smtpResponse": "250 ok"}),
    );

    let response = post_sns(&server, &sent, &sns_topic::notification(fake.base_url(), &delivery)).await;

    assert_delivered(&server, &sent, response, "Delivered (provider: Delivery)", Some("2026-11-24T10:00:02.500Z"))
        .await;
    let bounce = ses_event(
        "Bounce",
        &sent.provider_message_id,
        "bounce",
        json!({"bounceType": "Permanent", "bounceSubType": "General", "timestamp": "2026-11-24T10:05:00.000Z",
               "bouncedRecipients": [{"emailAddress": "ada@example.com", "diagnosticCode": "smtp; 550 5.1.1 user unknown"}]}),
    );
    let response = post_sns(&server, &sent, &sns_topic::notification(fake.base_url(), &bounce)).await;
    assert_eq!(response, (200, json!({"received": 1, "recorded": 1})));
    assert_eq!(
        status_and_error(&server, &sent.transaction_id).await,
        json!(["error", "bounced", "Permanent/General bounce: smtp; 550 5.1.1 user unknown"])
    );
    assert_eq!(certificate_fetches(&fake), 1, "the certificate is cached");
}

#[tokio::test(flavor = "multi_thread")]
async fn unsigned_forged_raw_or_foreign_certificate_posts_are_refused_and_change_nothing() {
    let server = TestServer::start().await;
    let (sent, fake) = sent(&server).await;
    let bounce = ses_event("Bounce", &sent.provider_message_id, "bounce", json!({"bounceType": "Permanent"}));
    let genuine = sns_topic::notification(fake.base_url(), &bounce);
    let with = |field: &str, value: Value| {
        let mut post = genuine.clone();
        post[field] = value;
        post.to_string()
    };
    let delivered = ses_event("Delivery", &sent.provider_message_id, "delivery", json!({}));
    let sns_headers = || headers(&[("content-type", "text/plain; charset=UTF-8")]);

    let cases = vec![
        ("unsigned", sns_headers(), {
            let mut post = genuine.clone();
            post.as_object_mut().unwrap().remove("Signature");
            post.to_string()
        }),
        ("the message changed", sns_headers(), with("Message", json!(delivered.to_string()))),
        ("a certificate elsewhere", sns_headers(), with("SigningCertURL", json!("https://certs.example.com/sns.pem"))),
        ("plain http from an AWS-looking host", sns_headers(), {
            with("SigningCertURL", json!(format!("http://sns.eu-west-1.amazonaws.com{CERTIFICATE_PATH}")))
        }),
        ("an unknown signature version", sns_headers(), with("SignatureVersion", json!("3"))),
        ("signature version 1 over a version 2 signature", sns_headers(), with("SignatureVersion", json!("1"))),
        ("raw message delivery (no SNS envelope)", sns_headers(), bounce.to_string()),
    ];
    assert_all_refused(&server, &sent, cases).await;
    assert_eq!(certificate_fetches(&fake), 1, "only the genuine URL was fetched (for the changed message)");
}
