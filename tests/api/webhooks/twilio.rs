//! Twilio's SMS status callbacks: a form signed in `X-Twilio-Signature` (base64 HMAC-SHA1 of the URL
//! Twilio called plus the sorted fields) with the auth token, the `token` credential. The SMS goes out
//! through Twilio's fake with `StatusCallback` set from `HERALD_PUBLIC_URL` (the test server's own
//! address), and the callbacks are signed over exactly that URL, as Twilio signs them.

use base64::Engine;
use ring::hmac;
use serde_json::json;

use super::*;
use crate::engine::fixtures::wait_until_settled;
use crate::fakes::twilio::{self, ACCOUNT_SID, AUTH_TOKEN};

/// An SMS Herald sent through Twilio's fake, with the `StatusCallback` it gave Twilio.
async fn sent(server: &TestServer) -> (Sent, String) {
    let fake = twilio::start().await;
    let integration = create_integration(
        server,
        json!({"providerId": "twilio", "channel": "sms", "identifier": "twilio", "active": true,
               "credentials": {"accountSid": ACCOUNT_SID, "token": AUTH_TOKEN, "from": "+15550100",
                               "baseUrl": fake.base_url()}}),
    )
    .await;
    let sms = json!({"name": "Text", "type": "sms", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
    create_workflow(server, "text", json!([sms])).await;
    let to = json!({"subscriberId": "ada", "phone": "+15550001"});
    let transaction_id =
        trigger_processed(server, json!({"name": "text", "to": to, "payload": {"orderId": "W-1"}})).await;
    wait_until_settled(server).await;
    let request = fake.only_request();
    let callback = request.form_value("StatusCallback").expect("Herald gave Twilio a status callback");
    let webhook = server.url(&webhook_path(server, integration["_id"].as_str().unwrap()));
    assert_eq!(callback, webhook, "the integration's status webhook at HERALD_PUBLIC_URL");
    let sid = stored_provider_message_id(server).await.expect("the adapter stored Twilio's sid");
    assert!(sid.starts_with("SM"), "{sid}");
    let sent = Sent {
        transaction_id,
        integration_id: integration["_id"].as_str().unwrap().to_string(),
        provider_message_id: sid,
    };
    (sent, callback)
}

/// Twilio's callback fields for `status`.
fn callback(sid: &str, status: &str, error_code: Option<&str>) -> Vec<(&'static str, String)> {
    let mut fields = vec![
        ("AccountSid", ACCOUNT_SID.to_string()),
        ("ApiVersion", "2010-04-01".to_string()),
        ("From", "+15550100".to_string()),
        ("MessageSid", sid.to_string()),
        ("MessageStatus", status.to_string()),
        ("SmsSid", sid.to_string()),
        ("SmsStatus", status.to_string()),
        ("To", "+15550001".to_string()),
    ];
    if let Some(code) = error_code {
        fields.push(("ErrorCode", code.to_string()));
    }
    fields
}

/// The form body and Twilio's headers for it, signed over `url` with `token`.
fn signed(url: &str, fields: &[(&str, String)], token: &str) -> (HeaderMap, String) {
    let mut sorted: Vec<_> = fields.iter().collect();
    sorted.sort();
    let data: String = sorted.iter().map(|(name, value)| format!("{name}{value}")).collect();
    let tag = hmac::sign(
        &hmac::Key::new(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, token.as_bytes()),
        format!("{url}{data}").as_bytes(),
    );
    let signature = base64::engine::general_purpose::STANDARD.encode(tag.as_ref());
    let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields.iter()).finish();
    (headers(&[("content-type", "application/x-www-form-urlencoded"), ("x-twilio-signature", &signature)]), body)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_delivered_callback_adds_a_success_detail_and_the_delivery_time() {
    let server = TestServer::start_public().await;
    let (sent, url) = sent(&server).await;
    let (signature, body) = signed(&url, &callback(&sent.provider_message_id, "delivered", None), AUTH_TOKEN);
    let before = chrono::Utc::now() - chrono::TimeDelta::seconds(1);

    let response = post_webhook(&server, &sent.integration_id, signature, body).await;

    assert_delivered(&server, &sent, response, "Delivered (provider: delivered)", None).await;
    let reported = message(&server, &sent.transaction_id).await["deliveredAt"][1].clone();
    let reported: chrono::DateTime<chrono::Utc> = serde_json::from_value(reported).unwrap();
    assert!(reported >= before, "Twilio's callback has no time: the time it arrived is recorded");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_undelivered_callback_makes_the_message_an_error_naming_twilios_error_code() {
    let server = TestServer::start_public().await;
    let (sent, url) = sent(&server).await;
    let (queued_signature, queued) = signed(&url, &callback(&sent.provider_message_id, "sent", None), AUTH_TOKEN);
    assert_eq!(post_webhook(&server, &sent.integration_id, queued_signature, queued).await.0, 200);
    let (signature, body) =
        signed(&url, &callback(&sent.provider_message_id, "undelivered", Some("30003")), AUTH_TOKEN);

    let (status, _) = post_webhook(&server, &sent.integration_id, signature, body).await;

    assert_eq!(status, 200);
    assert_eq!(
        status_and_error(&server, &sent.transaction_id).await,
        json!(["error", "delivery_failed", "Twilio error 30003"])
    );
    assert_eq!(
        webhook_details(&server, &sent.transaction_id).await,
        [
            "Pending: Delivery pending (provider: sent)",
            "Failed: Delivery failed (provider: undelivered): Twilio error 30003"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unsigned_wrongly_signed_or_misaddressed_callbacks_are_refused_and_change_nothing() {
    let server = TestServer::start_public().await;
    let (sent, url) = sent(&server).await;
    let fields = callback(&sent.provider_message_id, "failed", Some("30005"));
    let (signature, body) = signed(&url, &fields, AUTH_TOKEN);
    let form = || headers(&[("content-type", "application/x-www-form-urlencoded")]);

    let cases = vec![
        ("unsigned", form(), body.clone()),
        ("another token", signed(&url, &fields, "0000000000000000ffffffffffffffff").0, body.clone()),
        ("another URL", signed("https://elsewhere.example/v1/webhooks/x/y", &fields, AUTH_TOKEN).0, body.clone()),
        ("a field changed", signature, body.replace("30005", "30006")),
    ];
    assert_all_refused(&server, &sent, cases).await;
}
