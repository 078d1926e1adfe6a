//! Trigger → in-app message, over REST and over gRPC, with the whole event, job and message shapes.

use diesel_async::RunQueryDsl;
use serde_json::{json, Value};

use super::fixtures::*;
use crate::support::TestServer;

fn sorted_keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trigger_delivers_one_rendered_in_app_message_and_records_every_stage() {
    let server = TestServer::start().await;
    let workflow = create_workflow(&server, "order-shipped", json!([in_app_step()])).await;
    let transaction_id = trigger_processed(
        &server,
        json!({
            "name": "order-shipped",
            "to": {"subscriberId": "ada", "firstName": "Ada", "email": "ada@example.com"},
            "payload": {"orderId": "A-1"},
            "actor": {"subscriberId": "shop-bot", "firstName": "Shop"},
            "transactionId": "tx-in-app-1"
        }),
    )
    .await;
    assert_eq!(transaction_id, "tx-in-app-1");
    wait_until_settled(&server).await;

    let events = events_of(&server, &transaction_id).await;
    assert_eq!(events.len(), 1, "{events:?}");
    let event = &events[0];
    assert_eq!(event["_environmentId"], server.environment_id.to_string());
    assert_eq!(event["_organizationId"], server.organization_id.to_string());
    assert_eq!(event["transactionId"], "tx-in-app-1");
    assert_eq!(event["_templateId"], workflow["_id"]);
    assert_eq!(event["payload"], json!({"orderId": "A-1"}));
    assert_eq!(event["subscriber"]["subscriberId"], "ada");
    assert_eq!(event["subscriber"]["firstName"], "Ada");
    assert_eq!(event["template"]["name"], "order-shipped");
    assert_eq!(event["channels"], json!(["trigger", "in_app"]));
    let jobs = event["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    for job in jobs {
        assert_eq!(job["status"], "completed", "{job}");
        assert!(job["providerId"].is_string(), "{job}");
        assert!(!job["executionDetails"].as_array().unwrap().is_empty(), "{job}");
        for detail in job["executionDetails"].as_array().unwrap() {
            assert_eq!(
                sorted_keys(detail)
                    .iter()
                    .filter(|k| ["_id", "status", "detail", "isRetry", "isTest", "source"].contains(&k.as_str()))
                    .count(),
                6,
                "{detail}"
            );
        }
    }
    let in_app = job(event, "in_app");
    assert_eq!(in_app["step"]["_id"], workflow["steps"][0]["_id"]);
    assert_eq!(details(in_app), ["In-app message created", "Message sent to the in-app feed"]);
    // Rendered from the completed job, not stored: the same ids on every read, the job's provider, and
    // the job's completion time, in the order the step reached them.
    assert_eq!(count(&server, "execution_details").await, 0, "a delivered in-app message stores no detail");
    let read_again = events_of(&server, &transaction_id).await;
    assert_eq!(job(&read_again[0], "in_app")["executionDetails"], in_app["executionDetails"]);
    let rendered = in_app["executionDetails"].as_array().unwrap();
    assert_ne!(rendered[0]["_id"], rendered[1]["_id"]);
    for detail in rendered {
        assert_eq!(detail["status"], "Success", "{detail}");
        assert_eq!(detail["source"], "Internal", "{detail}");
        assert_eq!(detail["providerId"], in_app["providerId"], "{detail}");
    }
    assert!(rendered[0]["createdAt"].as_str() <= rendered[1]["createdAt"].as_str(), "{rendered:?}");

    let messages = messages_of(&server, &transaction_id).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    let message = &messages[0];
    for key in [
        "_id",
        "_environmentId",
        "_organizationId",
        "_notificationId",
        "_subscriberId",
        "createdAt",
        "transactionId",
        "channel",
        "read",
        "seen",
        "cta",
        "status",
    ] {
        assert!(message.get(key).is_some(), "{key} missing from {message}");
    }
    assert_eq!(message["_notificationId"], event["_id"]);
    assert_eq!(message["_templateId"], workflow["_id"]);
    assert_eq!(message["templateIdentifier"], "order-shipped");
    assert_eq!(message["channel"], "in_app");
    assert_eq!(message["status"], "sent");
    assert_eq!(message["subject"], "Order A-1");
    assert_eq!(message["content"], "Hi Ada, order A-1 shipped");
    assert_eq!(message["read"], false);
    assert_eq!(message["seen"], false);
    assert_eq!(message["payload"], json!({"orderId": "A-1"}));
    assert_eq!(message["subscriber"]["subscriberId"], "ada");
    assert_eq!(
        message["cta"],
        json!({"type": "redirect", "data": {"url": "https://shop.example/orders/A-1"},
               "action": {"status": "pending", "buttons": [{"type": "primary", "content": "Track"}]}})
    );
    assert_eq!(message["template"]["name"], "order-shipped");
    assert_eq!(message["deliveredAt"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_grpc_trigger_delivers_like_a_rest_one() {
    use herald::proto::herald::v1 as pb;
    let server = TestServer::start().await;
    create_workflow(&server, "order-shipped", json!([in_app_step()])).await;
    let mut client = pb::events_service_client::EventsServiceClient::new(server.grpc_channel().await);
    let payload = herald::wire::json_to_struct(json!({"orderId": "G-7"}));
    let request = pb::TriggerEventRequest {
        name: "order-shipped".into(),
        payload,
        to: vec![pb::TriggerRecipient { kind: Some(pb::trigger_recipient::Kind::SubscriberId("grace".into())) }],
        transaction_id: Some("tx-grpc".into()),
        ..Default::default()
    };
    let response = client.trigger_event(server.grpc_request(request)).await.unwrap().into_inner();
    assert!(response.acknowledged);
    assert_eq!(response.status(), pb::trigger_event_status_enum::TriggerEventStatus::Processed);
    assert_eq!(response.transaction_id.as_deref(), Some("tx-grpc"));

    let unknown = pb::TriggerEventRequest { name: "nope".into(), ..Default::default() };
    let status = client.trigger_event(server.grpc_request(unknown)).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(status.message(), "workflow_not_found");

    wait_until_settled(&server).await;
    let messages = messages_of(&server, "tx-grpc").await;
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["content"], "Hi there, order G-7 shipped");
    assert_eq!(messages[0]["subscriber"]["subscriberId"], "grace");
}

#[tokio::test(flavor = "multi_thread")]
async fn delivering_in_app_messages_updates_each_inbox_counter_row_in_place() {
    #[derive(diesel::QueryableByName)]
    struct Updates {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        all: i64,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        in_place: i64,
    }
    let server = TestServer::start().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    let readers: Vec<String> = (0..300).map(|n| format!("reader-{n}")).collect();
    for _ in 0..2 {
        trigger_processed(&server, json!({"name": "feed", "to": readers})).await;
        wait_until_settled(&server).await;
    }

    // Each new subscriber's counter row is inserted by its first message, then updated by the next.
    // The update finds room on the row's page (the table's fillfactor) and writes no index entry (a
    // HOT update); on full pages every update moved its row. Statistics reach the view within seconds.
    let mut conn = server.pool.get().await.unwrap();
    let mut updates = Updates { all: 0, in_place: 0 };
    for _ in 0..300 {
        updates = diesel::sql_query(
            "SELECT n_tup_upd AS all, n_tup_hot_upd AS in_place FROM pg_stat_user_tables
             WHERE relid = 'inbox_sequences'::regclass",
        )
        .get_result(&mut conn)
        .await
        .unwrap();
        if updates.all >= 300 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(updates.all >= 300, "only {} counter updates were reported", updates.all);
    assert_eq!(updates.in_place, updates.all, "counter updates that moved their row");
}
