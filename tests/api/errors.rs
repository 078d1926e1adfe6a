//! The contract's error body for every failure class: malformed JSON, wrong types, unknown routes,
//! wrong methods, oversized bodies and handler panics.

use axum::routing::{get, post};
use axum::Router;
use herald::proto::herald::v1 as pb;
use herald::rest::JsonBody;
use serde_json::{json, Value};

use crate::support::{http_client, TestServer};

/// A route that parses a proto message from JSON exactly as Herald's REST routes do, and echoes it.
fn echo_routes() -> Router {
    Router::new()
        .route(
            "/test/echo",
            post(|JsonBody(environment): JsonBody<pb::Environment>| async move { axum::Json(environment) }),
        )
        .route("/test/panic", get(panicking_handler))
}

async fn panicking_handler() -> &'static str {
    panic!("deliberate test panic")
}

fn assert_error_body(body: &Value, status: u16, error: &str, path: &str) {
    assert_eq!(body["statusCode"], status, "{body}");
    assert_eq!(body["error"], error, "{body}");
    assert_eq!(body["path"], path, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    let timestamp = body["timestamp"].as_str().expect("timestamp");
    assert!(timestamp.ends_with('Z') && chrono::DateTime::parse_from_rfc3339(timestamp).is_ok(), "{timestamp}");
}

async fn post_echo(server: &TestServer, body: impl Into<reqwest::Body>) -> (u16, Value) {
    let response = http_client()
        .post(server.url("/test/echo"))
        .header("authorization", server.authorization())
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_well_formed_body_reaches_the_handler() {
    let server = TestServer::start_with(echo_routes()).await;
    let (status, body) = post_echo(&server, r#"{"_id": "e1", "name": "staging", "unknownField": 1}"#).await;
    assert_eq!(status, 200);
    assert_eq!(body["_id"], "e1");
    assert_eq!(body["name"], "staging");
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_json_is_a_400() {
    let server = TestServer::start_with(echo_routes()).await;
    let (status, body) = post_echo(&server, r#"{"name": "staging""#).await;
    assert_eq!(status, 400);
    assert_error_body(&body, 400, "Bad Request", "/test/echo");
    assert!(body["message"].as_str().unwrap().starts_with("Malformed JSON"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_type_is_a_400_naming_the_field() {
    let server = TestServer::start_with(echo_routes()).await;
    let (status, body) = post_echo(&server, r#"{"name": 5}"#).await;
    assert_eq!(status, 400);
    assert_error_body(&body, 400, "Bad Request", "/test/echo");
    assert!(body["message"].as_str().unwrap().contains("'name'"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_route_is_a_404() {
    let server = TestServer::start().await;
    let response = server.get("/v1/no-such-thing").send().await.unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_error_body(&body, 404, "Not Found", "/v1/no-such-thing");
    assert_eq!(body["message"], "Cannot GET /v1/no-such-thing");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_method_is_a_405() {
    let server = TestServer::start().await;
    let response = http_client()
        .delete(server.url("/v1/environments/me"))
        .header("authorization", server.authorization())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    assert!(response.headers()["allow"].to_str().unwrap().contains("GET"));
    let body: Value = response.json().await.unwrap();
    assert_error_body(&body, 405, "Method Not Allowed", "/v1/environments/me");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_over_512_kib_is_a_413() {
    let server = TestServer::start_with(echo_routes()).await;
    let just_under = json!({ "name": "x".repeat(512 * 1024 - 20) }).to_string();
    assert!(just_under.len() <= 512 * 1024);
    assert_eq!(post_echo(&server, just_under).await.0, 200);

    let over = json!({ "name": "x".repeat(512 * 1024) }).to_string();
    let (status, body) = post_echo(&server, over).await;
    assert_eq!(status, 413);
    assert_error_body(&body, 413, "Payload Too Large", "/test/echo");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_panicking_handler_is_a_500_with_an_error_id_and_the_server_goes_on() {
    let server = TestServer::start_with(echo_routes()).await;
    let response = server.get("/test/panic").send().await.unwrap();
    assert_eq!(response.status(), 500);
    let body: Value = response.json().await.unwrap();
    assert_error_body(&body, 500, "Internal Server Error", "/test/panic");
    assert_eq!(body["message"], "Internal server error");
    assert!(body["errorId"].as_str().is_some_and(|id| id.len() == 32), "{body}");
    assert!(!body.to_string().contains("deliberate"), "the cause stays in the log: {body}");

    assert_eq!(server.get("/v1/environments/me").send().await.unwrap().status(), 200);
}

/// A JSON body under another content type is refused before anything runs: nothing is created.
#[tokio::test(flavor = "multi_thread")]
async fn a_body_that_is_not_declared_json_is_a_415_and_creates_nothing() {
    let server = TestServer::start().await;
    let subscriber = r#"{"subscriberId": "ada"}"#;
    for content_type in [Some("text/plain"), Some("application/x-www-form-urlencoded"), Some("text/json"), None] {
        let mut request = server.request(reqwest::Method::POST, "/v2/subscribers").body(subscriber);
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        assert_eq!(status, 415, "{content_type:?}: {body}");
        assert_error_body(&body, 415, "Unsupported Media Type", "/v2/subscribers");
        assert!(body["message"].as_str().unwrap().contains("application/json"), "{body}");
    }
    let (status, _) = server.get_json("/v2/subscribers/ada").await;
    assert_eq!(status, 404, "nothing was created");

    for (index, content_type) in ["application/json; charset=utf-8", "application/merge-patch+json"].iter().enumerate()
    {
        let response = server
            .request(reqwest::Method::POST, "/v2/subscribers")
            .header("content-type", *content_type)
            .body(format!(r#"{{"subscriberId": "ada-{index}"}}"#))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{content_type}: {}", response.status());
    }
}
