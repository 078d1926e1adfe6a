//! Snooze: a snoozed notification leaves the list and the counts, and comes back on its own when due,
//! with an `unsnooze` event (the engine clock moves forward instead of the test waiting).

use chrono::TimeDelta;
use reqwest::Method;
use serde_json::json;

use super::events::{counts, EventStream};
use super::{counts_of, event_log, ids, minutes_ago, Inbox};
use crate::support::TestServer;

#[tokio::test(flavor = "multi_thread")]
async fn a_snoozed_notification_leaves_list_and_counts_and_comes_back_when_due_with_an_event() {
    let inbox = Inbox::start(json!({})).await;
    let older = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    let snoozed = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let mut stream = EventStream::open(&inbox.server, &token, None, false).await;
    assert_eq!(counts(&stream.next().await), (2, 2));

    let until = inbox.server.clock.now() + TimeDelta::minutes(30);
    let body = json!({"snoozeUntil": until.to_rfc3339()});
    let (status, answer) =
        inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{snoozed}/snooze"), Some(&body)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!((&answer["data"]["isSnoozed"], answer["data"]["snoozedUntil"].is_string()), (&json!(true), true));
    let event = stream.next().await;
    assert_eq!(
        (event.event.as_str(), event.data["change"].as_str(), counts(&event)),
        ("changed", Some("snooze"), (1, 1))
    );

    let (_, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(ids(&page), vec![older.to_string()], "out of the list");
    let (_, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications?snoozed=true", None).await;
    assert_eq!(ids(&page), vec![snoozed.to_string()], "the snoozed filter lists it");
    let filters = json!([{"read": false}, {"snoozed": true}, {"snoozed": false}, {}]);
    assert_eq!(counts_of(&inbox, &token, filters.clone()).await, vec![1, 1, 1, 1]);
    let (_, session) = inbox.open_session(&json!({"subscriberId": "ada"})).await;
    assert_eq!(session["data"]["totalUnreadCount"], 1);

    // Not yet due: still snoozed after a minute.
    inbox.server.clock.advance(TimeDelta::minutes(1));
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(counts_of(&inbox, &token, json!([{"snoozed": true}])).await, vec![1]);

    inbox.server.clock.advance(TimeDelta::minutes(29) + TimeDelta::seconds(1));
    let event = stream.next().await;
    assert_eq!(
        (event.event.as_str(), event.data["change"].as_str(), counts(&event)),
        ("changed", Some("unsnooze"), (2, 2))
    );
    assert_eq!(
        (&event.data["notification"]["id"], &event.data["notification"]["isSnoozed"]),
        (&json!(snoozed.to_string()), &json!(false))
    );
    let (_, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(ids(&page), vec![snoozed.to_string(), older.to_string()], "back in its place");
    assert_eq!(counts_of(&inbox, &token, filters).await, vec![2, 0, 2, 2]);
    let log = event_log(&inbox, &inbox.ada).await;
    let changes: Vec<_> = log.iter().map(|(change, id, unread, _)| (change.as_deref(), *id, *unread)).collect();
    let arrivals = [(None, older, 1), (None, snoozed, 2)];
    assert_eq!(changes, [&arrivals[..], &[(Some("snooze"), snoozed, 1), (Some("unsnooze"), snoozed, 2)]].concat());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_notification_that_fell_due_while_no_worker_ran_comes_back_when_one_starts() {
    // An API process alone: nothing brings snoozed notifications back.
    let inbox = Inbox::on(TestServer::start_api_only().await, json!({})).await;
    let id = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let body = json!({"snoozeUntil": (inbox.server.clock.now() + TimeDelta::minutes(5)).to_rfc3339()});
    let (status, _) =
        inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{id}/snooze"), Some(&body)).await;
    assert_eq!(status, 200);
    inbox.server.clock.advance(TimeDelta::minutes(6));
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert_eq!(counts_of(&inbox, &token, json!([{"snoozed": true}])).await, vec![1], "still snoozed: no worker");

    // A worker process starting later finds it: the state is the row, not a timer of a process.
    let _worker = inbox.server.start_worker_process().await;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
    while counts_of(&inbox, &token, json!([{"snoozed": true}])).await != vec![0] {
        assert!(tokio::time::Instant::now() < deadline, "the notification never came back");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(counts_of(&inbox, &token, json!([{"read": false}])).await, vec![1]);
    let log = event_log(&inbox, &inbox.ada).await;
    let last = log.last().map(|(change, id, unread, _)| (change.as_deref(), *id, *unread));
    assert_eq!(last, Some((Some("unsnooze"), id, 1)));
}

#[tokio::test(flavor = "multi_thread")]
async fn snooze_refuses_a_time_too_close_or_malformed_and_another_subscribers_id_and_unsnooze_brings_it_back() {
    let inbox = Inbox::start(json!({})).await;
    let id = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let bobs = inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let path = |id: uuid::Uuid, action: &str| format!("/v1/inbox/notifications/{id}/{action}");
    let soon = (inbox.server.clock.now() + TimeDelta::seconds(30)).to_rfc3339();
    for value in [json!(soon), json!("next tuesday"), json!(null)] {
        let (status, body) =
            inbox.call(&token, Method::PATCH, &path(id, "snooze"), Some(&json!({"snoozeUntil": value}))).await;
        assert_eq!((status, body["errors"]["snoozeUntil"]["value"].clone()), (422, value), "{body}");
    }
    let later = json!({"snoozeUntil": (inbox.server.clock.now() + TimeDelta::hours(1)).to_rfc3339()});
    let (status, _) = inbox.call(&token, Method::PATCH, &path(bobs, "snooze"), Some(&later)).await;
    assert_eq!(status, 404);
    assert_eq!(counts_of(&inbox, &token, json!([{"snoozed": true}, {}])).await, vec![0, 1], "nothing changed");

    let (status, _) = inbox.call(&token, Method::PATCH, &path(id, "snooze"), Some(&later)).await;
    assert_eq!(status, 200);
    let (status, body) = inbox.call(&token, Method::PATCH, &path(id, "unsnooze"), None).await;
    assert_eq!((status, &body["data"]["isSnoozed"], body["data"].get("snoozedUntil")), (200, &json!(false), None));
    assert_eq!(counts_of(&inbox, &token, json!([{"snoozed": true}, {}])).await, vec![0, 1]);
    let (status, _) = inbox.call(&token, Method::PATCH, &path(bobs, "unsnooze"), None).await;
    assert_eq!(status, 404);
}
