//! Provider channels against a real local receiver: signatures, retries, permanent failures,
//! shouldStopOnFail, unreachable subscribers, preferences and filters; the custom step.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::*;
use super::receiver::Receiver;
use crate::support::TestServer;

fn ada() -> Value {
    json!({"subscriberId": "ada", "firstName": "Ada", "email": "ada@example.com", "phone": "+15550001"})
}

#[tokio::test(flavor = "multi_thread")]
async fn an_email_is_posted_signed_to_the_webhook_and_recorded_as_sent() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    email_integration(&server, &receiver).await;
    create_workflow(&server, "mail", json!([email_step()])).await;
    let transaction_id =
        trigger_processed(&server, json!({"name": "mail", "to": ada(), "payload": {"orderId": "E-1"}})).await;
    wait_until_settled(&server).await;

    let received = receiver.received();
    assert_eq!(received.len(), 1);
    let request = &received[0];
    assert_eq!(request.path, "/mail");
    let body = request.json();
    assert_eq!(body["to"], "ada@example.com");
    assert_eq!(body["subject"], "Order E-1");
    assert_eq!(body["html"], "<p>Hello Ada</p>");
    assert_eq!(body["transactionId"], transaction_id);
    let timestamp: i64 = request.header("x-herald-timestamp").unwrap().parse().unwrap();
    let expected = format!("v1={}", herald::providers::signature(SECRET, timestamp, &request.body));
    assert_eq!(request.header("x-herald-signature"), Some(expected.as_str()));

    let messages = messages_of(&server, &transaction_id).await;
    assert_eq!(messages.len(), 1);
    let message = &messages[0];
    assert_eq!(message["channel"], "email");
    assert_eq!(message["status"], "sent");
    assert_eq!(message["email"], "ada@example.com");
    assert_eq!(message["providerId"], "email-webhook");
    assert_eq!(message["subject"], "Order E-1");
    assert_eq!(request.header("idempotency-key"), message["_id"].as_str());
    let event = &events_of(&server, &transaction_id).await[0];
    let email_job = job(event, "email");
    assert_eq!(email_job["providerId"], "email-webhook");
    assert_eq!(email_job["status"], "completed");
    assert_eq!(details(email_job), ["Message sent (provider message id provider-1)"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_5xx_is_retried_and_the_retry_is_the_same_message() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    receiver.answer_next(500, "busy");
    email_integration(&server, &receiver).await;
    create_workflow(&server, "mail", json!([email_step()])).await;
    let transaction_id =
        trigger_processed(&server, json!({"name": "mail", "to": ada(), "payload": {"orderId": "E-2"}})).await;
    wait_until_settled(&server).await;

    let received = receiver.received();
    assert_eq!(received.len(), 2, "one failure, one success");
    assert_eq!(received[0].header("idempotency-key"), received[1].header("idempotency-key"));
    let messages = messages_of(&server, &transaction_id).await;
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["status"], "sent");
    let event = &events_of(&server, &transaction_id).await[0];
    let email_job = job(event, "email");
    assert_eq!(email_job["status"], "completed");
    let entries = email_job["executionDetails"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{email_job}");
    assert_eq!(entries[0]["status"], "Warning");
    assert!(entries[0]["detail"].as_str().unwrap().contains("retrying"), "{email_job}");
    assert_eq!(entries[0]["raw"], "busy");
    assert_eq!(entries[1]["status"], "Success");
    assert_eq!(entries[1]["isRetry"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_4xx_fails_at_once_and_the_next_step_still_runs_unless_the_step_stops_on_failure() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    email_integration(&server, &receiver).await;
    let mut stopping = email_step();
    stopping["shouldStopOnFail"] = json!(true);
    create_workflow(&server, "goes-on", json!([email_step(), in_app_step()])).await;
    create_workflow(&server, "stops", json!([stopping, in_app_step()])).await;

    receiver.answer_next(400, r#"{"error": "bad address"}"#);
    let goes_on =
        trigger_processed(&server, json!({"name": "goes-on", "to": ada(), "payload": {"orderId": "1"}})).await;
    wait_until_settled(&server).await;
    receiver.answer_next(400, r#"{"error": "bad address"}"#);
    let stops = trigger_processed(&server, json!({"name": "stops", "to": ada(), "payload": {"orderId": "2"}})).await;
    wait_until_settled(&server).await;
    assert_eq!(receiver.received().len(), 2, "no retry of a 4xx");

    let event = &events_of(&server, &goes_on).await[0];
    let failed = job(event, "email");
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["executionDetails"][0]["status"], "Failed");
    assert_eq!(failed["executionDetails"][0]["raw"], r#"{"error": "bad address"}"#);
    assert_eq!(job(event, "in_app")["status"], "completed");
    let messages = messages_of(&server, &goes_on).await;
    let email = messages.iter().find(|m| m["channel"] == "email").unwrap();
    assert_eq!(email["status"], "error");
    assert_eq!(email["errorId"], "provider_error");
    assert!(email["errorText"].as_str().unwrap().contains("400"), "{email}");

    let event = &events_of(&server, &stops).await[0];
    assert_eq!(job(event, "email")["status"], "failed");
    let canceled = job(event, "in_app");
    assert_eq!(canceled["status"], "canceled");
    assert!(details(canceled)[0].contains("stops the workflow on failure"), "{canceled}");
    assert_eq!(messages_of(&server, &stops).await.len(), 1, "only the failed email message");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_subscriber_gets_a_warning_message_and_no_call() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    email_integration(&server, &receiver).await;
    create_workflow(&server, "mail", json!([email_step()])).await;
    let transaction_id = trigger_processed(&server, json!({"name": "mail", "to": "no-email"})).await;
    wait_until_settled(&server).await;
    assert!(receiver.received().is_empty());
    let message = &messages_of(&server, &transaction_id).await[0];
    assert_eq!(message["status"], "warning");
    assert_eq!(message["errorId"], "no_subscriber_email");
    let event = &events_of(&server, &transaction_id).await[0];
    assert_eq!(job(event, "email")["executionDetails"][0]["detail"], "The subscriber has no email address");
}

#[tokio::test(flavor = "multi_thread")]
async fn sms_chat_and_push_go_to_their_webhooks_with_the_subscriber_destinations() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    create_integration(
        &server,
        json!({"providerId": "generic-sms", "channel": "sms", "identifier": "sms-hook", "active": true,
        "credentials": {"baseUrl": receiver.url("/sms"), "apiKey": "k-1", "from": "Shop"}}),
    )
    .await;
    create_integration(
        &server,
        json!({"providerId": "chat-webhook", "channel": "chat", "identifier": "chat-hook", "active": true,
        "credentials": {"secretKey": SECRET}}),
    )
    .await;
    create_integration(
        &server,
        json!({"providerId": "push-webhook", "channel": "push", "identifier": "push-hook", "active": true,
        "credentials": {"webhookUrl": receiver.url("/push")}}),
    )
    .await;
    create_workflow(&server, "everywhere", json!([
        {"name": "Text", "type": "sms", "controlValues": {"body": "SMS {{ payload.n }}"}},
        {"name": "Chat", "type": "chat", "controlValues": {"body": "Chat {{ payload.n }}"}},
        {"name": "Push", "type": "push", "controlValues": {"subject": "Title {{ payload.n }}", "body": "Push {{ payload.n }}"}}
    ])).await;
    let (status, _) = server.send_json(Method::POST, "/v2/subscribers", &ada()).await;
    assert_eq!(status, 201);
    for (provider, credentials) in [
        ("chat-webhook", json!({"webhookUrl": receiver.url("/chat/ada")})),
        ("push-webhook", json!({"deviceTokens": ["device-a", "device-b"]})),
    ] {
        let (status, body) = server
            .send_json(
                Method::PATCH,
                "/v1/subscribers/ada/credentials",
                &json!({"providerId": provider, "credentials": credentials}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let transaction_id =
        trigger_processed(&server, json!({"name": "everywhere", "to": "ada", "payload": {"n": 7}})).await;
    wait_until_settled(&server).await;

    let received = receiver.received();
    let by_path =
        |path: &str| received.iter().find(|r| r.path == path).unwrap_or_else(|| panic!("nothing at {path}")).clone();
    let sms = by_path("/sms");
    assert_eq!(sms.json()["to"], "+15550001");
    assert_eq!(sms.json()["content"], "SMS 7");
    assert_eq!(sms.header("x-api-key"), Some("k-1"));
    let chat = by_path("/chat/ada");
    assert_eq!(chat.json()["content"], "Chat 7");
    assert!(chat.header("x-herald-signature").is_some());
    let push = by_path("/push");
    assert_eq!(push.json()["deviceTokens"], json!(["device-a", "device-b"]));
    assert_eq!(push.json()["title"], "Title 7");

    let messages = messages_of(&server, &transaction_id).await;
    assert_eq!(messages.len(), 3);
    assert!(messages.iter().all(|m| m["status"] == "sent"), "{messages:?}");
    let push_message = messages.iter().find(|m| m["channel"] == "push").unwrap();
    assert_eq!(push_message["deviceTokens"], json!(["device-a", "device-b"]));
    assert_eq!(push_message["title"], "Title 7");
    let chat_message = messages.iter().find(|m| m["channel"] == "chat").unwrap();
    assert_eq!(chat_message["directWebhookUrl"], receiver.url("/chat/ada"));
}

#[tokio::test(flavor = "multi_thread")]
async fn preferences_cancel_a_channel_step_naming_the_cause_and_critical_workflows_pass() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    email_integration(&server, &receiver).await;
    create_workflow(&server, "news", json!([email_step(), in_app_step()])).await;
    create_workflow(&server, "digest-news", json!([email_step()])).await;
    create_workflow_with(
        &server,
        json!({"workflowId": "security", "name": "security", "active": true, "steps": [email_step()],
        "preferences": {"workflow": {"all": {"enabled": true, "readOnly": true}}}}),
    )
    .await;
    server.send_json(Method::POST, "/v2/subscribers", &ada()).await;
    let (status, body) = server
        .send_json(Method::PATCH, "/v2/subscribers/ada/preferences", &json!({"channels": {"email": false}}))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .send_json(
            Method::PATCH,
            "/v2/subscribers/ada/preferences",
            &json!({"workflowId": "digest-news", "channels": {"in_app": false, "email": false}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let news = trigger_processed(&server, json!({"name": "news", "to": "ada", "payload": {"orderId": "n"}})).await;
    let per_workflow = trigger_processed(&server, json!({"name": "digest-news", "to": "ada"})).await;
    let security = trigger_processed(&server, json!({"name": "security", "to": "ada"})).await;
    wait_until_settled(&server).await;

    let event = &events_of(&server, &news).await[0];
    assert_eq!(job(event, "email")["status"], "canceled");
    assert_eq!(details(job(event, "email")), ["Step canceled: the subscriber's preferences turn off email"]);
    assert_eq!(job(event, "in_app")["status"], "completed");
    let event = &events_of(&server, &per_workflow).await[0];
    assert_eq!(job(event, "email")["status"], "canceled");
    let event = &events_of(&server, &security).await[0];
    assert_eq!(job(event, "email")["status"], "completed", "critical workflows ignore preferences");
    assert_eq!(receiver.received().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn step_filters_on_subscriber_and_payload_fields_decide_which_steps_run() {
    let server = TestServer::start().await;
    // (on, field, operator, value, negated, should the step run for the subscriber and payload below)
    let cases = [
        ("payload", "amount", "LARGER", "100", false, true),
        ("payload", "amount", "SMALLER", "100", false, false),
        ("payload", "amount", "LARGER_EQUAL", "150", false, true),
        ("payload", "amount", "SMALLER_EQUAL", "149", false, false),
        ("payload", "amount", "EQUAL", "150", false, true),
        ("payload", "amount", "NOT_EQUAL", "150", false, false),
        ("payload", "amount", "BETWEEN", "100,200", false, true),
        ("payload", "amount", "NOT_BETWEEN", "100,200", false, false),
        ("payload", "tags", "ALL_IN", "[\"vip\",\"eu\"]", false, true),
        ("payload", "tags", "ANY_IN", "us, eu", false, true),
        ("payload", "tags", "NOT_IN", "us", false, true),
        ("payload", "tags", "IN", "us", false, false),
        ("subscriber", "email", "LIKE", "EXAMPLE.com", false, true),
        ("subscriber", "email", "NOT_LIKE", "example.com", false, false),
        ("subscriber", "firstName", "EQUAL", "Ada", true, false),
        ("subscriber", "data.plan", "EQUAL", "pro", false, true),
        ("subscriber", "data.plan", "EQUAL", "free", true, true),
    ];
    let steps: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(index, (on, field, operator, value, negated, _))| {
            json!({"name": format!("step-{index}"), "type": "in_app", "controlValues": {"body": format!("{index}")},
                   "filters": [{"isNegated": negated, "type": "TEXT", "value": "AND",
                                "children": [{"field": field, "value": value, "operator": operator, "on": on}]}]})
        })
        .collect();
    let workflow = create_workflow(&server, "filtered", Value::Array(steps)).await;
    assert_eq!(workflow["steps"][0]["filters"][0]["children"][0]["operator"], "LARGER");
    let to = json!({"subscriberId": "ada", "firstName": "Ada", "email": "ada@example.com", "data": {"plan": "pro"}});
    let transaction_id = trigger_processed(
        &server,
        json!({"name": "filtered", "to": to, "payload": {"amount": 150, "tags": ["vip", "eu"]}}),
    )
    .await;
    wait_until_settled(&server).await;
    let event = &events_of(&server, &transaction_id).await[0];
    let jobs = event["jobs"].as_array().unwrap();
    for (index, case) in cases.iter().enumerate() {
        let step_job = &jobs[index + 1];
        let expected = if case.5 { "completed" } else { "skipped" };
        assert_eq!(step_job["status"], expected, "case {index} {case:?}: {step_job}");
        if !case.5 {
            assert!(details(step_job)[0].contains(case.2), "the reason names the operator: {step_job}");
        }
    }
    let delivered = messages_of(&server, &transaction_id).await.len();
    assert_eq!(delivered, cases.iter().filter(|case| case.5).count());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_custom_step_posts_its_context_and_later_steps_see_its_answer() {
    let server = TestServer::start().await;
    let receiver = Receiver::start().await;
    receiver.answer_next(200, r#"{"score": 9}"#);
    create_workflow(&server, "scored", json!([
        in_app_step(),
        {"name": "Score", "type": "custom", "controlValues": {"url": receiver.url("/score"), "headers": {"x-team": "growth"}}},
        {"name": "After", "type": "custom", "controlValues": {"url": receiver.url("/after")}}
    ])).await;
    let transaction_id =
        trigger_processed(&server, json!({"name": "scored", "to": ada(), "payload": {"orderId": "C-1"}})).await;
    wait_until_settled(&server).await;

    let received = receiver.received();
    assert_eq!(received.len(), 2);
    let score = received[0].json();
    assert_eq!(received[0].header("x-team"), Some("growth"));
    assert_eq!(score["payload"], json!({"orderId": "C-1"}));
    assert_eq!(score["subscriber"]["subscriberId"], "ada");
    assert_eq!(score["transactionId"], transaction_id);
    assert_eq!(score["steps"][0]["type"], "in_app");
    let after = received[1].json();
    assert_eq!(after["steps"][1]["result"], json!({"score": 9}));
    let event = &events_of(&server, &transaction_id).await[0];
    let custom = &event["jobs"][2];
    assert_eq!(custom["status"], "completed");
    assert_eq!(custom["executionDetails"][0]["source"], "Webhook");
    assert_eq!(custom["executionDetails"][0]["raw"], r#"{"score": 9}"#);
}
