//! Triggers to topics: each member once (across topics, with direct recipients, without the actor and
//! the excluded), unknown and empty topics acknowledged with no notification, the membership as of the
//! trigger, and a 20,000-member topic expanded in pages.

use std::time::Duration;

use diesel_async::{AsyncPgConnection, RunQueryDsl};
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::engine::fixtures::{count, create_workflow, in_app_step, trigger_processed, wait_until_settled};
use crate::support::TestServer;

/// Creates `n` subscribers `<key>-<i>` and the topic `key` with all of them as members, in three
/// statements (seeding, not the API under test).
pub async fn seed_topic(conn: &mut AsyncPgConnection, environment_id: Uuid, key: &str, n: i64) {
    for sql in [
        "INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id)
         SELECT gen_random_uuid(), e.id, e.organization_id, $2 || '-' || i
         FROM environments e, generate_series(1, $3) AS i WHERE e.id = $1",
        "INSERT INTO topics (id, environment_id, organization_id, key, name)
         SELECT gen_random_uuid(), e.id, e.organization_id, $2, $2 FROM environments e WHERE e.id = $1 AND $3 > 0",
        "INSERT INTO topic_subscribers (topic_id, subscriber_id, environment_id, external_subscriber_id, created_at)
         SELECT t.id, s.id, s.environment_id, s.subscriber_id, now() - interval '1 minute'
         FROM topics t JOIN subscribers s ON s.environment_id = t.environment_id AND s.subscriber_id LIKE $2 || '-%'
         WHERE t.environment_id = $1 AND t.key = $2 AND $3 > 0",
    ] {
        diesel::sql_query(sql)
            .bind::<diesel::sql_types::Uuid, _>(environment_id)
            .bind::<diesel::sql_types::Text, _>(key)
            .bind::<diesel::sql_types::BigInt, _>(n)
            .execute(conn)
            .await
            .unwrap();
    }
}

/// Waits until every topic fan-out of the server's schema is completed, then until its jobs settle.
pub async fn wait_until_fanned_out(server: &TestServer) {
    for _ in 0..1200 {
        if count(server, "topic_fanouts WHERE status <> 'completed'").await == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("topic fan-outs still open after 60 s");
}

async fn add(server: &TestServer, key: &str, subscribers: &[&str]) {
    for id in subscribers {
        server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": id})).await;
    }
    let (status, body) = server
        .send_json(Method::POST, &format!("/v1/topics/{key}/subscribers"), &json!({"subscribers": subscribers}))
        .await;
    assert_eq!(status, 200, "{body}");
}

/// subscriberId → number of notifications of the transaction.
async fn recipients_of(server: &TestServer, transaction_id: &str) -> Vec<(String, i64)> {
    #[derive(diesel::QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::Text)]
        subscriber_id: String,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = server.pool.get().await.unwrap();
    let rows: Vec<Row> = diesel::sql_query(
        "SELECT s.subscriber_id, count(*) AS n FROM notifications n JOIN subscribers s ON s.id = n.subscriber_id
         WHERE n.transaction_id = $1 GROUP BY s.subscriber_id ORDER BY s.subscriber_id",
    )
    .bind::<diesel::sql_types::Text, _>(transaction_id)
    .load(&mut conn)
    .await
    .unwrap();
    rows.into_iter().map(|row| (row.subscriber_id, row.n)).collect()
}

fn once(ids: &[&str]) -> Vec<(String, i64)> {
    ids.iter().map(|id| (id.to_string(), 1)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_member_gets_the_event_once_across_topics_and_direct_naming_but_not_the_actor_or_excluded() {
    let server = TestServer::start().await;
    create_workflow(&server, "news", json!([in_app_step()])).await;
    add(&server, "a", &["a1", "a2", "both", "direct"]).await;
    add(&server, "b", &["both", "b1", "actor"]).await;

    let body = json!({"name": "news", "payload": {"orderId": 7}, "actor": "actor", "exclude": ["a2"],
        "to": [{"type": "Topic", "topicKey": "a"}, {"type": "Topic", "topicKey": "b"}, "direct"]});
    let transaction_id = trigger_processed(&server, body).await;
    wait_until_fanned_out(&server).await;
    wait_until_settled(&server).await;

    assert_eq!(recipients_of(&server, &transaction_id).await, once(&["a1", "b1", "both", "direct"]));
    assert_eq!(count(&server, "messages").await, 4, "one in-app message each");
    // Members reached through a topic get the event as triggered: payload, actor, workflow.
    let (_, messages) = server.get_json("/v1/messages?subscriberId=b1").await;
    assert_eq!(messages["data"][0]["content"], "Hi there, order 7 shipped", "{messages}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_activity_feed_shows_the_topics_of_an_events_trigger_and_filters_by_topic_key() {
    let server = TestServer::start().await;
    create_workflow(&server, "news", json!([in_app_step()])).await;
    add(&server, "a", &["a1", "both"]).await;
    add(&server, "b", &["both", "b1"]).await;
    let to_topics = trigger_processed(
        &server,
        json!({"name": "news", "to": [{"type": "Topic", "topicKey": "a"}, {"type": "Topic", "topicKey": "b"}, "direct"]}),
    )
    .await;
    let direct_only = trigger_processed(&server, json!({"name": "news", "to": "direct"})).await;
    wait_until_fanned_out(&server).await;
    wait_until_settled(&server).await;
    let topic_id = |key: &'static str| {
        let server = &server;
        async move { server.get_json(&format!("/v1/topics/{key}")).await.1["_id"].clone() }
    };
    let (a, b) = (topic_id("a").await, topic_id("b").await);

    // Every event of the trigger sent to a topic, its direct recipient's too, and none of the other's.
    let listed = |query: &'static str| {
        let server = &server;
        async move {
            let (status, body) = server.get_json(&format!("/v1/notifications{query}")).await;
            assert_eq!(status, 200, "{body}");
            body["data"].as_array().unwrap().clone()
        }
    };
    for key in ["?topicKey=a", "?topicKey=b"] {
        let events = listed(key).await;
        let mut reached: Vec<&str> =
            events.iter().map(|event| event["subscriber"]["subscriberId"].as_str().unwrap()).collect();
        reached.sort();
        assert_eq!(reached, ["a1", "b1", "both", "direct"], "{key}");
        for event in &events {
            assert_eq!(event["transactionId"], to_topics.as_str());
            assert_eq!(event["topics"], json!([{"_topicId": a, "topicKey": "a"}, {"_topicId": b, "topicKey": "b"}]));
        }
    }
    assert!(listed("?topicKey=nope").await.is_empty(), "no trigger was sent to an unknown topic");
    let direct = listed("?subscriberIds=direct").await;
    assert_eq!(direct.len(), 2);
    let of_direct_only = direct.iter().find(|event| event["transactionId"] == direct_only.as_str()).unwrap();
    assert_eq!(of_direct_only["topics"], json!([]), "a trigger naming only subscribers has no topics");

    // A topic deleted since keeps its key on the events sent through it; its id is gone.
    let removal = json!({"subscribers": ["both", "b1"]});
    let (status, body) = server.send_json(Method::POST, "/v1/topics/b/subscribers/removal", &removal).await;
    assert_eq!(status, 204, "{body}");
    let deleted = server.request(Method::DELETE, "/v1/topics/b").send().await.unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let events = listed("?topicKey=b").await;
    assert_eq!(events.len(), 4);
    assert_eq!(events[0]["topics"], json!([{"_topicId": a, "topicKey": "a"}, {"_topicId": "", "topicKey": "b"}]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_topic_alone_is_a_recipient_and_unknown_or_empty_topics_are_acknowledged_with_no_notification() {
    let server = TestServer::start().await;
    create_workflow(&server, "news", json!([in_app_step()])).await;
    add(&server, "solo", &["s1"]).await;
    let (status, body) = server.send_json(Method::POST, "/v1/topics", &json!({"key": "empty", "name": "Empty"})).await;
    assert_eq!(status, 201, "{body}");

    // A bare topic object as `to`, as the reference's clients send it.
    let alone = trigger_processed(&server, json!({"name": "news", "to": {"type": "Topic", "topicKey": "solo"}})).await;
    let unknown =
        trigger_processed(&server, json!({"name": "news", "to": [{"type": "Topic", "topicKey": "nope"}]})).await;
    let empty =
        trigger_processed(&server, json!({"name": "news", "to": [{"type": "Topic", "topicKey": "empty"}]})).await;
    wait_until_fanned_out(&server).await;
    wait_until_settled(&server).await;

    assert_eq!(recipients_of(&server, &alone).await, once(&["s1"]));
    assert!(recipients_of(&server, &unknown).await.is_empty());
    assert!(recipients_of(&server, &empty).await.is_empty());
    assert_eq!(count(&server, "notifications").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_event_reaches_the_members_as_of_the_trigger() {
    let server = TestServer::start().await;
    create_workflow(&server, "news", json!([in_app_step()])).await;
    add(&server, "t", &["early"]).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let accepted = chrono::Utc::now();
    tokio::time::sleep(Duration::from_millis(20)).await;
    add(&server, "t", &["late"]).await;

    // The trigger is accepted at `accepted` (the engine's clock): "late" joined after it.
    server.clock.set(accepted);
    let transaction_id =
        trigger_processed(&server, json!({"name": "news", "to": [{"type": "Topic", "topicKey": "t"}]})).await;
    wait_until_fanned_out(&server).await;
    assert_eq!(recipients_of(&server, &transaction_id).await, once(&["early"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_20000_member_topic_is_expanded_to_one_notification_and_its_jobs_per_member() {
    const MEMBERS: i64 = 20_000;
    let server = TestServer::start().await;
    // A delay step keeps the workers from delivering: the test is about the expansion.
    create_workflow(
        &server,
        "big",
        json!([{"name": "Wait", "type": "delay", "controlValues": {"amount": 1, "unit": "days"}}, in_app_step()]),
    )
    .await;
    {
        let mut conn = server.pool.get().await.unwrap();
        seed_topic(&mut conn, server.environment_id, "big", MEMBERS).await;
    }
    let started = std::time::Instant::now();
    let transaction_id =
        trigger_processed(&server, json!({"name": "big", "to": [{"type": "Topic", "topicKey": "big"}, "big-7"]})).await;
    assert!(started.elapsed() < Duration::from_secs(5), "the trigger does not wait for the fan-out");
    wait_until_fanned_out(&server).await;

    let per_member = recipients_of(&server, &transaction_id).await;
    assert_eq!(per_member.len() as i64, MEMBERS);
    assert!(per_member.iter().all(|(_, n)| *n == 1), "no member twice");
    assert_eq!(count(&server, "jobs").await, MEMBERS * 2, "a delay and an in-app job per member");
    // The delay ran in its page: each is parked until its end, the in-app step after it still waits.
    assert_eq!(count(&server, "jobs WHERE type = 'delay' AND status = 'delayed' AND attempts = 1").await, MEMBERS);
    assert_eq!(count(&server, "jobs WHERE type = 'in_app' AND status = 'pending'").await, MEMBERS);
    let progress: Value = {
        #[derive(diesel::QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::Jsonb)]
            row: Value,
        }
        let mut conn = server.pool.get().await.unwrap();
        let row: Row = diesel::sql_query(
            "SELECT jsonb_build_object('status', status, 'attempts', attempts) AS row FROM topic_fanouts",
        )
        .get_result(&mut conn)
        .await
        .unwrap();
        row.row
    };
    assert_eq!(progress, json!({"status": "completed", "attempts": 1}));
}

/// A fan-out whose lease lapses while its process expands it (pages slower than the lease) is not
/// claimed again by that process: claimed twice under one name, it was expanded twice at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_process_does_not_claim_again_the_fan_out_it_is_expanding() {
    const MEMBERS: i64 = 5_000;
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "crowded", json!([in_app_step()])).await;
    {
        let mut conn = server.pool.get().await.unwrap();
        seed_topic(&mut conn, server.environment_id, "crowd", MEMBERS).await;
    }
    let transaction_id =
        trigger_processed(&server, json!({"name": "crowded", "to": {"type": "Topic", "topicKey": "crowd"}})).await;
    // A lease that has lapsed whenever the claimer looks: only "this process is expanding it" keeps
    // the claimer off the fan-out.
    let _worker = server.start_worker_process_with_lease(Duration::from_millis(1)).await;
    wait_until_fanned_out(&server).await;
    assert_eq!(count(&server, "topic_fanouts WHERE attempts = 1").await, 1, "claimed once");
    let per_member = recipients_of(&server, &transaction_id).await;
    assert_eq!(per_member.len() as i64, MEMBERS);
    assert!(per_member.iter().all(|(_, n)| *n == 1), "no member twice");
}

/// A fan-out's claim that commits but whose answer is lost (the connection cut in between) is given
/// back at once, as any failed fan-out is, instead of waiting out its 30 s lease.
#[tokio::test(flavor = "multi_thread")]
async fn a_fan_out_whose_claim_lost_its_answer_resumes_without_waiting_for_the_lease() {
    // The fan-out claim, and an answer that returns this trigger's fan-out.
    resumes_without_waiting_for_the_lease("lost", &["l1", "l2"], "f.after_subscriber_id", "lost-fanout").await;
}

/// A fan-out whose expansion fails (here its members' read loses its answer) is given back at once and
/// resumes from its last page, instead of waiting out its 30 s lease; each member is reached once.
#[tokio::test(flavor = "multi_thread")]
async fn a_fan_out_whose_expansion_failed_resumes_without_waiting_for_the_lease() {
    // The read of the topic's members, answered with this topic's members.
    let members = ["failing-1", "failing-2"];
    resumes_without_waiting_for_the_lease("failing", &members, "FROM topic_subscribers ts", "failing-1").await;
}

/// Triggers `topic` (its `members` added first; the trigger's transactionId is `{topic}-fanout`) with
/// the first answer of a statement holding `marker` lost when the answer holds `needle`, and checks
/// that the fan-out completes well before its 30 s lease would end, each member reached once.
async fn resumes_without_waiting_for_the_lease(topic: &str, members: &[&str], marker: &str, needle: &str) {
    let database_url = crate::support::fresh_schema_url().await;
    let cut = crate::support::AnswerCut::start(&database_url).await;
    let server = TestServer::start_on(cut.url_through(&database_url)).await;
    create_workflow(&server, "news", json!([in_app_step()])).await;
    add(&server, topic, members).await;
    cut.arm(marker, needle);

    let transaction_id = format!("{topic}-fanout");
    let body = json!({"name": "news", "to": {"type": "Topic", "topicKey": topic}, "transactionId": transaction_id});
    trigger_processed(&server, body).await;
    let started = tokio::time::Instant::now();
    while count(&server, "topic_fanouts WHERE status <> 'completed'").await > 0 {
        assert!(started.elapsed() < Duration::from_secs(10), "the fan-out waited for its lease");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(cut.cuts(), 1, "the marked statement lost its answer");
    wait_until_settled(&server).await;
    assert_eq!(recipients_of(&server, &transaction_id).await, once(members));
}

/// A fan-out runs the in-app step of each member's notification in the page's own transaction and
/// stores its job finished: no worker claims it, and no job row is written twice. Its pages run
/// several at a time, and each member still gets exactly one message, with the step's details.
#[tokio::test(flavor = "multi_thread")]
async fn a_fan_out_delivers_in_app_steps_in_its_pages_without_rewriting_their_jobs() {
    #[derive(diesel::QueryableByName)]
    struct Writes {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        inserted: i64,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        updated: i64,
    }
    const MEMBERS: i64 = 3_500;
    let server = TestServer::start().await;
    create_workflow(&server, "feed", json!([in_app_step()])).await;
    {
        let mut conn = server.pool.get().await.unwrap();
        seed_topic(&mut conn, server.environment_id, "readers", MEMBERS).await;
    }
    let body = json!({"name": "feed", "payload": {"orderId": 9}, "to": {"type": "Topic", "topicKey": "readers"}});
    let transaction_id = trigger_processed(&server, body).await;
    wait_until_fanned_out(&server).await;
    wait_until_settled(&server).await;

    assert_eq!(count(&server, "messages").await, MEMBERS);
    assert_eq!(count(&server, "(SELECT DISTINCT subscriber_id FROM messages) AS each_once").await, MEMBERS);
    assert_eq!(count(&server, "jobs WHERE status = 'completed' AND attempts = 1").await, MEMBERS);
    assert_eq!(count(&server, "execution_details").await, 0, "delivered in-app messages store no detail");
    let (_, messages) = server.get_json("/v1/messages?subscriberId=readers-1234").await;
    assert_eq!(messages["data"][0]["content"], "Hi there, order 9 shipped", "{messages}");
    assert_eq!(messages["data"][0]["transactionId"], transaction_id.as_str(), "{messages}");

    // Statistics reach the view within seconds.
    let mut conn = server.pool.get().await.unwrap();
    let mut writes = Writes { inserted: 0, updated: 0 };
    for _ in 0..300 {
        writes = diesel::sql_query(
            "SELECT n_tup_ins AS inserted, n_tup_upd AS updated FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass",
        )
        .get_result(&mut conn)
        .await
        .unwrap();
        if writes.inserted >= MEMBERS {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(writes.inserted, MEMBERS, "one job row inserted per member");
    assert_eq!(writes.updated, 0, "job rows claimed and rewritten by a worker");
}
