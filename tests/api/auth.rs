//! The contract's three 401s and a valid key, over REST and gRPC.

use herald::proto::herald::v1 as pb;
use pb::environments_service_client::EnvironmentsServiceClient;
use serde_json::Value;
use tonic::Code;

use crate::support::{http_client, TestServer};

async fn rest_401(server: &TestServer, authorization: Option<&str>) -> Value {
    let mut request = http_client().get(server.url("/v1/environments/me"));
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 401);
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn rest_distinguishes_missing_header_wrong_scheme_and_unknown_key() {
    let server = TestServer::start().await;

    let missing = rest_401(&server, None).await;
    assert_eq!(missing["message"], "Missing authorization header");
    assert_eq!(missing["statusCode"], 401);
    assert_eq!(missing["error"], "Unauthorized");
    assert_eq!(missing["path"], "/v1/environments/me");

    let bearer = format!("Bearer {}", server.api_key);
    assert_eq!(rest_401(&server, Some(&bearer)).await["message"], "Invalid authentication scheme");
    assert_eq!(rest_401(&server, Some("ApiKey")).await["message"], "Invalid authentication scheme");
    assert_eq!(rest_401(&server, Some("ApiKey hk_not_a_key")).await["message"], "API Key not found");

    let ok = server.get("/v1/environments/me").send().await.unwrap();
    assert_eq!(ok.status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_distinguishes_missing_header_wrong_scheme_and_unknown_key() {
    let server = TestServer::start().await;
    let mut client = EnvironmentsServiceClient::new(server.grpc_channel().await);

    let cases = [
        (None, "Missing authorization header"),
        (Some(format!("Bearer {}", server.api_key)), "Invalid authentication scheme"),
        (Some("ApiKey hk_not_a_key".to_string()), "API Key not found"),
    ];
    for (authorization, expected) in cases {
        let mut request = tonic::Request::new(pb::GetCurrentEnvironmentRequest {});
        if let Some(value) = authorization {
            request.metadata_mut().insert("authorization", value.parse().unwrap());
        }
        let status = client.get_current_environment(request).await.unwrap_err();
        assert_eq!(status.code(), Code::Unauthenticated);
        assert_eq!(status.message(), expected);
    }

    let response = client
        .get_current_environment(server.grpc_request(pb::GetCurrentEnvironmentRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(response.environment.unwrap().id, server.environment_id.to_string());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_of_another_environment_sees_only_its_own() {
    let server = TestServer::start().await;
    let (other_environment, other_key) = server.other_environment("production").await;
    let body: Value = http_client()
        .get(server.url("/v1/environments/me"))
        .header("authorization", format!("ApiKey {other_key}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["name"], "production");
    assert_eq!(body["_id"], other_environment.to_string());
    assert_ne!(body["_id"], server.environment_id.to_string());
}
