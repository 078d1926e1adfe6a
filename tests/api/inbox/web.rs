//! The `<herald-inbox>` web component and its demo page, served open like `/docs`. The component's
//! behaviour in a browser is tested by `scripts/test-web-inbox.sh`.

use reqwest::StatusCode;

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
