//! The token's reach, the listing's filters and cursor, and exact counts.

use chrono::Duration;
use herald::domain::inbox::{InboxSubscriber, SessionTokens};
use herald::domain::tenancy::Tenant;
use herald::proto::herald::v1 as pb;
use reqwest::Method;
use serde_json::json;
use uuid::Uuid;

use super::{ids, minutes_ago, Inbox};
use crate::activity_fixtures::{message, subscriber, workflow, Env, MessageSpec};

#[tokio::test(flavor = "multi_thread")]
async fn a_token_reaches_its_own_subscriber_only() {
    let inbox = Inbox::start(json!({})).await;
    let own = inbox.notify(&inbox.ada, minutes_ago(3)).await;
    let bobs = inbox.notify(&inbox.bob, minutes_ago(2)).await;
    // Another environment, with a subscriber of the same subscriberId.
    let other = Env::other(&inbox.server, "production").await;
    let other_ada = subscriber(&inbox.server, &other, "ada", None).await;
    let other_flow = workflow(&inbox.server, &other, "Other", "none", &[("Inbox", "in_app")]).await;
    let spec = MessageSpec {
        subscriber: &other_ada,
        workflow: &other_flow,
        channel: "in_app",
        transaction_id: "t-other",
        created_at: minutes_ago(1),
    };
    let elsewhere = message(&inbox.server, &other, spec).await;

    let token = inbox.token("ada").await;
    let (status, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!((status, ids(&page)), (200, vec![own.to_string()]));
    for id in [bobs, elsewhere] {
        let (status, body) =
            inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{id}/read"), None).await;
        assert_eq!(
            (status, body["message"].as_str().unwrap()),
            (404, format!("Notification with id {id} not found").as_str())
        );
    }
    let (_, bob_page) = inbox.call(&inbox.token("bob").await, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(bob_page["data"][0]["isRead"], false, "bob's notification is untouched");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_or_expired_token_is_a_401() {
    let inbox = Inbox::start(json!({})).await;
    let ada = InboxSubscriber {
        tenant: Tenant { organization_id: inbox.env.organization_id, environment_id: inbox.env.environment_id },
        id: Uuid::parse_str(inbox.ada["_id"].as_str().unwrap()).unwrap(),
        subscriber_id: "ada".into(),
    };
    let (expired, _) = SessionTokens::new(&inbox.server.cipher).issue(&ada, chrono::Utc::now() - Duration::hours(2));
    let (forged, _) = SessionTokens::new(&herald::crypto::CredentialCipher::random()).issue(&ada, chrono::Utc::now());
    let (valid, _) = SessionTokens::new(&inbox.server.cipher).issue(&ada, chrono::Utc::now());
    for (token, message) in [
        (expired, "Session token expired"),
        (forged, "Invalid session token"),
        ("garbage".into(), "Invalid session token"),
    ] {
        let (status, body) = inbox.call(&token, Method::GET, "/v1/inbox/notifications", None).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["message"], message);
        assert_eq!(body["error"], "Unauthorized");
        assert_eq!(body["path"], "/v1/inbox/notifications");
    }
    let (status, _) = inbox.call(&valid, Method::GET, "/v1/inbox/notifications", None).await;
    assert_eq!(status, 200, "the same claims signed with the server's key pass");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cursor_neither_skips_nor_repeats_while_notifications_arrive() {
    let inbox = Inbox::start(json!({})).await;
    let mut expected = Vec::new();
    for minutes in (1..=7).rev() {
        expected.push(inbox.notify(&inbox.ada, minutes_ago(minutes)).await.to_string());
    }
    expected.reverse(); // newest first
    let token = inbox.token("ada").await;
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let path = match &after {
            Some(cursor) => format!("/v1/inbox/notifications?limit=3&after={cursor}"),
            None => "/v1/inbox/notifications?limit=3".to_string(),
        };
        let (status, page) = inbox.call(&token, Method::GET, &path, None).await;
        assert_eq!(status, 200, "{page}");
        seen.extend(ids(&page));
        // A newer notification arrives between every two pages.
        inbox.notify(&inbox.ada, chrono::Utc::now()).await;
        match page["next"].as_str() {
            Some(next) => {
                assert_eq!(page["hasMore"], true);
                after = Some(next.to_string());
            }
            None => {
                assert_eq!(page["hasMore"], false);
                break;
            }
        }
    }
    assert_eq!(seen, expected);
    // A notification id is a cursor too (what the reference service's clients send).
    let (_, page) =
        inbox.call(&token, Method::GET, &format!("/v1/inbox/notifications?after={}", expected[4]), None).await;
    assert_eq!(ids(&page), expected[5..].to_vec());
    let (status, body) = inbox.call(&token, Method::GET, "/v1/inbox/notifications?after=bogus&limit=101", None).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"].as_object().unwrap().keys().collect::<Vec<_>>(), ["after", "limit"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn filters_select_by_read_archived_seen_and_tags() {
    let inbox = Inbox::start(json!({})).await;
    let read = inbox.notify(&inbox.ada, minutes_ago(3)).await;
    let archived = inbox.notify(&inbox.ada, minutes_ago(2)).await;
    let fresh = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let token = inbox.token("ada").await;
    inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{read}/read"), None).await;
    inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{archived}/archive"), None).await;

    let list = |query: &'static str| {
        let token = token.clone();
        let inbox = &inbox;
        async move {
            let (status, page) =
                inbox.call(&token, Method::GET, &format!("/v1/inbox/notifications?{query}"), None).await;
            assert_eq!(status, 200, "{page}");
            ids(&page)
        }
    };
    assert_eq!(list("read=true").await, [read.to_string()]);
    assert_eq!(list("read=false&archived=false").await, [fresh.to_string()]);
    assert_eq!(list("archived=true").await, [archived.to_string()]);
    assert_eq!(list("seen=false").await, [fresh.to_string(), archived.to_string()]);
    assert_eq!(list("tags=orders").await.len(), 3);
    assert!(list("tags=billing").await.is_empty());
    let (_, page) = inbox.call(&token, Method::GET, "/v1/inbox/notifications?read=false&tags=orders", None).await;
    assert_eq!(page["filter"], json!({"tags": ["orders"], "read": false}));
}

#[tokio::test(flavor = "multi_thread")]
async fn counts_are_exact_beyond_a_hundred_and_one_per_filter() {
    let inbox = Inbox::start(json!({})).await;
    let mut first = None;
    for index in 0..130 {
        let id = inbox.notify(&inbox.ada, minutes_ago(200 - index)).await;
        first.get_or_insert(id);
    }
    let token = inbox.token("ada").await;
    inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{}/read", first.unwrap()), None).await;
    let filters = json!([{}, {"read": false}, {"read": true}, {"tags": ["billing"]}]).to_string();
    let path = format!("/v1/inbox/notifications/count?filters={}", urlencode(&filters));
    let (status, body) = inbox.call(&token, Method::GET, &path, None).await;
    assert_eq!(status, 200, "{body}");
    let counts: Vec<i64> =
        body["data"].as_array().unwrap().iter().map(|count| count["count"].as_i64().unwrap()).collect();
    assert_eq!(counts, [130, 129, 1, 0]);
    assert_eq!(body["data"][1]["filter"], json!({"tags": [], "read": false}));

    let too_many = json!(vec![json!({}); 31]).to_string();
    let (status, body) = inbox
        .call(&token, Method::GET, &format!("/v1/inbox/notifications/count?filters={}", urlencode(&too_many)), None)
        .await;
    assert_eq!((status, body["errors"]["filters"].is_object()), (422, true), "{body}");
    let (status, _) = inbox.call(&token, Method::GET, "/v1/inbox/notifications/count?filters=nope", None).await;
    assert_eq!(status, 422);
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_serves_the_inbox_with_the_session_token() {
    let inbox = Inbox::start(json!({})).await;
    let id = inbox.notify(&inbox.ada, minutes_ago(1)).await;
    let channel = inbox.server.grpc_channel().await;

    let mut sessions = pb::inbox_session_service_client::InboxSessionServiceClient::new(channel.clone());
    let request = pb::CreateInboxSessionRequest {
        application_identifier: inbox.application_identifier.clone(),
        subscriber_id: Some("ada".into()),
        ..Default::default()
    };
    let session = sessions.create_inbox_session(request).await.unwrap().into_inner().data.unwrap();
    assert_eq!(session.total_unread_count, 1);

    let mut client = pb::inbox_service_client::InboxServiceClient::new(channel);
    let mut list = tonic::Request::new(pb::ListInboxNotificationsRequest::default());
    list.metadata_mut().insert("authorization", format!("Bearer {}", session.token).parse().unwrap());
    let page = client.list_inbox_notifications(list).await.unwrap().into_inner();
    assert_eq!(page.data.iter().map(|n| n.id.clone()).collect::<Vec<_>>(), [id.to_string()]);

    let mut with_api_key = tonic::Request::new(pb::ListInboxNotificationsRequest::default());
    with_api_key.metadata_mut().insert("authorization", inbox.server.authorization().parse().unwrap());
    let refused = client.list_inbox_notifications(with_api_key).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
}

fn urlencode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}
