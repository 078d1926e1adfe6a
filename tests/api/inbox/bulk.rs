//! Bulk changes: archive all, archive the read ones, seen by ids, delete; each limited by tags or ids,
//! none sweeping up a notification that arrives while it runs.

use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

use super::{bulk_while_one_arrives, counts_of, event_log, minutes_ago, Inbox};

/// Counts of: all, unread, unseen, archived, archived and read.
fn filters() -> Value {
    json!([{}, {"read": false}, {"seen": false}, {"archived": true}, {"archived": true, "read": true}])
}

#[tokio::test(flavor = "multi_thread")]
async fn each_bulk_change_changes_exactly_its_set_and_the_counts_follow() {
    let inbox = Inbox::start(json!({})).await;
    let notes: Vec<Uuid> = {
        let mut notes = Vec::new();
        for minutes in (1..=4).rev() {
            notes.push(inbox.notify(&inbox.ada, minutes_ago(minutes)).await);
        }
        notes
    };
    let bobs = inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let post = |path: &'static str, body: Value| {
        let (inbox, token) = (&inbox, &token);
        async move {
            let (status, answer) =
                inbox.call(token, Method::POST, &format!("/v1/inbox/notifications/{path}"), Some(&body)).await;
            assert_eq!(status, 204, "{path}: {answer}");
        }
    };
    assert_eq!(counts_of(&inbox, &token, filters()).await, vec![4, 4, 4, 0, 0]);

    // Seen by ids: two of ada's, and bob's (ignored: not in this inbox).
    post("seen", json!({"notificationIds": [notes[0], notes[1], bobs]})).await;
    assert_eq!(counts_of(&inbox, &token, filters()).await, vec![4, 4, 2, 0, 0]);
    // Read one, then archive the read ones: only that one.
    let (status, _) =
        inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{}/read", notes[2]), None).await;
    assert_eq!(status, 200);
    post("read-archive", json!({})).await;
    assert_eq!(counts_of(&inbox, &token, filters()).await, vec![4, 3, 1, 1, 1]);
    // Archive all of a tag no workflow has: nothing; then all.
    post("archive", json!({"tags": ["billing"]})).await;
    assert_eq!(counts_of(&inbox, &token, filters()).await, vec![4, 3, 1, 1, 1]);
    post("archive", json!({"tags": ["orders"]})).await;
    assert_eq!(counts_of(&inbox, &token, filters()).await, vec![4, 3, 1, 4, 1]);
    // Delete two by id, then the rest.
    post("delete", json!({"notificationIds": [notes[0], notes[3]]})).await;
    assert_eq!(counts_of(&inbox, &token, filters()).await, vec![2, 1, 0, 2, 1]);
    post("delete", json!({})).await;
    assert_eq!(counts_of(&inbox, &token, filters()).await, vec![0, 0, 0, 0, 0]);

    let changes: Vec<Option<String>> = event_log(&inbox, &inbox.ada).await.into_iter().map(|event| event.0).collect();
    let expected =
        ["seen", "seen", "read", "archive", "archive", "archive", "archive", "delete", "delete", "delete", "delete"];
    let arrivals = [None, None, None, None];
    let expected: Vec<_> = arrivals.into_iter().chain(expected.map(|change| Some(change.to_string()))).collect();
    assert_eq!(changes, expected, "one event per arrival and per notification changed");
    let (_, bob_page) = inbox.call(&inbox.token("bob").await, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!((&bob_page["data"][0]["isSeen"], &bob_page["data"][0]["isArchived"]), (&json!(false), &json!(false)));
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_bulk_input_is_refused_and_changes_nothing() {
    let inbox = Inbox::start(json!({})).await;
    inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let too_many: Vec<String> = (0..101).map(|_| Uuid::now_v7().to_string()).collect();
    for body in [json!({"notificationIds": too_many}), json!({"notificationIds": ["not-an-id"]})] {
        let (status, answer) = inbox.call(&token, Method::POST, "/v1/inbox/notifications/seen", Some(&body)).await;
        assert_eq!((status, answer["errors"]["notificationIds"].is_object()), (422, true), "{answer}");
    }
    let (status, answer) =
        inbox.call(&token, Method::POST, "/v1/inbox/notifications/delete", Some(&json!({"tags": "orders"}))).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(counts_of(&inbox, &token, json!([{}, {"seen": false}])).await, vec![1, 1]);
}

#[tokio::test(flavor = "multi_thread")]
async fn archive_all_and_delete_all_leave_notifications_that_arrive_while_they_run() {
    let inbox = Inbox::start(json!({})).await;
    let (present, arrived) = bulk_while_one_arrives(&inbox, "/v1/inbox/notifications/archive").await;
    let token = inbox.token("ada").await;
    let (_, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications?archived=false", None).await;
    assert_eq!(super::ids(&page), vec![arrived.to_string()], "what arrived meanwhile is not archived");
    // Its counts are those at its commit, the arrival included.
    let log = vec![(None, present, 1, 1), (None, arrived, 2, 2), (Some("archive".to_string()), present, 1, 1)];
    assert_eq!(event_log(&inbox, &inbox.ada).await, log);

    let inbox = Inbox::start(json!({})).await;
    let (_, arrived) = bulk_while_one_arrives(&inbox, "/v1/inbox/notifications/delete").await;
    let (_, page) = inbox.call(&inbox.token("ada").await, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(super::ids(&page), vec![arrived.to_string()], "what arrived meanwhile is not deleted");
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_answers_how_many_a_bulk_change_changed_and_refuses_an_unset_change() {
    use herald::proto::herald::v1 as pb;
    use pb::inbox_bulk_change_enum::InboxBulkChange;

    let inbox = Inbox::start(json!({})).await;
    inbox.notify(&inbox.ada, minutes_ago(2)).await;
    inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let mut client = pb::inbox_service_client::InboxServiceClient::new(inbox.server.grpc_channel().await);
    let request = |change: InboxBulkChange| {
        let message = pb::UpdateAllInboxNotificationsRequest { change: change.into(), ..Default::default() };
        let mut request = tonic::Request::new(message);
        request.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
        request
    };
    let seen = client.update_all_inbox_notifications(request(InboxBulkChange::Seen)).await.unwrap().into_inner();
    assert_eq!(seen.updated, 2);
    let again = client.update_all_inbox_notifications(request(InboxBulkChange::Seen)).await.unwrap().into_inner();
    assert_eq!(again.updated, 0, "none is unseen any more");
    let refused = client.update_all_inbox_notifications(request(InboxBulkChange::Unspecified)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(counts_of(&inbox, &token, json!([{"seen": false}, {}])).await, vec![0, 2]);
}
