//! GET /v1/environments/me and its rpc: the transcoding pattern end to end.

use herald::proto::herald::v1 as pb;
use pb::environments_service_client::EnvironmentsServiceClient;
use serde_json::Value;

use crate::support::TestServer;

fn assert_contract_timestamp(value: &Value) {
    let text = value.as_str().expect("timestamp is a string");
    assert_eq!(text.len(), "2026-11-21T10:00:00.000Z".len(), "{text}");
    assert!(text.ends_with('Z'), "{text}");
    chrono::DateTime::parse_from_rfc3339(text).expect("RFC 3339");
}

#[tokio::test(flavor = "multi_thread")]
async fn rest_returns_the_callers_environment_in_the_contract_shape() {
    let server = TestServer::start().await;
    let response = server.get("/v1/environments/me").send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert!(response.headers().contains_key("x-request-id"));
    let body: Value = response.json().await.unwrap();

    let keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 6, "{body}");
    assert_eq!(body["_id"], server.environment_id.to_string());
    assert_eq!(body["name"], "development");
    assert_eq!(body["_organizationId"], server.organization_id.to_string());
    assert_contract_timestamp(&body["createdAt"]);
    assert_contract_timestamp(&body["updatedAt"]);
    // Public and per environment: 32 hex characters.
    let application_identifier = body["applicationIdentifier"].as_str().unwrap();
    assert!(application_identifier.len() == 32 && application_identifier.chars().all(|c| c.is_ascii_hexdigit()));
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_and_rest_answer_the_same_environment() {
    let server = TestServer::start().await;
    let mut client = EnvironmentsServiceClient::new(server.grpc_channel().await);
    let grpc = client
        .get_current_environment(server.grpc_request(pb::GetCurrentEnvironmentRequest {}))
        .await
        .unwrap()
        .into_inner()
        .environment
        .unwrap();
    let rest: Value = server.get("/v1/environments/me").send().await.unwrap().json().await.unwrap();
    assert_eq!(serde_json::to_value(&grpc).unwrap(), rest);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_id_sent_by_the_client_is_echoed() {
    let server = TestServer::start().await;
    let response = server.get("/v1/environments/me").header("x-request-id", "trace-me-42").send().await.unwrap();
    assert_eq!(response.headers()["x-request-id"], "trace-me-42");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_authenticated_read_of_the_environment_needs_no_database_connection_once_cached() {
    let server = TestServer::start_api_only().await;
    let first = server.get_json("/v1/environments/me").await;
    assert_eq!(first.0, 200, "{}", first.1);
    // The test holds every free connection of the server's pool (the inbox feed's listener holds one for
    // good): a read that needed one would wait for it.
    let mut held = Vec::new();
    while let Ok(connection) = tokio::time::timeout(std::time::Duration::from_millis(500), server.pool.get()).await {
        held.push(connection.expect("a pooled connection"));
    }
    assert!(held.len() + 1 >= server.pool.status().max_size, "held {} connections", held.len());
    let again = tokio::time::timeout(std::time::Duration::from_secs(5), server.get_json("/v1/environments/me"))
        .await
        .expect("answered while no database connection was free");
    assert_eq!(again, first);
}
