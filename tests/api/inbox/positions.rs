//! Every change answers where the inbox stands after it: the exact unread and unseen counts and the
//! latest event number, as headers (REST) and metadata (gRPC), so a badge needs no second call.

use reqwest::Method;
use serde_json::{json, Value};

use super::{counts_of, minutes_ago, Inbox};
use crate::support::http_client;

/// The answer's status and its `(unread, unseen, last event id)` headers.
async fn change(inbox: &Inbox, token: &str, method: Method, path: &str, body: Option<Value>) -> (u16, [i64; 3]) {
    let mut request =
        http_client().request(method, inbox.server.url(path)).header("authorization", format!("Bearer {token}"));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let header = |name: &str| -> i64 {
        let value = response.headers().get(name).unwrap_or_else(|| panic!("{path} answers {name}"));
        value.to_str().unwrap().parse().unwrap()
    };
    let position = [
        header("herald-inbox-unread-count"),
        header("herald-inbox-unseen-count"),
        header("herald-inbox-last-event-id"),
    ];
    (response.status().as_u16(), position)
}

#[tokio::test(flavor = "multi_thread")]
async fn each_change_answers_the_exact_counts_and_the_event_they_follow() {
    let inbox = Inbox::start(json!({})).await;
    let first = inbox.notify(&inbox.ada, minutes_ago(4)).await;
    let second = inbox.notify(&inbox.ada, minutes_ago(3)).await;
    let third = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    let fourth = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let path = |id: uuid::Uuid, action: &str| format!("/v1/inbox/notifications/{id}/{action}");

    // Reading one marks it seen as well. Its four arrivals took events 1 to 4.
    let answer = change(&inbox, &token, Method::PATCH, &path(first, "read"), None).await;
    assert_eq!(answer, (200, [3, 3, 5]));
    let answer = change(&inbox, &token, Method::PATCH, &path(second, "archive"), None).await;
    assert_eq!(answer, (200, [2, 2, 6]), "an archived notification leaves the counts");
    let until = (chrono::Utc::now() + chrono::TimeDelta::hours(1)).to_rfc3339();
    let answer =
        change(&inbox, &token, Method::PATCH, &path(third, "snooze"), Some(json!({"snoozeUntil": until}))).await;
    assert_eq!(answer, (200, [1, 1, 7]), "so does a snoozed one");
    let answer = change(&inbox, &token, Method::POST, "/v1/inbox/notifications/seen", Some(json!({}))).await;
    // One event per notification it changed: the one shown and the archived one (the snoozed one is
    // out of the inbox until it comes back).
    assert_eq!(answer, (204, [1, 0, 9]), "seen by a bulk change");
    let answer = change(&inbox, &token, Method::POST, "/v1/inbox/notifications/read", Some(json!({}))).await;
    assert_eq!(answer, (204, [0, 0, 11]), "read: the one shown and the archived one");
    let answer = change(&inbox, &token, Method::PATCH, &path(fourth, "unread"), None).await;
    assert_eq!(answer, (200, [1, 0, 12]));
    let answer = change(&inbox, &token, Method::DELETE, &format!("/v1/inbox/notifications/{fourth}"), None).await;
    assert_eq!(answer, (204, [0, 0, 13]));
    // A change that changes nothing writes no event and answers the same position.
    let answer = change(&inbox, &token, Method::POST, "/v1/inbox/notifications/read", Some(json!({}))).await;
    assert_eq!(answer, (204, [0, 0, 13]));
    // What the answers said is what the counts say.
    assert_eq!(counts_of(&inbox, &token, json!([{"read": false}, {"seen": false}])).await, vec![0, 0]);
    let bob = inbox.token("bob").await;
    assert_eq!(counts_of(&inbox, &bob, json!([{"read": false}])).await, vec![1], "another inbox is untouched");
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_changes_answer_the_position_in_their_metadata() {
    use herald::proto::herald::v1 as pb;
    use pb::inbox_mark_enum::InboxMark;

    let inbox = Inbox::start(json!({})).await;
    let id = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let mut client = pb::inbox_service_client::InboxServiceClient::new(inbox.server.grpc_channel().await);
    let message = pb::MarkInboxNotificationRequest {
        notification_id: id.to_string(),
        mark: InboxMark::Read.into(),
        snooze_until: None,
    };
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    let response = client.mark_inbox_notification(request).await.unwrap();
    let metadata = |name: &str| response.metadata().get(name).map(|value| value.to_str().unwrap().to_string());
    assert_eq!(metadata("herald-inbox-unread-count").as_deref(), Some("1"));
    assert_eq!(metadata("herald-inbox-unseen-count").as_deref(), Some("1"));
    assert_eq!(metadata("herald-inbox-last-event-id").as_deref(), Some("3"), "after the two arrivals' events");
    assert!(response.into_inner().data.unwrap().is_read);
}

/// The counts each subscriber's row keeps (`inbox_sequences`) and a recount of what its inbox shows,
/// per subscriber with either, in subscriberId order (ada, bob): `(kept unread, kept unseen, unread,
/// unseen)`.
async fn kept_and_recounted(inbox: &Inbox) -> Vec<(i64, i64, i64, i64)> {
    use diesel::sql_types::BigInt;
    use diesel_async::RunQueryDsl;
    #[derive(diesel::QueryableByName, Debug)]
    struct Row {
        #[diesel(sql_type = BigInt)]
        kept_unread: i64,
        #[diesel(sql_type = BigInt)]
        kept_unseen: i64,
        #[diesel(sql_type = BigInt)]
        unread: i64,
        #[diesel(sql_type = BigInt)]
        unseen: i64,
    }
    let mut conn = inbox.server.pool.get().await.unwrap();
    let rows: Vec<Row> = diesel::sql_query(
        "WITH shown AS (
             SELECT environment_id, subscriber_id, count(*) FILTER (WHERE NOT read) AS unread,
                    count(*) FILTER (WHERE NOT seen) AS unseen
             FROM messages
             WHERE channel = 'in_app' AND archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL
             GROUP BY environment_id, subscriber_id
         )
         SELECT coalesce(s.unread_count, 0) AS kept_unread, coalesce(s.unseen_count, 0) AS kept_unseen,
                coalesce(c.unread, 0) AS unread, coalesce(c.unseen, 0) AS unseen
         FROM inbox_sequences s FULL JOIN shown c USING (environment_id, subscriber_id) AS k
         JOIN subscribers x ON x.id = k.subscriber_id
         ORDER BY x.subscriber_id",
    )
    .load(&mut conn)
    .await
    .unwrap();
    rows.into_iter().map(|r| (r.kept_unread, r.kept_unseen, r.unread, r.unseen)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_kept_counts_follow_every_writer_of_the_messages_the_retention_sweep_included() {
    let inbox = Inbox::start(json!({})).await;
    let forty_days = 40 * 24 * 60;
    let old = [
        inbox.notify(&inbox.ada, minutes_ago(forty_days + 2)).await,
        inbox.notify(&inbox.ada, minutes_ago(forty_days + 1)).await,
    ];
    let mut recent = Vec::new();
    for minutes in (1..=6).rev() {
        recent.push(inbox.notify(&inbox.ada, minutes_ago(minutes)).await);
    }
    inbox.notify(&inbox.bob, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    let path = |id: uuid::Uuid, action: &str| format!("/v1/inbox/notifications/{id}/{action}");

    // The inbox's own marks, one of them on an old message.
    assert_eq!(change(&inbox, &token, Method::PATCH, &path(old[0], "read"), None).await.0, 200);
    assert_eq!(change(&inbox, &token, Method::PATCH, &path(recent[0], "archive"), None).await.0, 200);
    let until = (chrono::Utc::now() + chrono::TimeDelta::hours(1)).to_rfc3339();
    let snooze = Some(json!({"snoozeUntil": until}));
    assert_eq!(change(&inbox, &token, Method::PATCH, &path(recent[1], "snooze"), snooze).await.0, 200);
    assert_eq!(
        change(&inbox, &token, Method::DELETE, &format!("/v1/inbox/notifications/{}", recent[2]), None).await.0,
        204
    );
    // The server API's mark-as: seen, without reading.
    let body = json!({"messageId": recent[3], "markAs": "seen"});
    let (status, _) =
        inbox.env.send(&inbox.server, Method::POST, "/v1/subscribers/ada/messages/mark-as", Some(&body)).await;
    assert_eq!(status, 201);
    let ada = |rows: &[(i64, i64, i64, i64)]| rows[0];
    let rows = kept_and_recounted(&inbox).await;
    // ada shows old[1], recent[3] (seen), recent[4], recent[5]; old[0] is read.
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(ada(&rows), (4, 3, 4, 3), "{rows:?}");

    // The retention sweep deletes the old messages without a word to the inbox: the counts follow.
    herald::engine::retention::sweep(&inbox.server.pool, chrono::Utc::now() - chrono::TimeDelta::days(30))
        .await
        .unwrap();
    let rows = kept_and_recounted(&inbox).await;
    assert_eq!(ada(&rows), (3, 2, 3, 2), "{rows:?}");
    assert!(
        rows.iter().all(|&(kept_unread, kept_unseen, unread, unseen)| (kept_unread, kept_unseen) == (unread, unseen)),
        "{rows:?}"
    );
    // And the answers say the same.
    let answer = change(&inbox, &token, Method::PATCH, &path(recent[5], "read"), None).await;
    assert_eq!(answer.0, 200);
    assert_eq!(&answer.1[..2], &[2, 1]);
}
