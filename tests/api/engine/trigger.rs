//! Trigger statuses and what a trigger stores: every refusal, deduplication, upserts, tenants, payload
//! schemas, cancel, bulk and a 1,000-recipient fan-out.

use diesel_async::RunQueryDsl;
use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::*;
use crate::support::{read_json, TestServer};

#[tokio::test(flavor = "multi_thread")]
async fn each_refusal_has_its_status_and_stores_nothing() {
    let server = TestServer::start().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    create_workflow_with(
        &server,
        json!({"workflowId": "paused", "name": "paused", "active": false, "steps": [in_app_step()]}),
    )
    .await;
    create_workflow_with(&server, json!({"workflowId": "empty", "name": "empty", "active": true, "steps": []})).await;

    let cases = [
        (json!({"name": "paused", "to": "a"}), "trigger_not_active"),
        (json!({"name": "empty", "to": "a"}), "no_workflow_steps_defined"),
        (json!({"name": "live", "to": []}), "invalid_recipients"),
        (json!({"name": "live", "to": [{"email": "no-id@example.com"}, 42]}), "invalid_recipients"),
        (json!({"name": "live", "to": "a", "tenant": "missing-tenant"}), "no_tenant_found"),
    ];
    for (body, expected) in cases {
        let (status, response) = trigger(&server, body.clone()).await;
        assert_eq!(status, 201, "{body}: {response}");
        assert_eq!(response["status"], expected, "{body}: {response}");
        assert_eq!(response["acknowledged"], false, "{body}");
        assert!(response["transactionId"].is_string(), "{response}");
    }
    let (status, response) = trigger(&server, json!({"name": "unknown-workflow", "to": "a"})).await;
    assert_eq!(status, 422, "{response}");
    assert_eq!(response["message"], "workflow_not_found");
    let (status, response) = trigger(
        &server,
        json!({"name": "live", "to": [{"type": "Topic", "topicKey": 7}, {"type": "Topic", "topicKey": "a b"}]}),
    )
    .await;
    assert_eq!(status, 422, "{response}");
    assert!(response["errors"]["to.0.topicKey"].is_object(), "{response}");
    assert!(response["errors"]["to.1.topicKey"].is_object(), "{response}");
    let too_many: Vec<String> = (0..1001).map(|i| format!("s{i}")).collect();
    let (status, response) = trigger(&server, json!({"name": "live", "to": too_many})).await;
    assert_eq!(status, 422, "{response}");
    assert!(response["errors"]["to"].is_object(), "{response}");
    let (status, response) =
        trigger(&server, json!({"name": "live", "to": {"subscriberId": "x", "email": "not-an-email"}})).await;
    assert_eq!(status, 422, "{response}");
    assert!(response["errors"]["to.0.email"].is_object(), "{response}");

    assert_eq!(count(&server, "notifications").await, 0);
    assert_eq!(count(&server, "jobs").await, 0);
    assert_eq!(count(&server, "subscribers").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workflow_whose_steps_are_all_inactive_is_refused() {
    let server = TestServer::start().await;
    let created = create_workflow(&server, "all-off", json!([in_app_step()])).await;
    let mut conn = server.pool.get().await.unwrap();
    diesel::sql_query(format!(
        "UPDATE workflow_steps SET active = false WHERE workflow_id = '{}'",
        created["_id"].as_str().unwrap()
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let (_, response) = trigger(&server, json!({"name": "all-off", "to": "a"})).await;
    assert_eq!(response["status"], "no_workflow_active_steps_defined", "{response}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_repeated_transaction_id_is_refused_and_creates_nothing_new() {
    let server = TestServer::start().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let body = json!({"name": "live", "to": ["a", "b"], "transactionId": "same"});
    trigger_processed(&server, body.clone()).await;
    let (status, response) = trigger(&server, json!({"name": "live", "to": "c", "transactionId": "same"})).await;
    assert_eq!(status, 201);
    assert_eq!(response["acknowledged"], false);
    assert_eq!(response["status"], "error");
    assert_eq!(response["transactionId"], "same");
    assert!(response["error"][0].as_str().unwrap().contains("already used"), "{response}");
    assert_eq!(count(&server, "notifications").await, 2);
    assert_eq!(count(&server, "subscribers WHERE subscriber_id = 'c'").await, 0);

    // Another environment may use the same transaction id.
    let (_, other_key) = server.other_environment("other").await;
    let (status, _) = crate::support::read_json(
        crate::support::http_client()
            .post(server.url("/v2/workflows"))
            .header("authorization", format!("ApiKey {other_key}"))
            .json(&json!({"workflowId": "live", "name": "live", "active": true, "steps": [in_app_step()]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201);
    let (_, response) = crate::support::read_json(
        crate::support::http_client()
            .post(server.url("/v1/events/trigger"))
            .header("authorization", format!("ApiKey {other_key}"))
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(response["status"], "processed", "{response}");
}

#[tokio::test(flavor = "multi_thread")]
async fn subscriber_objects_and_the_actor_are_upserted_and_strings_create_subscribers() {
    let server = TestServer::start().await;
    create_workflow(&server, "live", json!([{"name": "Inbox", "type": "in_app", "controlValues": {"body": "{{ actor.firstName }} pinged {{ subscriber.firstName }}"}}])).await;
    let (status, _) = server
        .send_json(
            Method::POST,
            "/v2/subscribers",
            &json!({"subscriberId": "known", "firstName": "Old", "lastName": "Name", "data": {"a": 1}}),
        )
        .await;
    assert_eq!(status, 201);
    let transaction_id = trigger_processed(
        &server,
        json!({
            "name": "live",
            "to": [{"subscriberId": "known", "firstName": "New", "data": {"b": 2}}, "fresh"],
            "actor": {"subscriberId": "boss", "firstName": "Bea", "email": "bea@example.com"}
        }),
    )
    .await;
    let (_, known) = server.get_json("/v2/subscribers/known").await;
    assert_eq!(known["firstName"], "New");
    assert_eq!(known["lastName"], "Name", "absent fields are left alone");
    assert_eq!(known["data"], json!({"b": 2}), "data is replaced whole");
    assert_eq!(known["__v"], 1);
    let (status, fresh) = server.get_json("/v2/subscribers/fresh").await;
    assert_eq!(status, 200, "{fresh}");
    let (status, boss) = server.get_json("/v2/subscribers/boss").await;
    assert_eq!(status, 200);
    assert_eq!(boss["email"], "bea@example.com");

    wait_until_settled(&server).await;
    let messages = messages_of(&server, &transaction_id).await;
    let mut contents: Vec<&str> = messages.iter().map(|m| m["content"].as_str().unwrap()).collect();
    contents.sort();
    assert_eq!(contents, ["Bea pinged ", "Bea pinged New"]);

    // The same object again changes nothing: no version bump.
    trigger_processed(&server, json!({"name": "live", "to": [{"subscriberId": "known", "firstName": "New"}]})).await;
    let (_, known) = server.get_json("/v2/subscribers/known").await;
    assert_eq!(known["__v"], 1);
}

/// The activity API's `to` of each event is its recipient's entry as the client sent it: the object,
/// the last of two for one subscriber, and `{subscriberId}` for a bare id.
#[tokio::test(flavor = "multi_thread")]
async fn each_event_shows_its_recipient_as_sent_and_the_last_entry_of_a_subscriber_sent_twice() {
    let server = TestServer::start().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let first_ada = json!({"subscriberId": "ada", "firstName": "One"});
    let last_ada = json!({"subscriberId": "ada", "lastName": "Lovelace", "email": "ada@example.com"});
    let grace = json!({"subscriberId": "grace", "firstName": "Grace"});
    let transaction_id =
        trigger_processed(&server, json!({"name": "live", "to": [first_ada, "bob", grace, last_ada]})).await;

    let mut shown: Vec<(String, Value)> = events_of(&server, &transaction_id)
        .await
        .iter()
        .map(|event| (event["subscriber"]["subscriberId"].as_str().unwrap().to_string(), event["to"].clone()))
        .collect();
    shown.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        shown,
        [
            ("ada".to_string(), json!({"subscriberId": "ada", "lastName": "Lovelace", "email": "ada@example.com"})),
            ("bob".to_string(), json!({"subscriberId": "bob"})),
            ("grace".to_string(), json!({"subscriberId": "grace", "firstName": "Grace"})),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tenant_object_is_upserted_and_visible_to_templates() {
    let server = TestServer::start().await;
    create_workflow(
        &server,
        "live",
        json!([{"name": "Inbox", "type": "in_app", "controlValues": {"body": "From {{ tenant.name }}"}}]),
    )
    .await;
    // Templates see the tenant as it is when the step runs, so each trigger is delivered before the next.
    let bodies = [
        (json!({"identifier": "acme", "name": "Acme"}), "From Acme"),
        (json!({"identifier": "acme", "name": "Acme Inc"}), "From Acme Inc"),
        (json!("acme"), "From Acme Inc"),
    ];
    for (tenant, expected) in bodies {
        let transaction_id = trigger_processed(&server, json!({"name": "live", "to": "a", "tenant": tenant})).await;
        wait_until_settled(&server).await;
        assert_eq!(messages_of(&server, &transaction_id).await[0]["content"], expected);
    }
    assert_eq!(count(&server, "tenants").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payload_failing_the_schema_is_a_400_listing_every_error_and_defaults_are_filled_in() {
    let server = TestServer::start().await;
    create_workflow_with(
        &server,
        json!({
            "workflowId": "typed", "name": "typed", "active": true, "validatePayload": true,
            "payloadSchema": {"type": "object", "required": ["orderId"], "properties": {
                "orderId": {"type": "string"}, "count": {"type": "integer", "default": 1}}},
            "steps": [{"name": "Inbox", "type": "in_app", "controlValues": {"body": "{{ payload.orderId }} x{{ payload.count }}"}}]
        }),
    )
    .await;
    let (status, response) = trigger(&server, json!({"name": "typed", "to": "a", "payload": {"count": "many"}})).await;
    assert_eq!(status, 400, "{response}");
    assert_eq!(response["type"], "PAYLOAD_VALIDATION_ERROR");
    let errors = response["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{response}");
    assert!(errors.iter().any(|e| e["field"] == "count" && e["value"] == "many"), "{response}");
    assert!(errors.iter().all(|e| e["message"].is_string()));
    assert_eq!(count(&server, "notifications").await, 0);

    let transaction_id =
        trigger_processed(&server, json!({"name": "typed", "to": "a", "payload": {"orderId": "o-1"}})).await;
    wait_until_settled(&server).await;
    assert_eq!(messages_of(&server, &transaction_id).await[0]["content"], "o-1 x1");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thousand_recipients_get_a_notification_and_a_message_each() {
    let server = TestServer::start().await;
    create_workflow(&server, "broadcast", json!([in_app_step()])).await;
    let to: Vec<Value> =
        (0..1000).map(|i| json!({"subscriberId": format!("member-{i}"), "firstName": format!("M{i}")})).collect();
    let transaction_id =
        trigger_processed(&server, json!({"name": "broadcast", "to": to, "payload": {"orderId": "all"}})).await;
    // Acknowledged once its subscribers and its fan-out, holding its recipients, were stored.
    assert_eq!(count(&server, "subscribers WHERE first_name LIKE 'M%'").await, 1000);
    assert_eq!(count(&server, "topic_fanouts WHERE jsonb_array_length(recipients) = 1000").await, 1);
    wait_until_settled(&server).await;
    assert_eq!(count(&server, "notifications").await, 1000);
    assert_eq!(count(&server, &format!("messages WHERE transaction_id = '{transaction_id}'")).await, 1000);
    assert_eq!(count(&server, "messages WHERE content = '\"Hi M999, order all shipped\"'").await, 1);
}

/// `n` subscriberIds `prefix-0` … as a trigger's `to`.
fn subscriber_ids(prefix: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| json!(format!("{prefix}-{i}"))).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trigger_to_more_than_a_hundred_is_fanned_out_each_recipient_with_its_entry_as_sent() {
    // No worker yet: what each trigger's batch stored stays as it is.
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let stored = trigger_processed(&server, json!({"name": "live", "to": subscriber_ids("kept", 100)})).await;
    assert_eq!(count(&server, &format!("notifications WHERE transaction_id = '{stored}'")).await, 100);
    assert_eq!(count(&server, "topic_fanouts").await, 0, "100 recipients are stored by the trigger's batch");

    // 101 subscribers, one of them sent twice: the last entry is its `to`, as when stored at once.
    let mut to = subscriber_ids("wide", 101);
    to.push(json!({"subscriberId": "wide-0", "firstName": "Again"}));
    let wide = trigger_processed(&server, json!({"name": "live", "to": to})).await;
    assert_eq!(count(&server, &format!("notifications WHERE transaction_id = '{wide}'")).await, 0);
    assert_eq!(
        count(&server, &format!("topic_fanouts WHERE transaction_id = '{wide}' AND status = 'queued'")).await,
        1
    );
    assert_eq!(count(&server, "subscribers WHERE subscriber_id = 'wide-0' AND first_name = 'Again'").await, 1);

    let _worker = server.start_worker_process().await;
    wait_until_settled(&server).await;
    assert_eq!(count(&server, &format!("notifications WHERE transaction_id = '{wide}'")).await, 101);
    assert_eq!(count(&server, &format!("messages WHERE transaction_id = '{wide}'")).await, 101);
    let to_of = |subscriber_id: &str, entry: Value| {
        format!(
            "notifications n JOIN subscribers s ON s.id = n.subscriber_id
             WHERE n.transaction_id = '{wide}' AND s.subscriber_id = '{subscriber_id}' AND n.to_recipient = '{entry}'"
        )
    };
    assert_eq!(count(&server, &to_of("wide-0", json!({"subscriberId": "wide-0", "firstName": "Again"}))).await, 1);
    assert_eq!(count(&server, &to_of("wide-100", json!({"subscriberId": "wide-100"}))).await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fanned_out_trigger_canceled_before_its_fan_out_reaches_no_one() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let canceled = trigger_processed(&server, json!({"name": "live", "to": subscriber_ids("first", 101)})).await;
    let response = server.request(Method::DELETE, &format!("/v1/events/trigger/{canceled}")).send().await.unwrap();
    assert_eq!(response.headers()["herald-canceled-job-count"], "0", "no job existed yet");
    assert_eq!(read_json(response).await, (200, json!({"data": true})), "its fan-out was stopped");

    // A later fan-out is claimed after the canceled one would have been (fan-outs are claimed in order).
    let later = trigger_processed(&server, json!({"name": "live", "to": subscriber_ids("later", 101)})).await;
    let _worker = server.start_worker_process().await;
    wait_until_settled(&server).await;
    assert_eq!(count(&server, &format!("messages WHERE transaction_id = '{later}'")).await, 101);
    assert_eq!(count(&server, &format!("notifications WHERE transaction_id = '{canceled}'")).await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_the_jobs_not_yet_run_and_an_unknown_transaction_is_a_404() {
    // No workers: the steps' jobs stay queued and pending (the trigger jobs were completed when stored).
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "later", json!([in_app_step(), in_app_step()])).await;
    let transaction_id = trigger_processed(&server, json!({"name": "later", "to": ["a", "b"]})).await;
    let cancel = || async {
        let response = server.request(Method::DELETE, &format!("/v1/events/trigger/{transaction_id}")).send().await;
        let response = response.expect("request sent");
        let jobs = response.headers()["herald-canceled-job-count"].to_str().unwrap().to_string();
        let (status, body) = read_json(response).await;
        (status, body, jobs)
    };
    // The reference service's answer, which its strict clients require; the count is a header.
    assert_eq!(cancel().await, (200, json!({"data": true}), "4".to_string()));
    assert_eq!(
        count(&server, &format!("jobs WHERE transaction_id = '{transaction_id}' AND status = 'canceled'")).await,
        4
    );
    assert_eq!(cancel().await, (200, json!({"data": false}), "0".to_string()), "nothing was left to cancel");
    let (status, body) = server.send_json(Method::DELETE, "/v1/events/trigger/never-sent", &json!(null)).await;
    assert_eq!(status, 404, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transaction_id_given_twice_in_one_bulk_trigger_is_claimed_by_the_first() {
    let server = TestServer::start().await;
    create_workflow(&server, "cold", json!([in_app_step()])).await;
    create_workflow(&server, "warm", json!([in_app_step()])).await;
    // "warm" is in the workflow cache, "cold" is not yet: the later trigger's checks finish first. (The
    // cache is emptied again when the writes' notifications arrive: "warm" is read after them.)
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    trigger_processed(&server, json!({"name": "warm", "to": "a"})).await;
    let body = json!({"events": [
        {"name": "cold", "to": "a", "transactionId": "twice"},
        {"name": "warm", "to": "b", "transactionId": "twice"}
    ]});
    let (status, results) = server.send_json(Method::POST, "/v1/events/trigger/bulk", &body).await;
    assert_eq!(status, 201, "{results}");
    assert_eq!(results[0]["status"], "processed", "{results}");
    assert_eq!(results[1]["status"], "error", "{results}");
    let stored = count(&server, "notifications n JOIN workflows w ON w.id = n.workflow_id WHERE n.transaction_id = 'twice' AND w.identifier = 'cold'").await;
    assert_eq!(stored, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bulk_trigger_answers_each_trigger_on_its_own() {
    let server = TestServer::start().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let body = json!({"events": [
        {"name": "live", "to": "a", "transactionId": "bulk-1"},
        {"name": "missing", "to": "a"},
        {"name": "live", "to": "b", "transactionId": "bulk-1"}
    ]});
    let (status, results) = server.send_json(Method::POST, "/v1/events/trigger/bulk", &body).await;
    assert_eq!(status, 201, "{results}");
    let statuses: Vec<&str> = results.as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["processed", "error", "error"]);
    assert_eq!(results[1]["error"][0], "workflow_not_found");
    let too_many: Vec<Value> = (0..101).map(|_| json!({"name": "live", "to": "a"})).collect();
    let (status, _) = server.send_json(Method::POST, "/v1/events/trigger/bulk", &json!({"events": too_many})).await;
    assert_eq!(status, 422);
}
