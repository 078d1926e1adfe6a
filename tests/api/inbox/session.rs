//! Opening a session: the application identifier, the HMAC check, unknown subscribers.

use reqwest::Method;
use serde_json::json;

use super::{subscriber_hash, Inbox};
use crate::support::http_client;

#[tokio::test(flavor = "multi_thread")]
async fn the_environment_shows_its_application_identifier_and_a_session_opens_with_it() {
    let inbox = Inbox::start(json!({})).await;
    assert_eq!(inbox.application_identifier.len(), 32);
    inbox.notify(&inbox.ada, super::minutes_ago(2)).await;
    inbox.notify(&inbox.ada, super::minutes_ago(1)).await;

    let (status, body) = inbox.open_session(&json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    let session = &body["data"];
    assert_eq!(session["totalUnreadCount"], 2);
    assert_eq!(session["unreadCount"], json!({"total": 2}));
    assert_eq!(session["applicationIdentifier"], json!(inbox.application_identifier));
    assert!((3590..=3600).contains(&session["expiresIn"].as_i64().unwrap()), "{session}");
    // The token opens ada's inbox, and only with the Bearer scheme.
    let token = session["token"].as_str().unwrap();
    let (status, page) = inbox.call(token, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!((status, page["data"].as_array().unwrap().len()), (200, 2));
    let response = http_client()
        .get(inbox.server.url("/v1/inbox/notifications"))
        .header("authorization", format!("ApiKey {}", inbox.env.api_key))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_object_and_string_subscriber_forms_are_accepted() {
    let inbox = Inbox::start(json!({})).await;
    for form in [json!({"subscriber": "bob"}), json!({"subscriber": {"subscriberId": "bob"}})] {
        let (status, body) = inbox.open_session(&form).await;
        assert_eq!(status, 201, "{form}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_application_identifier_or_subscriber_is_refused() {
    let inbox = Inbox::start(json!({})).await;
    let response = http_client()
        .post(inbox.server.url("/v1/inbox/session"))
        .json(&json!({"applicationIdentifier": "nope", "subscriberId": "ada"}))
        .send()
        .await
        .unwrap();
    let (status, body) = crate::support::read_json(response).await;
    assert_eq!((status, body["message"].as_str().unwrap()), (400, "Please provide a valid application identifier"));

    let (status, body) = inbox.open_session(&json!({"subscriberId": "carol"})).await;
    assert_eq!((status, body["message"].as_str().unwrap()), (404, "Subscriber carol not found"));
    let (status, _) = inbox.server.get_json("/v2/subscribers/carol").await;
    assert_eq!(status, 404, "the session created nothing");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_integration_may_let_a_session_create_its_subscriber() {
    let inbox = Inbox::start(json!({"inboxCreatesSubscribers": true})).await;
    let form = json!({"subscriber": {"subscriberId": "carol", "firstName": "Carol", "email": "carol@example.com"}});
    let (status, body) = inbox.open_session(&form).await;
    assert_eq!((status, &body["data"]["totalUnreadCount"]), (201, &json!(0)), "{body}");
    let (status, carol) = inbox.server.get_json("/v2/subscribers/carol").await;
    assert_eq!((status, &carol["firstName"], &carol["email"]), (200, &json!("Carol"), &json!("carol@example.com")));
}

#[tokio::test(flavor = "multi_thread")]
async fn with_hmac_on_only_the_right_hash_opens_a_session() {
    let inbox = Inbox::start(json!({"hmac": true})).await;
    let (status, body) = inbox.open_session(&json!({"subscriberId": "ada"})).await;
    assert_eq!((status, body["message"].as_str().unwrap()), (401, "Please provide a valid HMAC hash"));
    let wrong = subscriber_hash(&inbox.env.api_key, "bob");
    let (status, _) = inbox.open_session(&json!({"subscriberId": "ada", "subscriberHash": wrong})).await;
    assert_eq!(status, 401);
    let right = subscriber_hash(&inbox.env.api_key, "ada");
    let (status, body) = inbox.open_session(&json!({"subscriberId": "ada", "subscriberHash": right})).await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_hmac_on_keys_from_before_encryption_cannot_check_a_hash() {
    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;
    use herald::db::schema::api_keys;

    let inbox = Inbox::start(json!({"hmac": true})).await;
    // What a key issued before the migration looks like: its hash only.
    let mut conn = inbox.server.pool.get().await.unwrap();
    diesel::update(api_keys::table).set(api_keys::key_encrypted.eq(None::<Vec<u8>>)).execute(&mut conn).await.unwrap();
    let hash = subscriber_hash(&inbox.env.api_key, "ada");
    let (status, body) = inbox.open_session(&json!({"subscriberId": "ada", "subscriberHash": hash})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("issue a new API key"), "{body}");
}
