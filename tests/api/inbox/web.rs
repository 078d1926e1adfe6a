//! The `<herald-inbox>` web component and its demo page, served open like `/docs`. The component's
//! behaviour in a browser is tested by `scripts/test-web-inbox.sh`.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::Inbox;
use crate::support::{http_client, TestServer};

#[tokio::test(flavor = "multi_thread")]
async fn the_component_is_served_as_a_cacheable_script_without_a_key() {
    let server = TestServer::start().await;
    let response = http_client().get(server.url("/inbox/herald-inbox.js")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let header = |name: &str| response.headers()[name].to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "text/javascript; charset=utf-8");
    assert_eq!(header("cache-control"), "public, max-age=300");
    let script = response.text().await.unwrap();
    assert!(script.contains("customElements.define(\"herald-inbox\""), "it defines the element");
    assert!(!script.contains("import "), "it has no dependencies");
}

/// A server on a shared database (the tests' `DATABASE_URL` or private schema) is not the
/// zero-configuration run: its demo page names no environment and asks for one in its query.
#[tokio::test(flavor = "multi_thread")]
async fn the_demo_page_loads_the_component_and_names_no_environment_outside_the_zero_configuration_run() {
    let server = TestServer::start().await;
    let response = http_client().get(server.url("/inbox/demo")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let page = response.text().await.unwrap();
    assert!(page.contains(r#"<script type="module" src="/inbox/herald-inbox.js"></script>"#));
    assert!(page.contains(r#"<body data-default-application="">"#), "no default environment");
    assert!(!page.contains("{{"), "no unfilled placeholder");
}

/// The component runs on a product's own pages: the subscriber-facing routes answer cross-origin
/// calls (a preflight, then the call with its headers readable), the server API does not.
#[tokio::test(flavor = "multi_thread")]
async fn inbox_routes_answer_other_origins_and_the_server_api_does_not() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    // Not the tests' OpenAPI-checking client: a preflight is no operation of the document.
    let browser = reqwest::Client::new();
    let origin = "https://app.example.com";
    let preflight = |path: &str| {
        browser
            .request(Method::OPTIONS, inbox.server.url(path))
            .header("origin", origin)
            .header("access-control-request-method", "PATCH")
            .header("access-control-request-headers", "authorization,content-type,idempotency-key")
    };
    let allowed = preflight("/v1/inbox/notifications/read").send().await.unwrap();
    assert_eq!(allowed.status(), StatusCode::OK);
    let header = |response: &reqwest::Response, name: &str| {
        response.headers().get(name).map(|value| value.to_str().unwrap().to_lowercase())
    };
    assert_eq!(header(&allowed, "access-control-allow-origin").as_deref(), Some("*"));
    assert!(header(&allowed, "access-control-allow-methods").unwrap().contains("patch"));
    let allowed_headers = header(&allowed, "access-control-allow-headers").unwrap();
    assert!(["authorization", "content-type", "idempotency-key"].iter().all(|name| allowed_headers.contains(name)));

    let counted = browser
        .post(inbox.server.url("/v1/inbox/notifications/read"))
        .header("origin", origin)
        .header("authorization", format!("Bearer {token}"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert!(counted.status().is_success(), "{}", counted.status());
    assert_eq!(header(&counted, "access-control-allow-origin").as_deref(), Some("*"));
    assert!(header(&counted, "access-control-expose-headers").unwrap().contains("herald-inbox-unread-count"));
    let refused = browser
        .get(inbox.server.url("/v1/inbox/notifications"))
        .header("origin", origin)
        .header("authorization", "Bearer forged")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(header(&refused, "access-control-allow-origin").as_deref(), Some("*"), "errors are readable too");

    let server_api = preflight("/v1/subscribers").send().await.unwrap();
    assert_eq!(header(&server_api, "access-control-allow-origin"), None, "the secret key's API stays same-origin");
}
