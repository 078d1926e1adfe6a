//! Completing and reverting action buttons, and deleting a notification.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use herald::db::schema::messages;
use reqwest::Method;
use serde_json::json;
use uuid::Uuid;

use super::{counts_of, event_log, ids, minutes_ago, Inbox};

/// Gives the notification `id` a secondary button beside the fixture's primary one.
async fn with_two_buttons(inbox: &Inbox, id: Uuid) {
    let cta = json!({"type": "redirect", "data": {"url": "/orders/A-1"}, "action": {"status": "pending", "buttons": [
        {"type": "primary", "content": "Open"}, {"type": "secondary", "content": "Later"}]}});
    let mut conn = inbox.server.pool.get().await.unwrap();
    diesel::update(messages::table.find(id)).set(messages::cta.eq(cta)).execute(&mut conn).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn complete_and_revert_persist_which_action_is_completed_and_write_events() {
    let inbox = Inbox::start(json!({})).await;
    let id = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    with_two_buttons(&inbox, id).await;
    let token = inbox.token("ada").await;
    let call = |action: &'static str, kind: &'static str| {
        let (inbox, token) = (&inbox, &token);
        async move {
            let path = format!("/v1/inbox/notifications/{id}/{action}");
            inbox.call(token, Method::PATCH, &path, Some(&json!({"actionType": kind}))).await
        }
    };
    let completed = |body: &serde_json::Value| {
        (body["data"]["primaryAction"]["isCompleted"].clone(), body["data"]["secondaryAction"]["isCompleted"].clone())
    };

    let (status, body) = call("complete", "primary").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(completed(&body), (json!(true), json!(false)));
    assert_eq!(body["data"]["secondaryAction"]["label"], "Later");
    let (_, body) = call("complete", "secondary").await;
    assert_eq!(completed(&body), (json!(false), json!(true)), "one action is completed at a time");
    let (_, body) = call("revert", "primary").await;
    assert_eq!(completed(&body), (json!(false), json!(true)), "reverting another action changes nothing");
    let (_, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(page["data"][0]["secondaryAction"]["isCompleted"], true, "persisted");
    let (_, body) = call("revert", "secondary").await;
    assert_eq!(completed(&body), (json!(false), json!(false)));

    let log: Vec<_> =
        event_log(&inbox, &inbox.ada).await.into_iter().map(|(change, id, unread, _)| (change, id, unread)).collect();
    let changes = ["complete", "complete", "revert", "revert"].map(|change| (Some(change.to_string()), id, 1));
    let expected: Vec<_> = [(None, id, 1)].into_iter().chain(changes).collect();
    assert_eq!(log, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_action_the_notification_lacks_a_bad_action_type_and_another_subscribers_id_are_refused() {
    let inbox = Inbox::start(json!({})).await;
    let id = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let bobs = inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let complete = |id: Uuid, body: serde_json::Value| {
        let (inbox, token) = (&inbox, &token);
        async move { inbox.call(token, Method::PATCH, &format!("/v1/inbox/notifications/{id}/complete"), Some(&body)).await }
    };
    let (status, body) = complete(id, json!({"actionType": "secondary"})).await;
    assert_eq!(
        (status, body["errors"]["actionType"]["messages"][0].as_str()),
        (422, Some("the notification has no secondary action"))
    );
    let (status, body) = complete(id, json!({"actionType": "tertiary"})).await;
    assert_eq!(status, 422, "{body}");
    let (status, body) = complete(id, json!({})).await;
    assert_eq!((status, body["errors"]["actionType"].is_object()), (422, true), "{body}");
    let (status, _) = complete(bobs, json!({"actionType": "primary"})).await;
    assert_eq!(status, 404);
    // Only their arrivals: no change was logged.
    assert_eq!(event_log(&inbox, &inbox.ada).await, vec![(None, id, 1, 1)]);
    assert_eq!(event_log(&inbox, &inbox.bob).await, vec![(None, bobs, 1, 1)]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_notification_leaves_the_inbox_for_good_but_not_the_server_api() {
    let inbox = Inbox::start(json!({})).await;
    let kept = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    let deleted = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let bobs = inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let path = |id: Uuid| format!("/v1/inbox/notifications/{id}");

    let (status, body) = inbox.call(&token, Method::DELETE, &path(bobs), None).await;
    assert_eq!((status, body["statusCode"].as_i64()), (404, Some(404)));
    let (status, body) = inbox.call(&token, Method::DELETE, &path(deleted), None).await;
    assert_eq!((status, body), (204, serde_json::Value::Null));
    let (_, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(ids(&page), vec![kept.to_string()]);
    assert_eq!(counts_of(&inbox, &token, json!([{}, {"read": false}, {"archived": true}])).await, vec![1, 1, 0]);
    let log = vec![(None, kept, 1, 1), (None, deleted, 2, 2), (Some("delete".to_string()), deleted, 1, 1)];
    assert_eq!(event_log(&inbox, &inbox.ada).await, log);

    // Gone for every inbox route, a second delete included.
    let (status, _) = inbox.call(&token, Method::DELETE, &path(deleted), None).await;
    assert_eq!(status, 404);
    let (status, _) = inbox.call(&token, Method::PATCH, &format!("{}/read", path(deleted)), None).await;
    assert_eq!(status, 404);
    // The server API still shows what was delivered.
    let (status, messages) = inbox.env.get(&inbox.server, "/v1/messages?subscriberId=ada&channel=in_app").await;
    assert_eq!(status, 200, "{messages}");
    let listed: Vec<&str> = messages["data"].as_array().unwrap().iter().map(|m| m["_id"].as_str().unwrap()).collect();
    assert!(listed.contains(&deleted.to_string().as_str()), "{messages}");
    let (_, bob_page) = inbox.call(&inbox.token("bob").await, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(ids(&bob_page), vec![bobs.to_string()], "bob's is untouched");
}
