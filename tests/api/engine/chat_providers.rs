//! The chat adapters of issue 22 end to end through triggers, each against its local fake: the
//! subscriber's own webhook (and alert fields) reach the provider, the message is sent with the id the
//! provider gave (when it gives one), and a webhook the provider says is gone is removed from the
//! subscriber, so the next trigger posts nothing.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{
    create_integration, create_workflow, details, events_of, job, messages_of, trigger_processed, wait_until_settled,
};
use crate::fakes::{getstream, grafana_on_call, rocket_chat, ryver, zulip, FakeProvider};
use crate::support::TestServer;

/// One provider under test: its fake, Ada's live and gone webhooks there, her extra credentials, what the
/// fake must receive, and the detail that names the provider's message id (when it gives one).
struct Case {
    provider_id: &'static str,
    fake: FakeProvider,
    live: String,
    gone: String,
    extra: Value,
    expected_body: Value,
    sent_detail: &'static str,
}

async fn cases() -> Vec<Case> {
    let zulip = zulip::start().await;
    let ryver = ryver::start().await;
    let grafana = grafana_on_call::start().await;
    vec![
        Case {
            provider_id: "zulip",
            live: zulip::webhook_url(&zulip, zulip::BOT_KEY),
            gone: zulip::webhook_url(&zulip, zulip::DEACTIVATED_KEY),
            fake: zulip,
            extra: json!({}),
            expected_body: json!({"text": "Order C-1 shipped"}),
            sent_detail: "Message sent",
        },
        Case {
            provider_id: "ryver",
            live: ryver::webhook_url(&ryver, ryver::TOKEN),
            gone: ryver::webhook_url(&ryver, ryver::DELETED_TOKEN),
            fake: ryver,
            extra: json!({}),
            expected_body: json!({"content": "Order C-1 shipped", "body": "Order C-1 shipped"}),
            sent_detail: "Message sent",
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
            sent_detail: "Message sent",
        },
    ]
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
        create_integration(
            &server,
            json!({"providerId": provider_id, "channel": "chat", "identifier": provider_id, "active": true,
                   "credentials": {"title": "Orders"}}),
        )
        .await;
        let chat =
            json!({"name": "Chat", "type": "chat", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
        create_workflow(&server, "notify", json!([chat])).await;
        let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
        assert_eq!(status, 201, "{body}");
        let mut credentials = case.extra.clone();
        credentials["webhookUrl"] = json!(case.live);
        set_credentials(&server, provider_id, credentials).await;

        // Delivered to Ada's webhook.
        let sent =
            trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "C-1"}})).await;
        wait_until_settled(&server).await;

        let request = case.fake.only_request();
        assert_eq!(request.json(), case.expected_body, "{provider_id}");
        assert_eq!(messages_of(&server, &sent).await[0]["status"], "sent", "{provider_id}");
        let chat_job = job(&events_of(&server, &sent).await[0], "chat").clone();
        assert_eq!(chat_job["status"], "completed", "{provider_id}: {chat_job}");
        assert!(details(&chat_job).iter().any(|detail| detail == case.sent_detail), "{provider_id}: {chat_job}");

        // Her webhook is gone: the message fails and the webhook is removed.
        let mut credentials = case.extra.clone();
        credentials["webhookUrl"] = json!(case.gone);
        set_credentials(&server, provider_id, credentials).await;
        let failed =
            trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "C-2"}})).await;
        wait_until_settled(&server).await;

        assert_eq!(case.fake.requests().len(), 2, "{provider_id}: a dead destination is not retried");
        let message = &messages_of(&server, &failed).await[0];
        assert_eq!(message["errorId"], "dead_destination", "{provider_id}: {message}");
        let chat_job = job(&events_of(&server, &failed).await[0], "chat").clone();
        let expected =
            format!("The subscriber's {provider_id} webhook URL is gone; removed from their channel credentials");
        assert!(details(&chat_job).contains(&expected), "{provider_id}: {chat_job}");
        assert_eq!(credentials_of_ada(&server, provider_id).await.get("webhookUrl"), None, "{provider_id}");

        let next =
            trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "C-3"}})).await;
        wait_until_settled(&server).await;
        assert_eq!(case.fake.requests().len(), 2, "{provider_id}: nothing more was posted");
        assert_eq!(messages_of(&server, &next).await[0]["errorId"], "no_chat_webhook_url", "{provider_id}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rocket_chat_posts_to_the_subscribers_room_records_its_id_and_a_gone_room_is_removed() {
    let server = TestServer::start().await;
    let fake = rocket_chat::start().await;
    create_integration(
        &server,
        json!({"providerId": "rocket-chat", "channel": "chat", "identifier": "rocket", "active": true,
               "credentials": {"token": rocket_chat::TOKEN, "user": rocket_chat::USER_ID}}),
    )
    .await;
    let chat =
        json!({"name": "Chat", "type": "chat", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
    create_workflow(&server, "notify", json!([chat])).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    set_credentials(&server, "rocket-chat", json!({"webhookUrl": fake.base_url(), "channel": rocket_chat::ROOM})).await;

    let sent = trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "R-1"}})).await;
    wait_until_settled(&server).await;

    let request = fake.only_request();
    assert_eq!(request.path, rocket_chat::PATH);
    assert_eq!(request.json(), json!({"message": {"rid": rocket_chat::ROOM, "msg": "Order R-1 shipped"}}));
    assert_eq!(messages_of(&server, &sent).await[0]["status"], "sent");
    let chat_job = job(&events_of(&server, &sent).await[0], "chat").clone();
    let recorded = format!("Message sent (provider message id {})", rocket_chat::MESSAGE_ID);
    assert!(details(&chat_job).contains(&recorded), "{chat_job}");

    set_credentials(&server, "rocket-chat", json!({"webhookUrl": fake.base_url(), "channel": "DeletedRoom000000"}))
        .await;
    let failed =
        trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "R-2"}})).await;
    wait_until_settled(&server).await;

    assert_eq!(fake.requests().len(), 2, "a dead destination is not retried");
    assert_eq!(messages_of(&server, &failed).await[0]["errorId"], "dead_destination");
    let chat_job = job(&events_of(&server, &failed).await[0], "chat").clone();
    let expected = "The subscriber's rocket-chat channel is gone; removed from their channel credentials".to_owned();
    assert!(details(&chat_job).contains(&expected), "{chat_job}");
    let credentials = credentials_of_ada(&server, "rocket-chat").await;
    assert_eq!(credentials.get("channel"), None, "{credentials}");
    assert_eq!(credentials["webhookUrl"], fake.base_url(), "the server's URL stays");
}

#[tokio::test(flavor = "multi_thread")]
async fn getstream_sends_to_the_subscribers_channel_records_its_id_and_a_gone_channel_is_removed() {
    let server = TestServer::start().await;
    let fake = getstream::start().await;
    create_integration(
        &server,
        json!({"providerId": "getstream", "channel": "chat", "identifier": "stream", "active": true,
               "credentials": {"apiKey": getstream::API_KEY, "secretKey": getstream::SECRET,
                               "user": getstream::USER_ID, "baseUrl": fake.base_url()}}),
    )
    .await;
    let chat =
        json!({"name": "Chat", "type": "chat", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
    create_workflow(&server, "notify", json!([chat])).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    set_credentials(&server, "getstream", json!({"channel": getstream::CID})).await;

    let sent = trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "S-1"}})).await;
    wait_until_settled(&server).await;

    let request = fake.only_request();
    assert_eq!(request.path, getstream::PATH);
    assert!(getstream::is_server_token(request.header("authorization").unwrap_or_default()));
    assert_eq!(request.json(), json!({"message": {"text": "Order S-1 shipped", "user_id": getstream::USER_ID}}));
    assert_eq!(messages_of(&server, &sent).await[0]["status"], "sent");
    let chat_job = job(&events_of(&server, &sent).await[0], "chat").clone();
    let recorded = format!("Message sent (provider message id {})", getstream::MESSAGE_ID);
    assert!(details(&chat_job).contains(&recorded), "{chat_job}");

    set_credentials(&server, "getstream", json!({"channel": "messaging:deleted"})).await;
    let failed =
        trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "S-2"}})).await;
    wait_until_settled(&server).await;

    assert_eq!(fake.requests().len(), 2, "a dead destination is not retried");
    assert_eq!(messages_of(&server, &failed).await[0]["errorId"], "dead_destination");
    let chat_job = job(&events_of(&server, &failed).await[0], "chat").clone();
    let expected = "The subscriber's getstream channel is gone; removed from their channel credentials".to_owned();
    assert!(details(&chat_job).contains(&expected), "{chat_job}");
    let credentials = credentials_of_ada(&server, "getstream").await;
    assert_eq!(credentials.get("channel"), None, "{credentials}");
}
