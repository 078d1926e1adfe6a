//! The OpenAPI document: valid OpenAPI 3.1, committed as served, describing exactly the routes the
//! server serves; and the check every other test's answers go through fails when an answer differs.

use std::collections::BTreeSet;

use herald::domain::inbox::{InboxSubscriber, SessionTokens};
use herald::domain::tenancy::Tenant;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::support::{http_client, Contract, TestServer};

const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json");
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// Every `$ref` under `value`.
fn references(value: &Value, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(target)) = object.get("$ref") {
                found.insert(target.clone());
            }
            object.values().for_each(|child| references(child, found));
        }
        Value::Array(items) => items.iter().for_each(|child| references(child, found)),
        _ => {}
    }
}

#[test]
fn the_document_is_valid_openapi_3_1() {
    let document = Contract::get().document();
    assert_eq!(document["openapi"], "3.1.0");
    assert!(document["info"]["title"].is_string() && document["info"]["version"].is_string());
    assert_eq!(document["components"]["securitySchemes"]["ApiKey"]["name"], "Authorization");

    let schemas = document["components"]["schemas"].as_object().expect("component schemas");
    for (name, schema) in schemas {
        assert!(jsonschema::meta::validate(schema).is_ok(), "{name} is not a JSON Schema 2020-12 schema");
    }
    let mut targets = BTreeSet::new();
    references(document, &mut targets);
    for target in targets {
        let name =
            target.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("a local reference: {target}"));
        assert!(schemas.contains_key(name), "{target} resolves to no component");
    }

    let mut operation_ids = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        assert!(path.starts_with('/'), "{path}");
        let in_path: BTreeSet<&str> =
            path.split('{').skip(1).filter_map(|part| part.split_once('}').map(|(name, _)| name)).collect();
        for (method, operation) in item.as_object().expect("a path item") {
            assert!(METHODS.contains(&method.as_str()), "{method} {path}");
            let id = operation["operationId"].as_str().expect("an operationId");
            assert!(operation_ids.insert(id.to_string()), "operationId {id} is not unique");
            let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
            let declared: BTreeSet<&str> = parameters
                .iter()
                .filter(|parameter| parameter["in"] == "path")
                .map(|parameter| {
                    assert_eq!(parameter["required"], true, "{id}: path parameters are required");
                    parameter["name"].as_str().expect("a name")
                })
                .collect();
            assert_eq!(declared, in_path, "{id}: the path's parameters and the declared ones differ");
            for parameter in &parameters {
                assert!(["path", "query", "header"].contains(&parameter["in"].as_str().unwrap_or("")), "{id}");
                assert!(jsonschema::meta::validate(&parameter["schema"]).is_ok(), "{id}: {parameter}");
            }
            let responses = operation["responses"].as_object().expect("responses");
            assert!(!responses.is_empty(), "{id} has no responses");
            for (status, response) in responses {
                assert!(status.parse::<u16>().is_ok_and(|code| (100..600).contains(&code)), "{id}: {status}");
                assert!(response["description"].is_string(), "{id} {status}: a description");
            }
        }
    }
}

/// `docs/openapi.json` is what the server serves (`HERALD_UPDATE_OPENAPI=1` rewrites it).
#[tokio::test(flavor = "multi_thread")]
async fn the_committed_document_is_the_served_one() {
    let server = TestServer::start().await;
    let response = http_client().get(server.url("/openapi.json")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let served: Value = response.json().await.unwrap();
    assert_eq!(&served, Contract::get().document());
    let written = serde_json::to_string_pretty(&served).unwrap() + "\n";
    if std::env::var_os("HERALD_UPDATE_OPENAPI").is_some() {
        std::fs::write(COMMITTED, &written).unwrap();
    }
    let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
    assert!(
        committed == written,
        "docs/openapi.json is stale: run HERALD_UPDATE_OPENAPI=1 cargo test --test api openapi"
    );
}

/// A concrete path for a document path: each parameter becomes a value of its schema.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|segment| if segment.starts_with('{') { "unknown-1" } else { segment })
        .collect::<Vec<_>>()
        .join("/")
}

/// Every documented method of every documented path is served (never the router's 404 or 405), and
/// every other method on those paths is a 405; the test support checks each answer's status and body.
#[tokio::test(flavor = "multi_thread")]
async fn the_document_describes_exactly_the_routes_served() {
    let server = TestServer::start().await;
    let document = Contract::get().document();
    // The inbox routes take a session token, and refuse an API key before routing by method.
    let subscriber = InboxSubscriber {
        tenant: Tenant { organization_id: server.organization_id, environment_id: server.environment_id },
        id: Uuid::now_v7(),
        subscriber_id: "nobody".into(),
    };
    let (token, _) = SessionTokens::new(&server.cipher).issue(&subscriber, chrono::Utc::now());
    for (path, item) in document["paths"].as_object().unwrap() {
        let url = concrete(path);
        let inbox = path.starts_with("/v1/inbox/") && path != "/v1/inbox/session";
        for method in METHODS {
            let method_name = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            if path == "/v1/inbox/events" && method == "get" {
                // A stream never ends, so the checking client (which reads whole bodies) cannot read
                // it: its status is enough here (tests/api/inbox/events.rs reads it).
                let response = reqwest::Client::new().get(server.url(&url)).bearer_auth(&token).send().await.unwrap();
                assert_eq!(response.status(), StatusCode::OK);
                continue;
            }
            let request = match inbox {
                true => http_client()
                    .request(method_name, server.url(&url))
                    .header("authorization", format!("Bearer {token}")),
                false => server.request(method_name, &url),
            };
            let request = if method == "get" || method == "delete" { request } else { request.json(&json!({})) };
            let response = request.send().await.unwrap();
            let status = response.status();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            let unrouted = status == StatusCode::METHOD_NOT_ALLOWED
                || (status == StatusCode::NOT_FOUND
                    && body["message"] == format!("Cannot {} {url}", method.to_uppercase()));
            assert_eq!(unrouted, item.get(method).is_none(), "{method} {path} answered {status}: {body}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_docs_page_is_served_offline() {
    let server = TestServer::start().await;
    let response = http_client().get(server.url("/docs")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let page = response.text().await.unwrap();
    assert!(page.contains("fetch(\"/openapi.json\")"), "the page renders the served document");
    assert!(
        !page.contains("http://") && !page.contains("https://") && !page.contains("src=\"//"),
        "nothing is fetched elsewhere"
    );
}

/// The check the test support runs on every answer refuses what the document does not say.
#[test]
fn the_answer_check_refuses_undocumented_statuses_routes_and_shapes() {
    let contract = Contract::get();
    let json = Some("application/json");
    let check = |method: Method, path: &str, status: u16, body: Value| {
        let body = serde_json::to_vec(&body).unwrap();
        let status = StatusCode::from_u16(status).unwrap();
        std::panic::catch_unwind(|| contract.check(&method, path, status, json, &body)).is_ok()
    };
    let environment = json!({
        "_id": "e", "name": "development", "_organizationId": "o", "createdAt": "t", "updatedAt": "t",
        "applicationIdentifier": "a",
    });
    assert!(check(Method::GET, "/v1/environments/me", 200, environment.clone()));
    let mut extra = environment.clone();
    extra["secret"] = json!("an undocumented field");
    assert!(!check(Method::GET, "/v1/environments/me", 200, extra));
    let mut missing = environment.clone();
    missing.as_object_mut().unwrap().remove("name");
    assert!(!check(Method::GET, "/v1/environments/me", 200, missing));
    assert!(!check(Method::GET, "/v1/environments/me", 201, environment.clone()), "an undocumented status");
    assert!(!check(Method::GET, "/v1/undocumented", 200, environment), "an undocumented route");
    let not_found = json!({
        "statusCode": 404, "timestamp": "2026-11-21T10:00:00.000Z", "path": "/x", "message": "Cannot GET /x", "error": "Not Found",
    });
    assert!(check(Method::GET, "/v1/undocumented", 404, not_found.clone()));
    assert!(!check(Method::GET, "/v1/undocumented", 404, json!({"message": "not the error shape"})));
    assert!(check(Method::GET, "/v2/subscribers/ada", 404, not_found));
}
