//! Real providers end to end: a trigger's email or SMS goes out through each provider's faithful local
//! fake; retries honour `Retry-After`; a misconfigured integration fails over to the next one; integration
//! conditions choose among them.

use chrono::TimeDelta;
use serde_json::{json, Value};

use super::fixtures::*;
use crate::fakes::{resend, FakeProvider};
use crate::support::TestServer;

fn ada() -> Value {
    json!({"subscriberId": "ada", "firstName": "Ada", "email": "ada@example.com", "phone": "+15550001",
           "data": {"plan": "pro"}})
}

/// An email step written in the block editor.
fn block_email_step() -> Value {
    let document = json!({"type": "doc", "content": [
        {"type": "paragraph", "content": [{"type": "text", "text": "Hello {{ subscriber.firstName }}, order {{ payload.orderId }} shipped."}]},
        {"type": "button", "attrs": {"text": "Track", "url": "https://shop.example/t/{{ payload.orderId }}"}}
    ]});
    json!({"name": "Mail", "type": "email", "controlValues": {"subject": "Order {{ payload.orderId }}",
           "body": document.to_string(), "editorType": "block"}})
}

async fn resend_integration(server: &TestServer, fake: &FakeProvider, identifier: &str, extra: Value) -> Value {
    let mut body = json!({"providerId": "resend", "channel": "email", "identifier": identifier, "active": true,
        "credentials": {"apiKey": resend::API_KEY, "from": "orders@acme.io", "senderName": "Acme", "baseUrl": fake.base_url()}});
    merge(&mut body, extra);
    create_integration(server, body).await
}

fn merge(target: &mut Value, extra: Value) {
    if let (Value::Object(target), Value::Object(extra)) = (target, extra) {
        for (key, value) in extra {
            match (target.get_mut(&key), value) {
                (Some(existing @ Value::Object(_)), value @ Value::Object(_)) => merge(existing, value),
                (_, value) => {
                    target.insert(key, value);
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_block_email_goes_out_through_resend_as_html_with_text_and_the_provider_id_is_recorded() {
    let server = TestServer::start().await;
    let fake = resend::start().await;
    resend_integration(&server, &fake, "resend", json!({})).await;
    create_workflow(&server, "mail", json!([block_email_step()])).await;
    let transaction_id =
        trigger_processed(&server, json!({"name": "mail", "to": ada(), "payload": {"orderId": "E-1"}})).await;
    wait_until_settled(&server).await;

    let body = fake.only_request().json();
    assert_eq!(body["from"], "Acme <orders@acme.io>");
    assert_eq!(body["to"], json!(["ada@example.com"]));
    assert_eq!(body["subject"], "Order E-1");
    let html = body["html"].as_str().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("Hello Ada, order E-1 shipped."), "{html}");
    assert!(html.contains("<a href=\"https://shop.example/t/E-1\""), "{html}");
    assert_eq!(body["text"], "Hello Ada, order E-1 shipped.\n\nTrack: https://shop.example/t/E-1");

    let message = &messages_of(&server, &transaction_id).await[0];
    assert_eq!((message["status"].as_str(), message["providerId"].as_str()), (Some("sent"), Some("resend")));
    let event = &events_of(&server, &transaction_id).await[0];
    let email = job(event, "email");
    let sent = details(email);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let provider_message_id = sent[0].strip_prefix("Message sent (provider message id ").unwrap().trim_end_matches(')');
    assert!(uuid::Uuid::parse_str(provider_message_id).is_ok(), "{sent:?}");
    let stored: Option<String> = {
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        use herald::db::schema::messages;
        let mut conn = server.pool.get().await.unwrap();
        messages::table.select(messages::provider_message_id).first(&mut conn).await.unwrap()
    };
    assert_eq!(stored.as_deref(), Some(provider_message_id), "stored on the message");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_429_waits_for_retry_after_then_the_same_message_is_sent() {
    let server = TestServer::start().await;
    let fake = resend::start().await;
    fake.then(resend::rate_limited("120"));
    resend_integration(&server, &fake, "resend", json!({})).await;
    create_workflow(&server, "mail", json!([block_email_step()])).await;
    let transaction_id =
        trigger_processed(&server, json!({"name": "mail", "to": ada(), "payload": {"orderId": "E-2"}})).await;
    wait_until_only_waiting(&server).await;

    assert_eq!(fake.requests().len(), 1, "the retry waits for Retry-After");
    let event = &events_of(&server, &transaction_id).await[0];
    assert_eq!(job(event, "email")["status"], "queued");
    let waiting = details(job(event, "email"));
    assert!(
        waiting[0].starts_with("Provider error, retrying in 120 s (attempt 1 of 5 through resend (resend))"),
        "{waiting:?}"
    );

    server.clock.advance(TimeDelta::seconds(121));
    wait_until_settled(&server).await;
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("idempotency-key"), requests[1].header("idempotency-key"));
    let event = &events_of(&server, &transaction_id).await[0];
    assert_eq!(job(event, "email")["status"], "completed");
    assert_eq!(messages_of(&server, &transaction_id).await[0]["status"], "sent");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_misconfigured_primary_fails_over_to_the_next_integration_and_the_details_show_each_attempt() {
    let server = TestServer::start().await;
    let broken = resend::start().await;
    let working = resend::start().await;
    let primary =
        resend_integration(&server, &broken, "resend-primary", json!({"credentials": {"apiKey": "re_revoked"}})).await;
    let (status, _) = server
        .send_json(
            reqwest::Method::POST,
            &format!("/v1/integrations/{}/set-primary", primary["_id"].as_str().unwrap()),
            &json!({}),
        )
        .await;
    assert_eq!(status, 200);
    resend_integration(&server, &working, "resend-backup", json!({})).await;
    create_workflow(&server, "mail", json!([block_email_step()])).await;
    let transaction_id =
        trigger_processed(&server, json!({"name": "mail", "to": ada(), "payload": {"orderId": "E-3"}})).await;
    wait_until_settled(&server).await;

    assert_eq!(broken.requests().len(), 1, "a refused key is not retried");
    assert_eq!(working.requests().len(), 1);
    let event = &events_of(&server, &transaction_id).await[0];
    let email = job(event, "email");
    assert_eq!(email["status"], "completed");
    let attempts = details(email);
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert!(
        attempts[0].starts_with("resend-primary (resend) failed: the integration is misconfigured: resend: HTTP 403")
            && attempts[0].ends_with("failing over to resend-backup (resend)"),
        "{attempts:?}"
    );
    assert!(attempts[1].starts_with("Message sent (provider message id "), "{attempts:?}");
    assert!(!attempts.iter().any(|detail| detail.contains("re_revoked")), "no secret in the details");
    let message = &messages_of(&server, &transaction_id).await[0];
    assert_eq!(message["status"], "sent");
}

#[tokio::test(flavor = "multi_thread")]
async fn integration_conditions_choose_the_integration_and_a_missing_sender_fails_the_step_by_name() {
    let server = TestServer::start().await;
    let pro = resend::start().await;
    let everyone = resend::start().await;
    let pro_only = json!([{"isNegated": false, "type": "GROUP", "value": "AND", "children": [
        {"field": "data.plan", "value": "pro", "operator": "EQUAL", "on": "subscriber"}]}]);
    resend_integration(&server, &pro, "resend-pro", json!({"conditions": pro_only})).await;
    resend_integration(&server, &everyone, "resend-all", json!({"credentials": {"from": ""}})).await;
    create_workflow(&server, "mail", json!([block_email_step()])).await;

    let for_pro = trigger_processed(&server, json!({"name": "mail", "to": ada(), "payload": {"orderId": "P"}})).await;
    let bob = json!({"subscriberId": "bob", "email": "bob@example.com", "data": {"plan": "free"}});
    let for_free = trigger_processed(&server, json!({"name": "mail", "to": bob, "payload": {"orderId": "F"}})).await;
    wait_until_settled(&server).await;

    assert_eq!(pro.requests().len(), 1);
    assert_eq!(pro.only_request().json()["to"], json!(["ada@example.com"]));
    assert!(everyone.requests().is_empty(), "an integration without a sender never sends");
    assert_eq!(messages_of(&server, &for_pro).await[0]["status"], "sent");
    let event = &events_of(&server, &for_free).await[0];
    let email = job(event, "email");
    assert_eq!(email["status"], "failed");
    assert_eq!(
        details(email),
        ["Provider error: the integration is misconfigured: resend integration has no `from` credential"]
    );
    let message = &messages_of(&server, &for_free).await[0];
    assert_eq!(
        (message["status"].as_str(), message["errorId"].as_str()),
        (Some("error"), Some("integration_misconfigured"))
    );
}

/// Every real provider through a trigger: each integration named by the trigger's overrides, one message
/// each, recorded as sent with the provider's own id.
#[tokio::test(flavor = "multi_thread")]
async fn every_email_and_sms_provider_delivers_a_triggered_message_and_records_its_id() {
    use crate::fakes::{aws, mailgun, nexmo, plivo, postmark, sendgrid, ses, smtp, sns, twilio};

    let server = TestServer::start().await;
    let email_fakes: Vec<(&str, FakeProvider, Value)> = vec![
        ("resend", resend::start().await, json!({"apiKey": resend::API_KEY})),
        ("sendgrid", sendgrid::start().await, json!({"apiKey": sendgrid::API_KEY})),
        ("mailgun", mailgun::start().await, json!({"apiKey": mailgun::API_KEY, "domain": mailgun::DOMAIN})),
        ("postmark", postmark::start().await, json!({"apiKey": postmark::SERVER_TOKEN})),
        (
            "ses",
            ses::start().await,
            json!({"apiKey": aws::ACCESS_KEY_ID, "secretKey": aws::SECRET, "region": aws::REGION}),
        ),
    ];
    let sms_fakes: Vec<(&str, FakeProvider, Value)> = vec![
        ("twilio", twilio::start().await, json!({"accountSid": twilio::ACCOUNT_SID, "token": twilio::AUTH_TOKEN})),
        ("nexmo", nexmo::start().await, json!({"apiKey": nexmo::API_KEY, "secretKey": nexmo::API_SECRET})),
        ("plivo", plivo::start().await, json!({"accountSid": plivo::AUTH_ID, "token": plivo::AUTH_TOKEN})),
        (
            "sns",
            sns::start().await,
            json!({"apiKey": aws::ACCESS_KEY_ID, "secretKey": aws::SECRET, "region": aws::REGION}),
        ),
    ];
    let relay = smtp::FakeSmtp::start(smtp::Options::PLAIN).await;
    let mut cases: Vec<(&str, &str, Value)> = Vec::new();
    for (provider, fake, mut credentials) in email_fakes.iter().cloned() {
        merge(&mut credentials, json!({"from": "orders@acme.io", "senderName": "Acme", "baseUrl": fake.base_url()}));
        cases.push((provider, "email", credentials));
    }
    for (provider, fake, mut credentials) in sms_fakes.iter().cloned() {
        merge(&mut credentials, json!({"from": "+15550999", "baseUrl": fake.base_url()}));
        cases.push((provider, "sms", credentials));
    }
    cases.push((
        "nodemailer",
        "email",
        json!({"host": "127.0.0.1", "port": relay.port().to_string(), "ignoreTls": true, "from": "orders@acme.io"}),
    ));
    for (provider, channel, credentials) in &cases {
        let identifier = format!("{provider}-integration");
        create_integration(
            &server,
            json!({"providerId": provider, "channel": channel, "identifier": identifier, "active": true, "credentials": credentials}),
        )
        .await;
    }
    let sms_step =
        json!({"name": "Text", "type": "sms", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
    create_workflow(&server, "email-only", json!([block_email_step()])).await;
    create_workflow(&server, "sms-only", json!([sms_step])).await;

    let mut transactions = Vec::new();
    for (provider, channel, _) in &cases {
        let workflow = if *channel == "email" { "email-only" } else { "sms-only" };
        let overrides = json!({*channel: {"integrationIdentifier": format!("{provider}-integration")}});
        let transaction_id = trigger_processed(
            &server,
            json!({"name": workflow, "to": ada(), "payload": {"orderId": provider}, "overrides": overrides}),
        )
        .await;
        transactions.push((provider, transaction_id));
    }
    wait_until_settled(&server).await;

    for (_, fake, _) in email_fakes.iter().chain(sms_fakes.iter()) {
        assert_eq!(fake.requests().len(), 1, "{}", fake.base_url());
    }
    assert_eq!(relay.mails().len(), 1);
    for (provider, transaction_id) in transactions {
        let message = &messages_of(&server, &transaction_id).await[0];
        assert_eq!(
            (message["status"].as_str(), message["providerId"].as_str()),
            (Some("sent"), Some(*provider)),
            "{message}"
        );
        let event = &events_of(&server, &transaction_id).await[0];
        let channel_job = &event["jobs"][1];
        let sent = details(channel_job);
        assert!(sent.len() == 1 && sent[0].starts_with("Message sent (provider message id "), "{provider}: {sent:?}");
    }
}

/// A chat webhook receiver on 127.0.0.1: `/chat/slow` answers after 8 s, any other path at once.
async fn chat_receiver_with_one_slow_path() -> std::net::SocketAddr {
    let answer = |axum::extract::Path(who): axum::extract::Path<String>| async move {
        if who == "slow" {
            tokio::time::sleep(std::time::Duration::from_secs(8)).await;
        }
        "ok"
    };
    let app = axum::Router::new().route("/chat/{who}", axum::routing::post(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_provider_call_does_not_hold_back_the_rest_of_its_batch() {
    // One worker loop: both chat jobs of the trigger below are claimed in one batch.
    let server = TestServer::start_with_one_worker_loop().await;
    let receiver = chat_receiver_with_one_slow_path().await;
    chat_webhook_workflow(&server).await;
    let to: Vec<Value> =
        ["slow", "fast"].iter().map(|who| chat_recipient(who, &format!("http://{receiver}/chat/{who}"))).collect();
    let transaction_id = trigger_processed(&server, json!({"name": "chat", "to": to})).await;

    // The slow answer is 8 s away; the fast subscriber's job is committed without waiting for it.
    let started = std::time::Instant::now();
    loop {
        let events = events_of(&server, &transaction_id).await;
        let fast = events.iter().find(|event| event["subscriber"]["subscriberId"] == "fast").expect("fast's event");
        if job(fast, "chat")["status"] == "completed" {
            break;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "the fast chat waited for the slow one: {fast}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_provider_call_does_not_hold_the_turn_to_claim() {
    // Two worker loops and one turn to claim (tests/api/support.rs): the loop waiting on the slow chat
    // answer must have given the turn back, or the in-app step triggered meanwhile waits 8 s for it.
    let server = TestServer::start().await;
    let receiver = chat_receiver_with_one_slow_path().await;
    chat_webhook_workflow(&server).await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    let slow = trigger_processed(
        &server,
        json!({"name": "chat", "to": chat_recipient("slow", &format!("http://{receiver}/chat/slow"))}),
    )
    .await;
    let started = std::time::Instant::now();
    let has_chat_job_running =
        |events: &[Value]| events.first().is_some_and(|event| job(event, "chat")["status"] == "running");
    while !has_chat_job_running(&events_of(&server, &slow).await) {
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "the slow chat was not claimed");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let in_app = trigger_processed(&server, json!({"name": "feed", "to": "reader"})).await;
    while messages_of(&server, &in_app).await.is_empty() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(6),
            "the in-app step waited for the slow chat's loop to finish"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let slow_events = events_of(&server, &slow).await;
    assert_eq!(
        job(&slow_events[0], "chat")["status"],
        "running",
        "the slow chat answered already: the test proves nothing"
    );
}
