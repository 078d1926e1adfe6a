//! Push messages answered per device token, and destinations that are gone removed from the
//! subscriber: APNs and Slack through their local fakes, end to end through triggers.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{
    create_integration, create_workflow, details, events_of, job, messages_of, trigger_processed, wait_until_settled,
};
use crate::fakes::apns::{self, device_token, too_many_requests, BUNDLE_ID, KEY, KEY_ID, TEAM_ID, UNREGISTERED};
use crate::fakes::{slack, FakeProvider};
use crate::support::TestServer;

/// Ada, subscribed to `provider_id` with `credentials`, and a workflow of one `step_type` step.
async fn subscribed(server: &TestServer, provider_id: &str, credentials: Value, step: Value) {
    create_workflow(server, "notify", json!([step])).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    let update = json!({"providerId": provider_id, "credentials": credentials});
    let (status, body) = server.send_json(Method::PATCH, "/v1/subscribers/ada/credentials", &update).await;
    assert_eq!(status, 200, "{body}");
}

async fn apns_integration(server: &TestServer, fake: &FakeProvider) {
    create_integration(
        server,
        json!({"providerId": "apns", "channel": "push", "identifier": "apns", "active": true,
               "credentials": {"secretKey": KEY.p8, "apiKey": KEY_ID, "projectName": TEAM_ID,
                               "applicationId": BUNDLE_ID, "secure": true, "baseUrl": fake.base_url()}}),
    )
    .await;
}

fn push_step() -> Value {
    json!({"name": "Push", "type": "push", "controlValues": {"subject": "Order {{ payload.orderId }}", "body": "Shipped"}})
}

/// Ada's credentials for `provider_id`, as the subscribers API shows them.
async fn credentials_of_ada(server: &TestServer, provider_id: &str) -> Value {
    let (status, subscriber) = server.get_json("/v2/subscribers/ada").await;
    assert_eq!(status, 200, "{subscriber}");
    let channels = subscriber["data"]["channels"].as_array().or_else(|| subscriber["channels"].as_array()).unwrap();
    let entry = channels.iter().find(|entry| entry["providerId"] == provider_id).expect("Ada's entry");
    entry["credentials"].clone()
}

/// The device tokens the fake was asked to reach, in arrival order.
fn requested_tokens(fake: &FakeProvider) -> Vec<String> {
    fake.requests().iter().map(|request| request.path.trim_start_matches("/3/device/").to_string()).collect()
}

async fn push_job(server: &TestServer, transaction_id: &str) -> Value {
    job(&events_of(server, transaction_id).await[0], "push").clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn three_tokens_with_one_gone_send_two_and_remove_the_gone_one_from_the_subscriber() {
    let server = TestServer::start().await;
    let fake = apns::start().await;
    apns_integration(&server, &fake).await;
    let (first, second) = (device_token(), device_token());
    subscribed(&server, "apns", json!({"deviceTokens": [first, UNREGISTERED, second]}), push_step()).await;

    let transaction_id =
        trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "A-1"}})).await;
    wait_until_settled(&server).await;

    let mut asked = requested_tokens(&fake);
    asked.sort();
    let mut expected = vec![first.clone(), second.clone(), UNREGISTERED.to_string()];
    expected.sort();
    assert_eq!(asked, expected, "one request per token");
    let messages = messages_of(&server, &transaction_id).await;
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["status"], "sent", "{}", messages[0]);
    let push = push_job(&server, &transaction_id).await;
    assert_eq!(push["status"], "completed", "{push}");
    let details = details(&push);
    assert_eq!(details.iter().filter(|detail| detail.starts_with("Sent to device")).count(), 2, "{details:?}");
    let gone: Vec<&String> = details.iter().filter(|detail| detail.contains("is gone")).collect();
    assert_eq!(gone.len(), 1, "{details:?}");
    assert!(
        gone[0].contains("Unregistered") && gone[0].contains("removed from the subscriber's apns credentials"),
        "{gone:?}"
    );
    assert!(details.iter().any(|detail| detail == "Message sent to 2 of 3 device(s)"), "{details:?}");

    assert_eq!(credentials_of_ada(&server, "apns").await["deviceTokens"], json!([first, second]));

    trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "A-2"}})).await;
    wait_until_settled(&server).await;
    let later = &requested_tokens(&fake)[3..];
    assert_eq!(later.len(), 2, "{later:?}");
    assert!(!later.contains(&UNREGISTERED.to_string()), "the gone token is not tried again: {later:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_refused_for_now_is_retried_alone_and_no_device_gets_the_message_twice() {
    let server = TestServer::start().await;
    let fake = apns::start().await;
    fake.then(too_many_requests());
    apns_integration(&server, &fake).await;
    let tokens = [device_token(), device_token(), device_token()];
    subscribed(&server, "apns", json!({"deviceTokens": tokens}), push_step()).await;

    let transaction_id =
        trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "A-3"}})).await;
    wait_until_settled(&server).await;

    let asked = requested_tokens(&fake);
    assert_eq!(asked.len(), 4, "three first tries and one retry: {asked:?}");
    let retried = &asked[3];
    assert_eq!(asked.iter().filter(|token| *token == retried).count(), 2, "the retry is the refused token: {asked:?}");
    let push = push_job(&server, &transaction_id).await;
    assert_eq!(push["status"], "completed", "{push}");
    let details = details(&push);
    assert!(details.iter().any(|detail| detail.starts_with("2 device(s) reached; retrying the others")), "{details:?}");
    assert!(details.iter().any(|detail| detail == "Message sent to 3 of 3 device(s)"), "{details:?}");
    assert_eq!(messages_of(&server, &transaction_id).await[0]["status"], "sent");
    assert_eq!(credentials_of_ada(&server, "apns").await["deviceTokens"], json!(tokens), "nothing removed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscribers_slack_webhook_that_is_gone_is_removed_and_the_next_message_is_not_sent() {
    let server = TestServer::start().await;
    let fake = slack::start().await;
    create_integration(
        &server,
        json!({"providerId": "slack", "channel": "chat", "identifier": "slack", "active": true}),
    )
    .await;
    let gone_hook = format!("{}/services/T0001/B0DELETED/Xq7HOOKSECRETxxxxxxxxxxx", fake.base_url());
    let chat =
        json!({"name": "Chat", "type": "chat", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
    subscribed(&server, "slack", json!({"webhookUrl": gone_hook}), chat).await;

    let transaction_id =
        trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "C-1"}})).await;
    wait_until_settled(&server).await;

    assert_eq!(fake.requests().len(), 1, "a dead destination is not retried");
    let chat_job = job(&events_of(&server, &transaction_id).await[0], "chat").clone();
    assert_eq!(chat_job["status"], "failed", "{chat_job}");
    let details = details(&chat_job);
    assert!(
        details.iter().any(
            |detail| detail == "The subscriber's slack webhook URL is gone; removed from their channel credentials"
        ),
        "{details:?}"
    );
    let message = &messages_of(&server, &transaction_id).await[0];
    assert_eq!(message["errorId"], "dead_destination", "{message}");
    assert_eq!(credentials_of_ada(&server, "slack").await.get("webhookUrl"), None);

    let next = trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "C-2"}})).await;
    wait_until_settled(&server).await;
    assert_eq!(fake.requests().len(), 1, "nothing more was posted");
    assert_eq!(messages_of(&server, &next).await[0]["errorId"], "no_chat_webhook_url");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slack_bot_posts_to_the_subscribers_channel_and_an_archived_channel_is_removed() {
    let server = TestServer::start().await;
    let fake = slack::start().await;
    create_integration(
        &server,
        json!({"providerId": "slack", "channel": "chat", "identifier": "slack-bot", "active": true,
               "credentials": {"apiKey": slack::BOT_TOKEN, "baseUrl": fake.base_url()}}),
    )
    .await;
    let chat =
        json!({"name": "Chat", "type": "chat", "controlValues": {"body": "Order {{ payload.orderId }} shipped"}});
    subscribed(&server, "slack", json!({"channel": slack::ARCHIVED_CHANNEL}), chat).await;

    let transaction_id =
        trigger_processed(&server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "B-1"}})).await;
    wait_until_settled(&server).await;

    let request = fake.only_request();
    assert_eq!(request.path, "/api/chat.postMessage");
    assert_eq!(request.json()["channel"], slack::ARCHIVED_CHANNEL);
    let chat_job = job(&events_of(&server, &transaction_id).await[0], "chat").clone();
    let details = details(&chat_job);
    assert!(
        details
            .iter()
            .any(|detail| detail == "The subscriber's slack channel is gone; removed from their channel credentials"),
        "{details:?}"
    );
    assert_eq!(credentials_of_ada(&server, "slack").await.get("channel"), None);
}
