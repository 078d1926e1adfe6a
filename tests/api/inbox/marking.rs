//! Marking one notification, and reading all of them.

use reqwest::Method;
use serde_json::json;

use super::{minutes_ago, Inbox};
use crate::activity_fixtures::read_state;

#[tokio::test(flavor = "multi_thread")]
async fn read_unread_archive_unarchive_return_the_notification_as_changed() {
    let inbox = Inbox::start(json!({})).await;
    let id = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let path = |action: &str| format!("/v1/inbox/notifications/{id}/{action}");

    let (status, body) = inbox.call(&token, Method::PATCH, &path("read"), None).await;
    assert_eq!(status, 200, "{body}");
    let read = &body["data"];
    assert_eq!(
        (read["id"].as_str().unwrap(), &read["isRead"], &read["isSeen"], &read["isArchived"]),
        (id.to_string().as_str(), &json!(true), &json!(true), &json!(false))
    );
    assert_eq!(read["body"], "Order A-1 for Ada");
    assert_eq!(read["channelType"], "in_app");
    assert_eq!(read["tags"], json!(["orders"]));
    assert_eq!(read["severity"], "high");
    assert_eq!(read["to"]["subscriberId"], "ada");
    assert_eq!(read["redirect"], json!({"url": "/orders/A-1"}));
    assert_eq!(read["primaryAction"], json!({"label": "Open", "isCompleted": false}));
    assert!(read["readAt"].is_string());
    assert!(read_state(&inbox.server, id).await.0);

    let (_, body) = inbox.call(&token, Method::PATCH, &path("unread"), None).await;
    assert_eq!((&body["data"]["isRead"], &body["data"]["isSeen"]), (&json!(false), &json!(true)));
    let (_, body) = inbox.call(&token, Method::PATCH, &path("archive"), None).await;
    assert_eq!((&body["data"]["isArchived"], body["data"]["archivedAt"].is_string()), (&json!(true), true));
    assert_eq!(body["data"]["isRead"], false, "archiving leaves the read state alone");
    let (_, body) = inbox.call(&token, Method::PATCH, &path("unarchive"), None).await;
    assert_eq!((&body["data"]["isArchived"], body["data"].get("archivedAt")), (&json!(false), None));

    let (status, _) = inbox.call(&token, Method::PATCH, "/v1/inbox/notifications/not-an-id/read", None).await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn read_all_marks_the_unread_of_the_given_tags_only() {
    let inbox = Inbox::start(json!({})).await;
    let first = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    let second = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let bobs = inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let token = inbox.token("ada").await;

    let (status, _) =
        inbox.call(&token, Method::POST, "/v1/inbox/notifications/read", Some(&json!({"tags": ["billing"]}))).await;
    assert_eq!(status, 204);
    assert!(!read_state(&inbox.server, first).await.0, "no notification has the tag");

    let (status, _) = inbox.call(&token, Method::POST, "/v1/inbox/notifications/read", Some(&json!({}))).await;
    assert_eq!(status, 204);
    assert!(read_state(&inbox.server, first).await.0 && read_state(&inbox.server, second).await.0);
    assert!(!read_state(&inbox.server, bobs).await.0, "another subscriber's stay unread");
    let (_, session) = inbox.open_session(&json!({"subscriberId": "ada"})).await;
    assert_eq!(session["data"]["totalUnreadCount"], 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idempotency_key_belongs_to_one_subscriber_and_the_rate_limit_applies() {
    let inbox = Inbox::start(json!({})).await;
    let adas = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let bobs = inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let read_all = |token: String| {
        let url = inbox.server.url("/v1/inbox/notifications/read");
        async move {
            crate::support::http_client()
                .post(url)
                .header("authorization", format!("Bearer {token}"))
                .header("idempotency-key", "read-all-1")
                .json(&json!({}))
                .send()
                .await
                .unwrap()
        }
    };
    let ada = inbox.token("ada").await;
    let first = read_all(ada.clone()).await;
    assert_eq!(first.status(), 204);
    assert!(first.headers().contains_key("x-ratelimit-limit"));
    let again = read_all(ada).await;
    assert_eq!(again.headers().get("idempotency-replay").unwrap(), "true");
    // The same key and body from bob is bob's own request, not a replay of ada's.
    let bob = read_all(inbox.token("bob").await).await;
    assert_eq!((bob.status(), bob.headers().get("idempotency-replay")), (reqwest::StatusCode::NO_CONTENT, None));
    assert!(read_state(&inbox.server, adas).await.0 && read_state(&inbox.server, bobs).await.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn read_all_leaves_notifications_that_arrive_while_it_runs_unread() {
    let inbox = Inbox::start(json!({})).await;
    let (present, arrived) = super::bulk_while_one_arrives(&inbox, "/v1/inbox/notifications/read").await;
    assert!(read_state(&inbox.server, present).await.0, "what was there when it started is read");
    assert!(!read_state(&inbox.server, arrived).await.0, "what arrived meanwhile is not swept up");
}

#[tokio::test(flavor = "multi_thread")]
async fn marks_are_stamped_by_the_engine_clock() {
    let inbox = Inbox::start(json!({})).await;
    let one = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    let other = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    // The engine's clock, which every other timestamp of Herald follows (snooze times included), is
    // two days ahead of the wall clock here: a mark stamped by the wall clock would show it.
    inbox.server.clock.advance(chrono::TimeDelta::days(2));
    let ahead = chrono::Utc::now() + chrono::TimeDelta::days(1);
    let token = inbox.token("ada").await;

    let (status, body) = inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{one}/read"), None).await;
    assert_eq!(status, 200, "{body}");
    let read_at: chrono::DateTime<chrono::Utc> = body["data"]["readAt"].as_str().unwrap().parse().unwrap();
    assert!(read_at > ahead, "{read_at}");

    let (status, _) = inbox.call(&token, Method::POST, "/v1/inbox/notifications/read", Some(&json!({}))).await;
    assert_eq!(status, 204);
    let (read, _, last_read, _) = read_state(&inbox.server, other).await;
    assert!(read && last_read.unwrap() > ahead, "{last_read:?}");
}
