//! Messages: the listing with its filters and paging, mark-as and its state table, and isolation
//! between environments. The engine's rows are fixtures (SQL).

use chrono::{DateTime, Duration, Utc};
use diesel::sql_types::{Integer, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use herald::domain::messages::{list_messages, MessageQuery};
use herald::domain::tenancy::Tenant;
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::activity_fixtures::{
    assert_invalid_fields, assert_timestamp, keys, message, millis, read_state, subscriber, workflow, Env, MessageSpec,
};
use crate::support::{rows_read_in_transaction, TestServer};

/// The keys of a listed in-app message: every required field, the present optional ones, and the
/// nullable ones (`_feedId` here) as `null`. No `contextKeys`: the spec shows them on mark-as only.
const IN_APP_KEYS: [&str; 25] = [
    "_environmentId",
    "_feedId",
    "_id",
    "_messageTemplateId",
    "_notificationId",
    "_organizationId",
    "_subscriberId",
    "_templateId",
    "channel",
    "content",
    "createdAt",
    "cta",
    "deliveredAt",
    "deviceTokens",
    "overrides",
    "payload",
    "providerId",
    "read",
    "seen",
    "status",
    "subject",
    "subscriber",
    "template",
    "templateIdentifier",
    "transactionId",
];

struct Setup {
    server: TestServer,
    env: Env,
    ada: Value,
    bob: Value,
    flow: Value,
}

async fn setup() -> Setup {
    let server = TestServer::start().await;
    let env = Env::main(&server);
    let ada = subscriber(&server, &env, "user-1", Some("ada@example.com")).await;
    let bob = subscriber(&server, &env, "user-2", Some("bob@example.com")).await;
    let flow = workflow(&server, &env, "Order shipped", "none", &[("Inbox", "in_app"), ("Mail", "email")]).await;
    Setup { server, env, ada, bob, flow }
}

impl Setup {
    async fn message(&self, who: &Value, channel: &str, transaction_id: &str, minutes_ago: i64) -> Uuid {
        let spec = MessageSpec {
            subscriber: who,
            workflow: &self.flow,
            channel,
            transaction_id,
            created_at: Utc::now() - Duration::minutes(minutes_ago),
        };
        message(&self.server, &self.env, spec).await
    }

    async fn listed(&self, query: &str) -> Vec<Uuid> {
        let (status, body) = self.server.get_json(&format!("/v1/messages{query}")).await;
        assert_eq!(status, 200, "{query}: {body}");
        body["data"].as_array().unwrap().iter().map(|m| Uuid::parse_str(m["_id"].as_str().unwrap()).unwrap()).collect()
    }

    async fn mark(&self, subscriber_id: &str, body: Value) -> (u16, Value) {
        let path = format!("/v1/subscribers/{subscriber_id}/messages/mark-as");
        self.server.send_json(Method::POST, &path, &body).await
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listing_shows_every_required_field_with_subscriber_and_template() {
    let s = setup().await;
    let created_at = Utc::now() - Duration::minutes(3);
    let spec =
        MessageSpec { subscriber: &s.ada, workflow: &s.flow, channel: "in_app", transaction_id: "txn-1", created_at };
    let id = message(&s.server, &s.env, spec.clone()).await;
    let spec = MessageSpec { channel: "email", created_at: created_at + Duration::minutes(1), ..spec };
    let email_id = message(&s.server, &s.env, spec).await;

    let (status, body) = s.server.get_json("/v1/messages").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(keys(&body), ["data", "hasMore", "page", "pageSize", "totalCount"]);
    assert_eq!(
        (&body["totalCount"], &body["hasMore"], &body["page"], &body["pageSize"]),
        (&json!(2), &json!(false), &json!(0), &json!(10))
    );
    let email = &body["data"][0];
    let in_app = &body["data"][1];
    assert_eq!((email["_id"].as_str(), in_app["_id"].as_str()), (Some(&*email_id.to_string()), Some(&*id.to_string())));

    assert_eq!(keys(in_app), IN_APP_KEYS, "{in_app}");
    assert_eq!(in_app["_environmentId"], s.server.environment_id.to_string());
    assert_eq!(in_app["_organizationId"], s.server.organization_id.to_string());
    assert_eq!(in_app["_subscriberId"], s.ada["_id"]);
    assert_eq!(in_app["_templateId"], s.flow["_id"]);
    assert_eq!(in_app["_messageTemplateId"], s.flow["steps"][0]["_id"]);
    assert_eq!(in_app["_feedId"], Value::Null);
    assert!(Uuid::parse_str(in_app["_notificationId"].as_str().unwrap()).is_ok());
    assert_eq!(in_app["templateIdentifier"], "order-shipped");
    assert_eq!(in_app["createdAt"], millis(created_at));
    assert_eq!(in_app["deliveredAt"], json!([millis(created_at)]));
    assert_eq!(in_app["transactionId"], "txn-1");
    assert_eq!(in_app["channel"], "in_app");
    assert_eq!((&in_app["read"], &in_app["seen"], &in_app["status"]), (&json!(false), &json!(false), &json!("sent")));
    assert_eq!(in_app["subject"], "Hi");
    assert_eq!(in_app["content"], "Order A-1 for Ada");
    assert_eq!(
        in_app["cta"],
        json!({"type": "redirect", "data": {"url": "/orders/A-1"},
               "action": {"status": "pending", "buttons": [{"type": "primary", "content": "Open"}]}})
    );
    assert_eq!(in_app["payload"], json!({"orderId": "A-1", "total": 12}));
    assert_eq!((&in_app["overrides"], &in_app["deviceTokens"]), (&json!({}), &json!([])));
    assert_eq!(in_app["providerId"], "svc");

    // The subscriber is the full Subscriber, exactly as the subscriber API shows it.
    let (_, fetched) = s.server.get_json("/v2/subscribers/user-1").await;
    assert_eq!(in_app["subscriber"], fetched);
    assert_eq!(in_app["subscriber"]["phone"], Value::Null, "nullable subscriber fields are present");
    // The template is the workflow's template form.
    let template = &in_app["template"];
    assert_eq!(template["_id"], s.flow["_id"]);
    assert_eq!(template["name"], "Order shipped");
    assert_eq!(template["triggers"][0]["identifier"], "order-shipped");
    assert_eq!(template["steps"].as_array().unwrap().len(), 2);
    assert_eq!(template["steps"][0]["_id"], s.flow["steps"][0]["_id"]);

    assert_eq!(email["cta"], json!({}), "cta is always present");
    assert_eq!(email["email"], "ada@example.com");
    assert_eq!(
        email["content"],
        json!([{"type": "text", "content": "Your order shipped", "styles": {"textAlign": "left"}},
               {"type": "button", "content": "Track", "url": "https://example.com/t"}])
    );
    assert!(email.get("contextKeys").is_none() && email.get("lastSeenDate").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listing_filters_by_channel_subscriber_and_transaction_ids() {
    let s = setup().await;
    let a1 = s.message(&s.ada, "in_app", "txn-1", 5).await;
    let a2 = s.message(&s.ada, "email", "txn-2", 4).await;
    let b1 = s.message(&s.bob, "in_app", "txn-1", 3).await;
    let b2 = s.message(&s.bob, "sms", "txn-3", 2).await;

    assert_eq!(s.listed("").await, [b2, b1, a2, a1], "newest first");
    assert_eq!(s.listed("?channel=in_app").await, [b1, a1]);
    assert_eq!(s.listed("?channel=email").await, [a2]);
    assert!(s.listed("?channel=push").await.is_empty());
    assert_eq!(s.listed("?subscriberId=user-1").await, [a2, a1], "the client's id");
    assert_eq!(s.listed("?subscriberId=user-2&channel=in_app").await, [b1]);
    assert!(s.listed("?subscriberId=ghost").await.is_empty());
    let internal = s.ada["_id"].as_str().unwrap();
    assert!(s.listed(&format!("?subscriberId={internal}")).await.is_empty());
    assert_eq!(s.listed("?transactionId=txn-1").await, [b1, a1], "a single value");
    assert_eq!(s.listed("?transactionId=txn-1&transactionId=txn-3").await, [b2, b1, a1], "repeated keys");
    assert_eq!(s.listed("?transactionId[]=txn-2&transactionId[]=txn-3").await, [b2, a2], "bracketed keys");
    assert!(s.listed("?transactionId=txn").await.is_empty());

    let (status, body) = s.server.get_json("/v1/messages?channel=fax").await;
    assert_invalid_fields(status, &body, &["channel"]);
    assert_eq!(body["errors"]["channel"]["value"], "fax");
}

#[tokio::test(flavor = "multi_thread")]
async fn pages_carry_total_count_and_has_more_and_limits_are_bounded() {
    let s = setup().await;
    let mut all = Vec::new();
    for minutes in (1..=5).rev() {
        all.push(s.message(&s.ada, "in_app", &format!("t-{minutes}"), minutes).await);
    }
    all.reverse();
    let mut seen = Vec::new();
    for (page, (size, more)) in [(2, true), (2, true), (1, false)].into_iter().enumerate() {
        let (status, body) = s.server.get_json(&format!("/v1/messages?page={page}&limit=2.0")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"].as_array().unwrap().len(), size);
        assert_eq!(
            (&body["totalCount"], &body["hasMore"], &body["page"], &body["pageSize"]),
            (&json!(5), &json!(more), &json!(page), &json!(2))
        );
        seen.extend(
            body["data"].as_array().unwrap().iter().map(|m| Uuid::parse_str(m["_id"].as_str().unwrap()).unwrap()),
        );
    }
    assert_eq!(seen, all, "every message once, newest first");
    let (_, filtered) = s.server.get_json("/v1/messages?transactionId=t-1&transactionId=t-2&limit=1").await;
    assert_eq!((&filtered["totalCount"], &filtered["hasMore"]), (&json!(2), &json!(true)));

    let (status, body) = s.server.get_json("/v1/messages?limit=0&page=-1").await;
    assert_invalid_fields(status, &body, &["limit", "page"]);
    let (status, body) = s.server.get_json("/v1/messages?limit=1001").await;
    assert_invalid_fields(status, &body, &["limit"]);
    let (status, body) = s.server.get_json("/v1/messages?limit=1000").await;
    assert_eq!((status, &body["pageSize"]), (200, &json!(1000)));
    let (status, body) = s.server.get_json("/v1/messages?page=abc").await;
    assert_invalid_fields(status, &body, &["page"]);
}

fn instant(value: &Value) -> DateTime<Utc> {
    assert_timestamp(value);
    DateTime::parse_from_rfc3339(value.as_str().unwrap()).unwrap().with_timezone(&Utc)
}

#[tokio::test(flavor = "multi_thread")]
async fn mark_as_stamps_by_the_engine_clock() {
    let s = setup().await;
    let message = s.message(&s.ada, "in_app", "t", 1).await;
    s.server.clock.advance(Duration::days(2));
    let (status, body) = s.mark("user-1", json!({"messageId": message.to_string(), "markAs": "read"})).await;
    assert_eq!(status, 201, "{body}");
    assert!(instant(&body[0]["lastReadDate"]) > Utc::now() + Duration::days(1), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn mark_as_follows_the_state_table() {
    let s = setup().await;
    let [read, unread, seen, unseen] = [
        s.message(&s.ada, "in_app", "t", 4).await,
        s.message(&s.ada, "in_app", "t", 3).await,
        s.message(&s.ada, "in_app", "t", 2).await,
        s.message(&s.ada, "in_app", "t", 1).await,
    ];
    let start = Utc::now() - Duration::milliseconds(1);

    let (status, body) = s.mark("user-1", json!({"messageId": read.to_string(), "markAs": "read"})).await;
    assert_eq!(status, 201, "{body}");
    let marked = &body[0];
    assert_eq!((&marked["read"], &marked["seen"]), (&json!(true), &json!(true)));
    assert!(instant(&marked["lastReadDate"]) >= start && instant(&marked["lastSeenDate"]) >= start);
    let (r, s_, last_read, last_seen) = read_state(&s.server, read).await;
    assert_eq!((r, s_, last_read.is_some(), last_seen.is_some()), (true, true, true, true));

    let (_, body) = s.mark("user-1", json!({"messageId": unread.to_string(), "markAs": "unread"})).await;
    assert_eq!((&body[0]["read"], &body[0]["seen"]), (&json!(false), &json!(true)));
    assert!(instant(&body[0]["lastReadDate"]) >= start && instant(&body[0]["lastSeenDate"]) >= start);

    let (_, body) = s.mark("user-1", json!({"messageId": seen.to_string(), "markAs": "seen"})).await;
    assert_eq!((&body[0]["read"], &body[0]["seen"]), (&json!(false), &json!(true)));
    assert!(instant(&body[0]["lastSeenDate"]) >= start);
    assert!(body[0].get("lastReadDate").is_none(), "seen leaves lastReadDate alone: {}", body[0]);

    let (_, body) = s.mark("user-1", json!({"messageId": unseen.to_string(), "markAs": "unseen"})).await;
    assert_eq!((&body[0]["read"], &body[0]["seen"]), (&json!(false), &json!(false)));
    assert!(instant(&body[0]["lastSeenDate"]) >= start);
    assert!(body[0].get("lastReadDate").is_none());

    // `seen`/`unseen` keep `read` and `lastReadDate`; `unread` moves both dates again.
    let (.., first_read, _) = read_state(&s.server, read).await;
    let (_, body) = s.mark("user-1", json!({"messageId": read.to_string(), "markAs": "unseen"})).await;
    assert_eq!((&body[0]["read"], &body[0]["seen"]), (&json!(true), &json!(false)));
    assert_eq!(read_state(&s.server, read).await.2, first_read, "lastReadDate kept");
    let (_, body) = s.mark("user-1", json!({"messageId": read.to_string(), "markAs": "unread"})).await;
    assert_eq!((&body[0]["read"], &body[0]["seen"]), (&json!(false), &json!(true)));
    assert!(read_state(&s.server, read).await.2 > first_read, "lastReadDate moves");
}

#[tokio::test(flavor = "multi_thread")]
async fn mark_as_takes_one_id_or_an_array_and_answers_the_messages_in_request_order() {
    let s = setup().await;
    let first = s.message(&s.ada, "in_app", "t", 3).await;
    let second = s.message(&s.ada, "in_app", "t", 2).await;
    let untouched = s.message(&s.ada, "in_app", "t", 1).await;

    let (status, body) = s.mark("user-1", json!({"messageId": first.to_string(), "markAs": "seen"})).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body.as_array().unwrap().len(), 1, "a bare array: {body}");
    assert_eq!(body[0]["_id"], first.to_string());
    assert_eq!(body[0]["contextKeys"], json!(["tenant:acme"]), "the mark-as shape carries contextKeys");
    let mut expected: Vec<&str> = IN_APP_KEYS.to_vec();
    expected.extend(["contextKeys", "lastSeenDate"]);
    expected.sort();
    assert_eq!(keys(&body[0]), expected);

    let ids = json!([second.to_string(), first.to_string(), second.to_string().to_uppercase()]);
    let (status, body) = s.mark("user-1", json!({"messageId": ids, "markAs": "read"})).await;
    assert_eq!(status, 201, "{body}");
    let answered: Vec<&str> = body.as_array().unwrap().iter().map(|m| m["_id"].as_str().unwrap()).collect();
    assert_eq!(answered, [second.to_string(), first.to_string()], "request order, each id once");
    assert!(body.as_array().unwrap().iter().all(|m| m["read"] == true && m["seen"] == true));
    assert_eq!(read_state(&s.server, untouched).await, (false, false, None, None));
}

#[tokio::test(flavor = "multi_thread")]
async fn mark_as_with_an_id_that_is_not_the_subscribers_is_404_and_changes_nothing() {
    let s = setup().await;
    let mine = s.message(&s.ada, "in_app", "t", 2).await;
    let bobs = s.message(&s.bob, "in_app", "t", 1).await;
    let ghost = Uuid::now_v7();

    let ids = json!([mine.to_string(), bobs.to_string(), ghost.to_string(), "not-an-id"]);
    let (status, body) = s.mark("user-1", json!({"messageId": ids, "markAs": "read"})).await;
    assert_eq!(status, 404, "{body}");
    let text = body["message"].as_str().unwrap();
    for unknown in [bobs.to_string(), ghost.to_string(), "not-an-id".into()] {
        assert!(text.contains(&unknown), "{text} names {unknown}");
    }
    assert!(!text.contains(&mine.to_string()), "{text}");
    assert_eq!(read_state(&s.server, mine).await, (false, false, None, None), "nothing changed");
    assert_eq!(read_state(&s.server, bobs).await, (false, false, None, None));
}

#[tokio::test(flavor = "multi_thread")]
async fn mark_as_for_an_unknown_subscriber_is_404() {
    let s = setup().await;
    let mine = s.message(&s.ada, "in_app", "t", 1).await;
    let (status, body) = s.mark("ghost", json!({"messageId": mine.to_string(), "markAs": "read"})).await;
    assert_eq!(status, 404, "{body}");
    assert!(body["message"].as_str().unwrap().contains("ghost"), "{body}");
    assert_eq!(read_state(&s.server, mine).await, (false, false, None, None));
}

#[tokio::test(flavor = "multi_thread")]
async fn mark_as_without_ids_or_state_is_422_and_a_wrong_type_is_400() {
    let s = setup().await;
    let mine = s.message(&s.ada, "in_app", "t", 1).await;
    let (status, body) = s.mark("user-1", json!({"messageId": []})).await;
    assert_invalid_fields(status, &body, &["markAs", "messageId"]);
    let (status, body) = s.mark("user-1", json!({})).await;
    assert_invalid_fields(status, &body, &["markAs", "messageId"]);
    let (status, body) = s.mark("user-1", json!({"messageId": mine.to_string(), "markAs": "archived"})).await;
    assert_invalid_fields(status, &body, &["markAs"]);
    assert_eq!(body["errors"]["markAs"]["value"], "archived");
    let (status, body) = s.mark("user-1", json!({"messageId": 7, "markAs": "read"})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("messageId"), "{body}");
    assert_eq!(read_state(&s.server, mine).await, (false, false, None, None));
}

#[tokio::test(flavor = "multi_thread")]
async fn environments_never_see_or_mark_each_others_messages() {
    let s = setup().await;
    let other = Env::other(&s.server, "production").await;
    let their_ada = subscriber(&s.server, &other, "user-1", Some("ada@example.com")).await;
    let their_flow = workflow(&s.server, &other, "Order shipped", "none", &[("Inbox", "in_app")]).await;
    let mine = s.message(&s.ada, "in_app", "txn-1", 2).await;
    let spec = MessageSpec {
        subscriber: &their_ada,
        workflow: &their_flow,
        channel: "in_app",
        transaction_id: "txn-1",
        created_at: Utc::now() - Duration::minutes(1),
    };
    let theirs = message(&s.server, &other, spec).await;

    for query in ["", "?subscriberId=user-1", "?transactionId=txn-1", "?channel=in_app"] {
        assert_eq!(s.listed(query).await, [mine], "{query}");
        let (_, body) = other.get(&s.server, &format!("/v1/messages{query}")).await;
        assert_eq!((&body["totalCount"], &body["data"][0]["_id"]), (&json!(1), &json!(theirs.to_string())), "{query}");
    }
    let (status, body) = s.mark("user-1", json!({"messageId": theirs.to_string(), "markAs": "read"})).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(read_state(&s.server, theirs).await, (false, false, None, None));
    let path = "/v1/subscribers/user-1/messages/mark-as";
    let body = json!({"messageId": [theirs.to_string()], "markAs": "read"});
    let (status, marked) = other.send(&s.server, Method::POST, path, Some(&body)).await;
    assert_eq!((status, &marked[0]["read"]), (201, &json!(true)), "{marked}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transaction_id_filter_reads_its_messages_in_an_environment_newer_than_the_statistics() {
    // Statistics taken while the main environment alone had messages: the planner believes the other
    // has none. Joining its messages to its notifications by walking both for each other read 181,332
    // rows; walking its notifications once reads about twice 301 (the page and its count).
    let s = setup().await;
    let mine = s.message(&s.ada, "in_app", "mine", 5).await;
    copy_message(&s.server, mine, 2_000).await;
    let mut conn = AsyncPgConnection::establish(&s.server.database_url).await.unwrap();
    conn.batch_execute("ANALYZE messages; ANALYZE notifications").await.unwrap();
    let other = Env::other(&s.server, "production").await;
    let their_ada = subscriber(&s.server, &other, "user-1", Some("ada@example.com")).await;
    let their_flow = workflow(&s.server, &other, "Order shipped", "none", &[("Inbox", "in_app")]).await;
    let spec = MessageSpec {
        subscriber: &their_ada,
        workflow: &their_flow,
        channel: "in_app",
        transaction_id: "theirs",
        created_at: Utc::now(),
    };
    let theirs = message(&s.server, &other, spec).await;
    copy_message(&s.server, theirs, 300).await;

    // The transaction's own statistics count the rows it read.
    conn.begin_test_transaction().await.unwrap();
    let tenant = Tenant { organization_id: other.organization_id, environment_id: other.environment_id };
    let query = MessageQuery { transaction_ids: vec!["theirs-7".into(), "mine-7".into()], ..Default::default() };
    let page = list_messages(&mut conn, tenant, query).await.unwrap();
    assert_eq!((page.total_count, page.messages.len()), (1, 1));
    assert_eq!(page.messages[0].row.transaction_id, "theirs-7");
    let read = rows_read_in_transaction(&mut conn, &["messages", "notifications"]).await;
    assert!(read <= 1_000, "a page of one message and its count read {read} rows (301 of the environment's)");
}

/// Stores `copies` copies of message `id` and of its notification, with the transactionIds
/// `<its transactionId>-1`, `-2`…, in one statement.
async fn copy_message(server: &TestServer, id: Uuid, copies: i32) {
    let mut conn = server.pool.get().await.unwrap();
    diesel::sql_query(
        "WITH source AS (
             SELECT m AS message, n AS notification FROM messages m JOIN notifications n ON n.id = m.notification_id
             WHERE m.id = $1),
         copies AS (SELECT gen_random_uuid() AS notification_id, source.*, g FROM source, generate_series(1, $2) g),
         notified AS (
             INSERT INTO notifications
             SELECT (jsonb_populate_record(NULL::notifications, to_jsonb(notification) || jsonb_build_object(
                 'id', notification_id, 'transaction_id', (notification).transaction_id || '-' || g))).*
             FROM copies)
         INSERT INTO messages
         SELECT (jsonb_populate_record(NULL::messages, to_jsonb(message) || jsonb_build_object(
             'id', gen_random_uuid(), 'job_id', gen_random_uuid(), 'notification_id', notification_id,
             'transaction_id', (message).transaction_id || '-' || g))).*
         FROM copies",
    )
    .bind::<SqlUuid, _>(id)
    .bind::<Integer, _>(copies)
    .execute(&mut conn)
    .await
    .unwrap();
}
