//! The chat adapters of issue 22 end to end through triggers, each against its local fake: the
//! subscriber's own webhook (and alert fields) reach the provider, the message is sent with the id the
//! provider gave (when it gives one), and a webhook the provider says is gone is removed from the
//! subscriber, so the next trigger posts nothing.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{
    create_integration, create_workflow, details, events_of, job, messages_of, trigger_processed, wait_until_settled,
};
use crate::fakes::{getstream, grafana_on_call, rocket_chat, ryver, slack, zulip, FakeProvider};
use crate::support::TestServer;

/// The `x-slack-req-id` the Slack fake is scripted to answer, so the recorded id can be asserted.
const SLACK_REQUEST_ID: &str = "0b1c2d3e4f5061728394a5b6c7d8e9f0";

/// One provider under test: its fake, Ada's live and gone webhooks there, her extra credentials, what the
/// fake must receive, and the detail that names the provider's message id (when it gives one).
struct Case {
    provider_id: &'static str,
    fake: FakeProvider,
    live: String,
    gone: String,
    extra: Value,
    expected_body: Value,
    sent_detail: String,
}

async fn cases() -> Vec<Case> {
    let zulip = zulip::start().await;
    let ryver = ryver::start().await;
    let grafana = grafana_on_call::start().await;
    let slack = slack::start().await;
    slack.then(slack::webhook_answer(200, "ok").with_header("x-slack-req-id", SLACK_REQUEST_ID));
    vec![
        Case {
            provider_id: "zulip",
            live: zulip::webhook_url(&zulip, zulip::BOT_KEY),
            gone: zulip::webhook_url(&zulip, zulip::DEACTIVATED_KEY),
            fake: zulip,
            extra: json!({}),
            expected_body: json!({"text": "Order C-1 shipped"}),
            sent_detail: "Message sent".into(),
        },
        Case {
            provider_id: "ryver",
            live: ryver::webhook_url(&ryver, ryver::TOKEN),
            gone: ryver::webhook_url(&ryver, ryver::DELETED_TOKEN),
            fake: ryver,
            extra: json!({}),
            expected_body: json!({"content": "Order C-1 shipped", "body": "Order C-1 shipped"}),
            sent_detail: "Message sent".into(),
        },
        Case {
            provider_id: "grafana-on-call",
            live: grafana_on_call::webhook_url(&grafana, grafana_on_call::TOKEN),
            gone: grafana_on_call::webhook_url(&grafana, "gOnEgOnEgOnEgOnEgOnEgOnE0"),
            fake: grafana,
            extra: json!({"alertUid": "ada-orders", "state": "alerting", "externalUrl": "https://shop.example/C-1"}),
            expected_body: json!({"alert_uid": "ada-orders", "title": "Orders", "state": "alerting",
                                  "link_to_upstream_details": "https://shop.example/C-1",
                                  "message": "Order C-1 shipped"}),
            sent_detail: "Message sent".into(),
        },
        // The reference service's own Slack app: Slack's incoming webhook under its own id (a hook Slack
        // no longer knows answers `404 no_service`).
        Case {
            provider_id: "svc-slack",
            live: slack::webhook_url(&slack),
            gone: format!("{}/services/T0001/B0DELETED/Xq7HOOKSECRETxxxxxxxxxxx", slack.base_url()),
            fake: slack,
            extra: json!({}),
            expected_body: json!({"text": "Order C-1 shipped"}),
            sent_detail: format!("Message sent (provider message id {SLACK_REQUEST_ID})"),
        },
    ]
}

/// An active chat `integration`, a workflow `notify` of one chat step, and Ada with `credentials` for the
/// integration's provider.
async fn chat_to_ada(server: &TestServer, integration: Value, credentials: Value) {
    let provider_id = integration["providerId"].as_str().expect("the integration's providerId").to_owned();
    create_integration(server, integration).await;
    let chat =
        json!({"name": "Chat", "type": "chat", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
    create_workflow(server, "notify", json!([chat])).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    set_credentials(server, &provider_id, credentials).await;
}

/// Triggers `notify` to Ada for order `order_id` and waits for its jobs; returns the transaction id.
async fn notify_ada(server: &TestServer, order_id: &str) -> String {
    let transaction_id =
        trigger_processed(server, json!({"name": "notify", "to": "ada", "payload": {"orderId": order_id}})).await;
    wait_until_settled(server).await;
    transaction_id
}

/// The details of the chat job of a transaction.
async fn chat_details(server: &TestServer, transaction_id: &str) -> Vec<String> {
    details(job(&events_of(server, transaction_id).await[0], "chat"))
}

async fn set_credentials(server: &TestServer, provider_id: &str, credentials: Value) {
    let update = json!({"providerId": provider_id, "credentials": credentials});
    let (status, body) = server.send_json(Method::PATCH, "/v1/subscribers/ada/credentials", &update).await;
    assert_eq!(status, 200, "{body}");
}

async fn credentials_of_ada(server: &TestServer, provider_id: &str) -> Value {
    let (status, subscriber) = server.get_json("/v2/subscribers/ada").await;
    assert_eq!(status, 200, "{subscriber}");
    let channels = subscriber["data"]["channels"].as_array().or_else(|| subscriber["channels"].as_array()).unwrap();
    let entry = channels.iter().find(|entry| entry["providerId"] == provider_id).expect("Ada's entry");
    entry["credentials"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_chat_provider_delivers_to_the_subscribers_webhook_and_a_gone_one_is_removed() {
    for case in cases().await {
        let provider_id = case.provider_id;
        let server = TestServer::start().await;
        let mut credentials = case.extra.clone();
        credentials["webhookUrl"] = json!(case.live);
        let integration = json!({"providerId": provider_id, "channel": "chat", "identifier": provider_id,
                                 "active": true, "credentials": {"title": "Orders"}});
        chat_to_ada(&server, integration, credentials).await;

        // Delivered to Ada's webhook.
        let sent = notify_ada(&server, "C-1").await;

        let request = case.fake.only_request();
        assert_eq!(request.json(), case.expected_body, "{provider_id}");
        let message = &messages_of(&server, &sent).await[0];
        assert_eq!(message["status"], "sent", "{provider_id}: {message}");
        assert_eq!(message["providerId"], provider_id, "{message}");
        let chat_job = job(&events_of(&server, &sent).await[0], "chat").clone();
        assert_eq!(chat_job["status"], "completed", "{provider_id}: {chat_job}");
        assert!(details(&chat_job).contains(&case.sent_detail), "{provider_id}: {chat_job}");

        // Her webhook is gone: the message fails and the webhook is removed.
        let mut credentials = case.extra.clone();
        credentials["webhookUrl"] = json!(case.gone);
        set_credentials(&server, provider_id, credentials).await;
        let failed = notify_ada(&server, "C-2").await;

        assert_eq!(case.fake.requests().len(), 2, "{provider_id}: a dead destination is not retried");
        let message = &messages_of(&server, &failed).await[0];
        assert_eq!(message["errorId"], "dead_destination", "{provider_id}: {message}");
        let expected =
            format!("The subscriber's {provider_id} webhook URL is gone; removed from their channel credentials");
        assert!(chat_details(&server, &failed).await.contains(&expected), "{provider_id}");
        assert_eq!(credentials_of_ada(&server, provider_id).await.get("webhookUrl"), None, "{provider_id}");

        let next = notify_ada(&server, "C-3").await;
        assert_eq!(case.fake.requests().len(), 2, "{provider_id}: nothing more was posted");
        assert_eq!(messages_of(&server, &next).await[0]["errorId"], "no_chat_webhook_url", "{provider_id}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn svc_slack_with_a_bot_token_posts_to_the_subscribers_channel_and_an_archived_one_is_removed() {
    let server = TestServer::start().await;
    let fake = slack::start().await;
    let integration = json!({"providerId": "svc-slack", "channel": "chat", "identifier": "svc-slack-bot",
                             "active": true, "credentials": {"apiKey": slack::BOT_TOKEN, "baseUrl": fake.base_url()}});
    chat_to_ada(&server, integration, json!({"channel": slack::CHANNEL})).await;

    let sent = notify_ada(&server, "B-1").await;

    let request = fake.only_request();
    assert_eq!(request.path, "/api/chat.postMessage");
    assert_eq!(request.header("authorization"), Some(format!("Bearer {}", slack::BOT_TOKEN).as_str()));
    assert_eq!(request.json(), json!({"channel": slack::CHANNEL, "text": "Order B-1 shipped"}));
    let message = &messages_of(&server, &sent).await[0];
    assert_eq!((&message["status"], &message["providerId"]), (&json!("sent"), &json!("svc-slack")), "{message}");
    let recorded = chat_details(&server, &sent).await;
    let prefix = format!("Message sent (provider message id {}:", slack::CHANNEL);
    assert!(recorded.iter().any(|detail| detail.starts_with(&prefix)), "the channel:ts pair: {recorded:?}");

    set_credentials(&server, "svc-slack", json!({"channel": slack::ARCHIVED_CHANNEL})).await;
    let failed = notify_ada(&server, "B-2").await;

    assert_eq!(fake.requests().len(), 2, "a dead destination is not retried");
    assert_eq!(messages_of(&server, &failed).await[0]["errorId"], "dead_destination");
    let expected = "The subscriber's svc-slack channel is gone; removed from their channel credentials".to_owned();
    assert!(chat_details(&server, &failed).await.contains(&expected));
    assert_eq!(credentials_of_ada(&server, "svc-slack").await.get("channel"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn rocket_chat_posts_to_the_subscribers_room_records_its_id_and_a_gone_room_is_removed() {
    let server = TestServer::start().await;
    let fake = rocket_chat::start().await;
    let integration = json!({"providerId": "rocket-chat", "channel": "chat", "identifier": "rocket", "active": true,
                             "credentials": {"token": rocket_chat::TOKEN, "user": rocket_chat::USER_ID}});
    chat_to_ada(&server, integration, json!({"webhookUrl": fake.base_url(), "channel": rocket_chat::ROOM})).await;

    let sent = notify_ada(&server, "R-1").await;

    let request = fake.only_request();
    assert_eq!(request.path, rocket_chat::PATH);
    assert_eq!(request.json(), json!({"message": {"rid": rocket_chat::ROOM, "msg": "Order R-1 shipped"}}));
    assert_eq!(messages_of(&server, &sent).await[0]["status"], "sent");
    let recorded = format!("Message sent (provider message id {})", rocket_chat::MESSAGE_ID);
    assert!(chat_details(&server, &sent).await.contains(&recorded));

    set_credentials(&server, "rocket-chat", json!({"webhookUrl": fake.base_url(), "channel": "DeletedRoom000000"}))
        .await;
    let failed = notify_ada(&server, "R-2").await;

    assert_eq!(fake.requests().len(), 2, "a dead destination is not retried");
    assert_eq!(messages_of(&server, &failed).await[0]["errorId"], "dead_destination");
    let expected = "The subscriber's rocket-chat channel is gone; removed from their channel credentials".to_owned();
    assert!(chat_details(&server, &failed).await.contains(&expected));
    let credentials = credentials_of_ada(&server, "rocket-chat").await;
    assert_eq!(credentials.get("channel"), None, "{credentials}");
    assert_eq!(credentials["webhookUrl"], fake.base_url(), "the server's URL stays");
}

#[tokio::test(flavor = "multi_thread")]
async fn getstream_sends_to_the_subscribers_channel_records_its_id_and_a_gone_channel_is_removed() {
    let server = TestServer::start().await;
    let fake = getstream::start().await;
    let integration = json!({"providerId": "getstream", "channel": "chat", "identifier": "stream", "active": true,
                             "credentials": {"apiKey": getstream::API_KEY, "secretKey": getstream::SECRET,
                                             "user": getstream::USER_ID, "baseUrl": fake.base_url()}});
    chat_to_ada(&server, integration, json!({"channel": getstream::CID})).await;

    let sent = notify_ada(&server, "S-1").await;

    let request = fake.only_request();
    assert_eq!(request.path, getstream::PATH);
    assert!(getstream::is_server_token(request.header("authorization").unwrap_or_default()));
    assert_eq!(request.json(), json!({"message": {"text": "Order S-1 shipped", "user_id": getstream::USER_ID}}));
    assert_eq!(messages_of(&server, &sent).await[0]["status"], "sent");
    let recorded = format!("Message sent (provider message id {})", getstream::MESSAGE_ID);
    assert!(chat_details(&server, &sent).await.contains(&recorded));

    set_credentials(&server, "getstream", json!({"channel": "messaging:deleted"})).await;
    let failed = notify_ada(&server, "S-2").await;

    assert_eq!(fake.requests().len(), 2, "a dead destination is not retried");
    assert_eq!(messages_of(&server, &failed).await[0]["errorId"], "dead_destination");
    let expected = "The subscriber's getstream channel is gone; removed from their channel credentials".to_owned();
    assert!(chat_details(&server, &failed).await.contains(&expected));
    let credentials = credentials_of_ada(&server, "getstream").await;
    assert_eq!(credentials.get("channel"), None, "{credentials}");
}
