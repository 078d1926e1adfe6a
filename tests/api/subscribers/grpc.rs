//! The subscriber rpcs over gRPC: one success and one failure each.

use herald::proto::herald::v1 as pb;
use pb::subscribers_service_client::SubscribersServiceClient;
use tonic::Code;
use tonic_types::StatusExt;

use super::fixtures::{insert_integration, insert_workflow};
use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread")]
async fn every_subscriber_rpc_succeeds_and_fails_like_rest() {
    let server = TestServer::start().await;
    let mut client = SubscribersServiceClient::new(server.grpc_channel().await);

    let created = client
        .create_subscriber(server.grpc_request(pb::CreateSubscriberRequest {
            subscriber_id: "user-1".into(),
            email: Some("ada@example.com".into()),
            first_name: Some("Ada".into()),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner()
        .subscriber
        .unwrap();
    assert_eq!(created.subscriber_id, "user-1");
    assert_eq!(created.version, Some(0));
    let duplicate = client
        .create_subscriber(
            server.grpc_request(pb::CreateSubscriberRequest { subscriber_id: "user-1".into(), ..Default::default() }),
        )
        .await
        .unwrap_err();
    assert_eq!(duplicate.code(), Code::AlreadyExists);

    let fetched = client
        .get_subscriber(server.grpc_request(pb::GetSubscriberRequest { subscriber_id: "user-1".into() }))
        .await
        .unwrap();
    assert_eq!(fetched.into_inner().subscriber.unwrap(), created);
    let missing = client
        .get_subscriber(server.grpc_request(pb::GetSubscriberRequest { subscriber_id: "ghost".into() }))
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);

    let updated = client
        .update_subscriber(server.grpc_request(pb::UpdateSubscriberRequest {
            subscriber_id: "user-1".into(),
            last_name: Some("Lovelace".into()),
            update_mask: Some(pbjson_types::FieldMask { paths: vec!["last_name".into(), "first_name".into()] }),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner()
        .subscriber
        .unwrap();
    assert_eq!(updated.last_name.as_deref(), Some("Lovelace"));
    assert_eq!(updated.first_name, None, "a masked field without a value is cleared");
    assert_eq!(updated.email.as_deref(), Some("ada@example.com"));
    let invalid = client
        .update_subscriber(server.grpc_request(pb::UpdateSubscriberRequest {
            subscriber_id: "user-1".into(),
            email: Some("bad".into()),
            timezone: Some("Atlantis/City".into()),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(invalid.code(), Code::InvalidArgument);
    let violations = invalid.get_details_bad_request().expect("field violations").field_violations;
    let fields: Vec<&str> = violations.iter().map(|violation| violation.field.as_str()).collect();
    assert_eq!(fields, ["email", "timezone"]);

    let page = client
        .search_subscribers(
            server.grpc_request(pb::SearchSubscribersRequest { email: Some("ada@".into()), ..Default::default() }),
        )
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.total_count, 1);
    assert_eq!(page.data[0].subscriber_id, "user-1");
    let bad_order = client
        .search_subscribers(
            server.grpc_request(pb::SearchSubscribersRequest { order_by: Some("email".into()), ..Default::default() }),
        )
        .await
        .unwrap_err();
    assert_eq!(bad_order.code(), Code::InvalidArgument);

    insert_integration(&server, "fcm", "push", "fcm-main", true).await;
    let credentials = |provider: &str| pb::UpsertSubscriberCredentialsRequest {
        subscriber_id: "user-1".into(),
        provider_id: provider.into(),
        credentials: Some(pb::ChannelCredentials { device_tokens: vec!["t1".into()], ..Default::default() }),
        ..Default::default()
    };
    let with_tokens =
        client.upsert_subscriber_credentials(server.grpc_request(credentials("fcm"))).await.unwrap().into_inner();
    assert_eq!(with_tokens.subscriber.unwrap().channels[0].credentials.as_ref().unwrap().device_tokens, ["t1"]);
    let no_integration =
        client.upsert_subscriber_credentials(server.grpc_request(credentials("apns"))).await.unwrap_err();
    assert_eq!(no_integration.code(), Code::InvalidArgument);

    insert_workflow(&server, "vip", true, &["email"], serde_json::json!({})).await;
    let preferences = client
        .update_subscriber_preferences(server.grpc_request(pb::UpdateSubscriberPreferencesRequest {
            subscriber_id: "user-1".into(),
            channels: Some(pb::ChannelFlags { sms: Some(false), ..Default::default() }),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner()
        .preferences
        .unwrap();
    assert_eq!(preferences.global_preference.unwrap().channels.unwrap().sms, Some(false));
    let critical = client
        .update_subscriber_preferences(server.grpc_request(pb::UpdateSubscriberPreferencesRequest {
            subscriber_id: "user-1".into(),
            workflow_id: Some("vip".into()),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(critical.code(), Code::InvalidArgument);
    let read = client
        .get_subscriber_preferences(
            server.grpc_request(pb::GetSubscriberPreferencesRequest { subscriber_id: "user-1".into() }),
        )
        .await
        .unwrap()
        .into_inner();
    assert!(read.preferences.unwrap().workflows.is_empty());
    let unknown = client
        .get_subscriber_preferences(
            server.grpc_request(pb::GetSubscriberPreferencesRequest { subscriber_id: "ghost".into() }),
        )
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Code::NotFound);

    client
        .delete_subscriber(server.grpc_request(pb::DeleteSubscriberRequest { subscriber_id: "user-1".into() }))
        .await
        .unwrap();
    let gone = client
        .delete_subscriber(server.grpc_request(pb::DeleteSubscriberRequest { subscriber_id: "user-1".into() }))
        .await
        .unwrap_err();
    assert_eq!(gone.code(), Code::NotFound);
}
