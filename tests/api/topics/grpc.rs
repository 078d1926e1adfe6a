//! The topic rpcs over gRPC, the same rules as REST: status codes and field violations.

use herald::proto::herald::v1 as pb;
use pb::events_service_client::EventsServiceClient;
use pb::topics_service_client::TopicsServiceClient;
use reqwest::Method;
use serde_json::json;
use tonic::Code;

use super::fanout::wait_until_fanned_out;
use crate::engine::fixtures::{count, create_workflow, in_app_step};
use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread")]
async fn every_topic_rpc_succeeds_and_fails_like_rest() {
    let server = TestServer::start().await;
    server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    let mut client = TopicsServiceClient::new(server.grpc_channel().await);
    let key = || "team".to_string();

    let created = client
        .create_topic(server.grpc_request(pb::CreateTopicRequest { key: key(), name: "Team".into() }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(created.key, "team");
    let duplicate =
        client.create_topic(server.grpc_request(pb::CreateTopicRequest { key: key(), name: "x".into() })).await;
    assert_eq!(duplicate.unwrap_err().code(), Code::AlreadyExists);
    let bad = client.create_topic(server.grpc_request(pb::CreateTopicRequest { key: "a/b".into(), name: "x".into() }));
    assert_eq!(bad.await.unwrap_err().code(), Code::InvalidArgument);

    let added = client
        .add_topic_subscribers(server.grpc_request(pb::AddTopicSubscribersRequest {
            topic_key: key(),
            subscribers: vec!["ada".into(), "ghost".into()],
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(added.succeeded, ["ada"]);
    assert_eq!(added.failed.unwrap().not_found, ["ghost"]);

    let membership = client
        .get_topic_subscriber(
            server.grpc_request(pb::GetTopicSubscriberRequest { topic_key: key(), subscriber_id: "ada".into() }),
        )
        .await
        .unwrap()
        .into_inner()
        .topic_subscriber
        .unwrap();
    assert_eq!((membership.topic_key.as_str(), membership.topic_id.as_str()), ("team", created.id.as_str()));

    let renamed = client
        .rename_topic(server.grpc_request(pb::RenameTopicRequest { topic_key: key(), name: "Crew".into() }))
        .await
        .unwrap()
        .into_inner()
        .topic
        .unwrap();
    assert_eq!((renamed.name.as_str(), renamed.subscribers.clone()), ("Crew", vec!["ada".to_string()]));
    let listed = client
        .list_topics(server.grpc_request(pb::ListTopicsRequest { key: Some(key()), ..Default::default() }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((listed.total_count, listed.page_size, listed.data.len()), (1, 10, 1));

    let not_empty = client.delete_topic(server.grpc_request(pb::DeleteTopicRequest { topic_key: key() })).await;
    assert_eq!(not_empty.unwrap_err().code(), Code::AlreadyExists);
    client
        .remove_topic_subscribers(
            server
                .grpc_request(pb::RemoveTopicSubscribersRequest { topic_key: key(), subscribers: vec!["ada".into()] }),
        )
        .await
        .unwrap();
    client.delete_topic(server.grpc_request(pb::DeleteTopicRequest { topic_key: key() })).await.unwrap();
    let gone = client.get_topic(server.grpc_request(pb::GetTopicRequest { topic_key: key() })).await;
    assert_eq!(gone.unwrap_err().code(), Code::NotFound);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_grpc_trigger_names_a_topic_with_the_typed_recipient() {
    let server = TestServer::start().await;
    create_workflow(&server, "news", json!([in_app_step()])).await;
    server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    server.send_json(Method::POST, "/v1/topics/t/subscribers", &json!({"subscribers": ["ada"]})).await;
    let mut events = EventsServiceClient::new(server.grpc_channel().await);
    let topic = pb::TriggerRecipient {
        kind: Some(pb::trigger_recipient::Kind::Topic(pb::TriggerTopic { topic_key: "t".into() })),
    };
    let answer = events
        .trigger_event(server.grpc_request(pb::TriggerEventRequest {
            name: "news".into(),
            to: vec![topic],
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(answer.acknowledged);
    wait_until_fanned_out(&server).await;
    assert_eq!(count(&server, "notifications").await, 1);
}
