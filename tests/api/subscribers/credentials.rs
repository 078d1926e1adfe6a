//! PATCH /v1/subscribers/{subscriberId}/credentials.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{assert_invalid_fields, create_subscriber, insert_integration};
use crate::support::TestServer;

async fn patch_credentials(server: &TestServer, body: Value) -> (u16, Value) {
    server.send_json(Method::PATCH, "/v1/subscribers/user-1/credentials", &body).await
}

#[tokio::test(flavor = "multi_thread")]
async fn device_tokens_replace_and_other_fields_merge_per_integration() {
    let server = TestServer::start().await;
    create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    let fcm = insert_integration(&server, "fcm", "push", "fcm-main", true).await;
    let slack = insert_integration(&server, "slack", "chat", "slack-main", true).await;

    let (status, body) =
        patch_credentials(&server, json!({ "providerId": "fcm", "credentials": { "deviceTokens": ["a", "b", "a"] } }))
            .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["__v"], 1);
    assert_eq!(
        body["channels"],
        json!([{ "providerId": "fcm", "integrationIdentifier": "fcm-main", "_integrationId": fcm.to_string(), "credentials": { "deviceTokens": ["a", "b"] } }])
    );

    let (_, body) = patch_credentials(
        &server,
        json!({ "providerId": "slack", "integrationIdentifier": "slack-main", "credentials": { "webhookUrl": "https://hooks.example/1", "channel": "general" } }),
    )
    .await;
    assert_eq!(body["channels"].as_array().unwrap().len(), 2);
    assert_eq!(body["channels"][1]["_integrationId"], slack.to_string());

    // A second device token list replaces the first; title merges in; webhookUrl of slack is untouched.
    let (_, body) = patch_credentials(
        &server,
        json!({ "providerId": "fcm", "credentials": { "deviceTokens": ["c"], "title": "t" } }),
    )
    .await;
    assert_eq!(body["channels"][0]["credentials"], json!({ "deviceTokens": ["c"], "title": "t" }));
    let (_, body) =
        patch_credentials(&server, json!({ "providerId": "slack", "credentials": { "channel": "random" } })).await;
    assert_eq!(
        body["channels"][1]["credentials"],
        json!({ "webhookUrl": "https://hooks.example/1", "channel": "random", "deviceTokens": [] })
    );
    // An explicitly empty list clears the tokens.
    let (_, body) =
        patch_credentials(&server, json!({ "providerId": "fcm", "credentials": { "deviceTokens": [] } })).await;
    assert_eq!(body["channels"][0]["credentials"], json!({ "deviceTokens": [], "title": "t" }));
    assert_eq!(body["__v"], 5);
    assert_eq!(server.get_json("/v2/subscribers/user-1").await.1["channels"], body["channels"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_integration_must_exist_and_be_active() {
    let server = TestServer::start().await;
    let before = create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    insert_integration(&server, "discord", "chat", "discord-off", false).await;
    insert_integration(&server, "expo", "push", "expo-main", true).await;

    for body in [
        json!({ "providerId": "discord", "credentials": { "webhookUrl": "https://d.example/x" } }),
        json!({ "providerId": "apns", "credentials": { "deviceTokens": ["x"] } }),
        json!({ "providerId": "expo", "integrationIdentifier": "expo-other", "credentials": { "deviceTokens": ["x"] } }),
    ] {
        let (status, answer) = patch_credentials(&server, body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["message"].as_str().unwrap().contains(body["providerId"].as_str().unwrap()), "{answer}");
    }
    assert_eq!(server.get_json("/v2/subscribers/user-1").await.1, before, "nothing changed");
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_providers_and_too_many_tokens_are_422() {
    let server = TestServer::start().await;
    let before = create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    insert_integration(&server, "fcm", "push", "fcm-main", true).await;
    let (status, body) = patch_credentials(&server, json!({ "providerId": "fcm" })).await;
    assert_invalid_fields(status, &body, &["credentials"]);
    let (status, body) = patch_credentials(&server, json!({ "providerId": "pigeon", "credentials": {} })).await;
    assert_invalid_fields(status, &body, &["providerId"]);

    let tokens: Vec<String> = (0..101).map(|index| format!("token-{index}")).collect();
    let (status, body) =
        patch_credentials(&server, json!({ "providerId": "fcm", "credentials": { "deviceTokens": tokens } })).await;
    assert_invalid_fields(status, &body, &["credentials.deviceTokens"]);

    let (status, body) =
        patch_credentials(&server, json!({ "providerId": "fcm", "credentials": { "webhookUrl": "not a url" } })).await;
    assert_invalid_fields(status, &body, &["credentials.webhookUrl"]);
    assert_eq!(server.get_json("/v2/subscribers/user-1").await.1, before, "nothing changed");

    let hundred: Vec<String> = (0..100).map(|index| format!("token-{index}")).collect();
    let (status, _) =
        patch_credentials(&server, json!({ "providerId": "fcm", "credentials": { "deviceTokens": hundred } })).await;
    assert_eq!(status, 200);
}
