//! Twilio's SMS status callbacks: a form signed in `X-Twilio-Signature` (base64 HMAC-SHA1 of the URL
//! Twilio called plus the sorted fields) with the auth token, the `token` credential. Without
//! `HERALD_PUBLIC_URL` the URL is rebuilt from the `Host` the request carries.
//!
//! The Twilio adapter is written on another branch, so the message here is an email sent through
//! Resend's fake, then made to look like one Twilio accepted (provider `twilio`, its `SM…` sid).

use base64::Engine;
use ring::hmac;
use serde_json::json;

use super::*;
use crate::fakes::resend;

const AUTH_TOKEN: &str = "f0e1d2c3b4a5968778695a4b3c2d1e0f";
const SID: &str = "SM0123456789abcdef0123456789abcdef";

/// A message Herald sent "through Twilio", and the Twilio integration the callback names.
async fn sent(server: &TestServer) -> Sent {
    let fake = resend::start().await;
    let mut sent = send_email(
        server,
        json!({"providerId": "resend", "channel": "email", "identifier": "resend", "active": true,
               "credentials": {"apiKey": resend::API_KEY, "from": "orders@acme.io", "baseUrl": fake.base_url()}}),
    )
    .await;
    {
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        use herald::db::schema::messages;
        let mut conn = server.pool.get().await.unwrap();
        let changed = diesel::update(messages::table)
            .set((messages::provider_id.eq("twilio"), messages::provider_message_id.eq(SID)))
            .execute(&mut conn)
            .await
            .unwrap();
        assert_eq!(changed, 1);
    }
    let twilio = create_integration(
        server,
        json!({"providerId": "twilio", "channel": "sms", "identifier": "twilio", "active": true,
               "credentials": {"accountSid": "AC0123456789abcdef0123456789abcdef", "token": AUTH_TOKEN, "from": "+15550100"}}),
    )
    .await;
    sent.integration_id = twilio["_id"].as_str().unwrap().to_string();
    sent.provider_message_id = SID.to_string();
    sent
}

/// Twilio's callback fields for `status`.
fn callback(status: &str, error_code: Option<&str>) -> Vec<(&'static str, String)> {
    let mut fields = vec![
        ("AccountSid", "AC0123456789abcdef0123456789abcdef".to_string()),
        ("ApiVersion", "2010-04-01".to_string()),
        ("From", "+15550100".to_string()),
        ("MessageSid", SID.to_string()),
        ("MessageStatus", status.to_string()),
        ("SmsSid", SID.to_string()),
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

/// The URL Twilio calls when Herald has no `HERALD_PUBLIC_URL`: the address it serves on.
fn called_url(server: &TestServer, sent: &Sent) -> String {
    server.url(&webhook_path(server, &sent.integration_id))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_delivered_callback_adds_a_success_detail_and_the_delivery_time() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let (signature, body) = signed(&called_url(&server, &sent), &callback("delivered", None), AUTH_TOKEN);
    let before = chrono::Utc::now() - chrono::TimeDelta::seconds(1);

    let response = post_webhook(&server, &sent.integration_id, signature, body).await;

    assert_delivered(&server, &sent, response, "Delivered (provider: delivered)", None).await;
    let reported = message(&server, &sent.transaction_id).await["deliveredAt"][1].clone();
    let reported: chrono::DateTime<chrono::Utc> = serde_json::from_value(reported).unwrap();
    assert!(reported >= before, "Twilio's callback has no time: the time it arrived is recorded");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_undelivered_callback_makes_the_message_an_error_naming_twilios_error_code() {
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let (queued_signature, queued) = signed(&called_url(&server, &sent), &callback("sent", None), AUTH_TOKEN);
    assert_eq!(post_webhook(&server, &sent.integration_id, queued_signature, queued).await.0, 200);
    let (signature, body) = signed(&called_url(&server, &sent), &callback("undelivered", Some("30003")), AUTH_TOKEN);

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
    let server = TestServer::start().await;
    let sent = sent(&server).await;
    let fields = callback("failed", Some("30005"));
    let url = called_url(&server, &sent);
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
