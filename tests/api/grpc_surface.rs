//! The gRPC surface on the shared port: health, reflection, and honest UNIMPLEMENTED answers.

use herald::proto::herald::v1 as pb;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
use tonic_reflection::pb::v1::ServerReflectionRequest;

use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread")]
async fn health_reports_serving_without_a_key() {
    let server = TestServer::start().await;
    let mut client = HealthClient::new(server.grpc_channel().await);
    let response = client.check(HealthCheckRequest { service: String::new() }).await.unwrap().into_inner();
    assert_eq!(response.status(), ServingStatus::Serving);
}

#[tokio::test(flavor = "multi_thread")]
async fn reflection_lists_every_herald_service() {
    let server = TestServer::start().await;
    let mut client = ServerReflectionClient::new(server.grpc_channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = client.server_reflection_info(tokio_stream::iter([request])).await.unwrap().into_inner();
    let response = responses.message().await.unwrap().expect("one response");
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("unexpected reflection answer: {response:?}");
    };
    let mut names: Vec<String> = list.service.into_iter().map(|service| service.name).collect();
    names.sort();
    for expected in [
        "grpc.health.v1.Health",
        "herald.v1.EnvironmentsService",
        "herald.v1.EventsService",
        "herald.v1.IntegrationsService",
        "herald.v1.MessagesService",
        "herald.v1.NotificationsService",
        "herald.v1.SubscribersService",
        "herald.v1.WorkflowsService",
    ] {
        assert!(names.iter().any(|name| name == expected), "{expected} missing from {names:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rpcs_authenticate_before_they_run() {
    let server = TestServer::start().await;
    let mut client = pb::events_service_client::EventsServiceClient::new(server.grpc_channel().await);
    let trigger = pb::TriggerEventRequest { name: "welcome".into(), ..Default::default() };

    let status = client.trigger_event(tonic::Request::new(trigger.clone())).await.unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);

    let status = client.trigger_event(server.grpc_request(trigger)).await.unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition, "authenticated, it reaches the workflow lookup");
    assert_eq!(status.message(), "workflow_not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_grpc_method_answers_unimplemented() {
    let server = TestServer::start().await;
    let mut grpc = tonic::client::Grpc::new(server.grpc_channel().await);
    grpc.ready().await.unwrap();
    let path = http::uri::PathAndQuery::from_static("/herald.v1.NoSuchService/Nothing");
    let status = grpc
        .unary::<_, pb::GetCurrentEnvironmentResponse, _>(
            server.grpc_request(pb::GetCurrentEnvironmentRequest {}),
            path,
            tonic_prost::ProstCodec::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unimplemented);
}
