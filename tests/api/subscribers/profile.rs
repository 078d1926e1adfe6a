//! Creating, reading, updating and deleting subscribers over REST.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{assert_invalid_fields, create_subscriber};
use crate::support::{http_client, TestServer};

fn assert_timestamp(value: &Value) {
    let text = value.as_str().unwrap_or_else(|| panic!("not a timestamp: {value}"));
    assert!(text.ends_with('Z') && text.len() == 24, "{text}");
}

/// Every key the spec lists for a Subscriber, with its JSON type.
fn assert_subscriber_shape(body: &Value) {
    let object = body.as_object().expect("a subscriber object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "__v",
            "_environmentId",
            "_id",
            "_organizationId",
            "avatar",
            "channels",
            "createdAt",
            "data",
            "deleted",
            "email",
            "firstName",
            "isOnline",
            "lastName",
            "lastOnlineAt",
            "locale",
            "phone",
            "subscriberId",
            "timezone",
            "topics",
            "updatedAt"
        ],
        "{body}"
    );
    assert!(body["_id"].is_string() && body["subscriberId"].is_string());
    assert!(body["__v"].is_number() && body["deleted"].is_boolean() && body["channels"].is_array());
    assert_timestamp(&body["createdAt"]);
    assert_timestamp(&body["updatedAt"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn create_then_get_returns_every_field_with_nulls_for_unset_ones() {
    let server = TestServer::start().await;
    let created = create_subscriber(
        &server,
        json!({ "subscriberId": "user-1", "firstName": "Ada", "email": "ada@example.com", "timezone": "Europe/London", "data": { "plan": "pro" } }),
    )
    .await;
    assert_subscriber_shape(&created);
    assert_eq!(created["subscriberId"], "user-1");
    assert_eq!(created["firstName"], "Ada");
    assert_eq!(created["lastName"], Value::Null);
    assert_eq!(created["phone"], Value::Null);
    assert_eq!(created["isOnline"], Value::Null);
    assert_eq!(created["data"], json!({ "plan": "pro" }));
    assert_eq!(created["__v"], 0);
    assert_eq!(created["deleted"], false);
    assert_eq!(created["_environmentId"], server.environment_id.to_string());
    assert_eq!(created["_organizationId"], server.organization_id.to_string());

    let (status, fetched) = server.get_json("/v2/subscribers/user-1").await;
    assert_eq!(status, 200);
    assert_eq!(fetched, created);
}

#[tokio::test(flavor = "multi_thread")]
async fn create_refuses_a_taken_subscriber_id_and_invalid_fields() {
    let server = TestServer::start().await;
    create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({ "subscriberId": "user-1" })).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["message"].as_str().unwrap().contains("user-1"));

    let (status, body) = server
        .send_json(
            Method::POST,
            "/v2/subscribers",
            &json!({ "subscriberId": "", "email": "nope", "timezone": "Mars/Base", "locale": "klingon!", "avatar": "not a url" }),
        )
        .await;
    assert_invalid_fields(status, &body, &["subscriberId", "email", "timezone", "locale", "avatar"]);
    assert_eq!(body["errors"]["timezone"]["value"], "Mars/Base");
}

#[tokio::test(flavor = "multi_thread")]
async fn patch_sets_clears_and_leaves_fields_and_moves_the_version() {
    let server = TestServer::start().await;
    let created = create_subscriber(
        &server,
        json!({ "subscriberId": "user-1", "firstName": "Ada", "lastName": "Lovelace", "phone": "+441234", "data": { "a": 1, "b": 2 } }),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let (status, updated) = server
        .send_json(
            Method::PATCH,
            "/v2/subscribers/user-1",
            &json!({ "firstName": "Augusta", "lastName": null, "data": { "c": 3 }, "locale": "en-GB" }),
        )
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_subscriber_shape(&updated);
    assert_eq!(updated["firstName"], "Augusta");
    assert_eq!(updated["lastName"], Value::Null, "null clears");
    assert_eq!(updated["phone"], "+441234", "absent stays");
    assert_eq!(updated["data"], json!({ "c": 3 }), "data is replaced whole");
    assert_eq!(updated["locale"], "en-GB");
    assert_eq!(updated["__v"], 1);
    assert_eq!(updated["createdAt"], created["createdAt"]);
    assert!(updated["updatedAt"].as_str() > created["updatedAt"].as_str());

    let (_, cleared) = server.send_json(Method::PATCH, "/v2/subscribers/user-1", &json!({ "data": null })).await;
    assert_eq!(cleared["data"], Value::Null);
    assert_eq!(cleared["__v"], 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_patch_changes_nothing() {
    let server = TestServer::start().await;
    let created = create_subscriber(&server, json!({ "subscriberId": "user-1", "firstName": "Ada" })).await;
    let (status, body) = server
        .send_json(
            Method::PATCH,
            "/v2/subscribers/user-1",
            &json!({ "firstName": "Eve", "email": "bad", "timezone": "Nowhere" }),
        )
        .await;
    assert_invalid_fields(status, &body, &["email", "timezone"]);
    assert_eq!(server.get_json("/v2/subscribers/user-1").await.1, created);

    let response = server
        .request(Method::PATCH, "/v2/subscribers/user-1")
        .header("content-type", "application/json")
        .body(r#"{"firstName": "#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let (status, body) = server.send_json(Method::PATCH, "/v2/subscribers/user-1", &json!({ "firstName": 7 })).await;
    assert_eq!(status, 400);
    assert!(body["message"].as_str().unwrap().contains("firstName"), "{body}");
    assert_eq!(server.get_json("/v2/subscribers/user-1").await.1, created);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_subscribers_are_404_everywhere() {
    let server = TestServer::start().await;
    for (method, path, body) in [
        (Method::GET, "/v2/subscribers/ghost", json!(null)),
        (Method::PATCH, "/v2/subscribers/ghost", json!({ "firstName": "x" })),
        (Method::DELETE, "/v2/subscribers/ghost", json!(null)),
        (Method::GET, "/v2/subscribers/ghost/preferences", json!(null)),
        (Method::PATCH, "/v2/subscribers/ghost/preferences", json!({ "channels": { "email": false } })),
        (Method::PATCH, "/v1/subscribers/ghost/credentials", json!({ "providerId": "slack", "credentials": {} })),
    ] {
        let (status, body) = server.send_json(method.clone(), path, &body).await;
        assert_eq!(status, 404, "{method} {path}: {body}");
        assert!(body["message"].as_str().unwrap().contains("ghost"), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn delete_hides_the_subscriber_and_frees_its_id() {
    let server = TestServer::start().await;
    let first = create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    let (status, body) = server.send_json(Method::DELETE, "/v2/subscribers/user-1", &json!(null)).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({ "acknowledged": true, "status": "deleted" }));
    assert_eq!(server.get_json("/v2/subscribers/user-1").await.0, 404);
    assert_eq!(server.get_json("/v2/subscribers").await.1["data"], json!([]));
    assert_eq!(server.send_json(Method::DELETE, "/v2/subscribers/user-1", &json!(null)).await.0, 404);

    let again = create_subscriber(&server, json!({ "subscriberId": "user-1" })).await;
    assert_ne!(again["_id"], first["_id"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn another_environment_never_sees_or_changes_these_subscribers() {
    let server = TestServer::start().await;
    create_subscriber(&server, json!({ "subscriberId": "user-1", "firstName": "Ada" })).await;
    let (_, other_key) = server.other_environment("production").await;
    let other = |method: Method, path: &str| {
        http_client().request(method, server.url(path)).header("authorization", format!("ApiKey {other_key}"))
    };
    assert_eq!(other(Method::GET, "/v2/subscribers/user-1").send().await.unwrap().status(), 404);
    let patched =
        other(Method::PATCH, "/v2/subscribers/user-1").json(&json!({ "firstName": "Eve" })).send().await.unwrap();
    assert_eq!(patched.status(), 404);
    assert_eq!(other(Method::DELETE, "/v2/subscribers/user-1").send().await.unwrap().status(), 404);
    let listed: Value = other(Method::GET, "/v2/subscribers").send().await.unwrap().json().await.unwrap();
    assert_eq!(listed["data"], json!([]));
    assert_eq!(listed["totalCount"], 0);
    // The same subscriberId is free in the other environment.
    let created =
        other(Method::POST, "/v2/subscribers").json(&json!({ "subscriberId": "user-1" })).send().await.unwrap();
    assert_eq!(created.status(), 201);

    assert_eq!(server.get_json("/v2/subscribers/user-1").await.1["firstName"], "Ada");
}

#[tokio::test(flavor = "multi_thread")]
async fn text_postgres_cannot_store_is_a_client_error_not_a_500() {
    let server = TestServer::start().await;
    let long_id = "x".repeat(3000);
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({ "subscriberId": long_id })).await;
    assert_invalid_fields(status, &body, &["subscriberId"]);
    // Identifiers refuse every control character before the database sees them.
    let (status, body) =
        server.send_json(Method::POST, "/v2/subscribers", &json!({ "subscriberId": "nul\u{0}id" })).await;
    assert_invalid_fields(status, &body, &["subscriberId"]);
    for body in [
        json!({ "subscriberId": "ok", "firstName": "a\u{0}b" }),
        json!({ "subscriberId": "ok", "data": { "k": "\u{0}" } }),
    ] {
        let (status, answer) = server.send_json(Method::POST, "/v2/subscribers", &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["message"].as_str().unwrap().contains("NUL"), "{answer}");
    }
    assert_eq!(server.get_json("/v2/subscribers?email=%00").await.0, 400);
    assert_eq!(server.get_json("/v2/subscribers").await.1["totalCount"], 0, "nothing was written");
}
