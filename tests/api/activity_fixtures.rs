//! What the delivery engine would have written, written straight to the database: notification events,
//! their jobs (with the `digest` JSON of docs/engine.md and the step snapshot the engine itself takes),
//! execution details and messages. Subscribers and workflows are created over REST, so these rows point
//! at real ones.

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel_async::AsyncPgConnection;
use diesel_async::RunQueryDsl;
use herald::db::schema::{execution_details, jobs, messages, notifications, step_snapshots, workflow_steps};
use herald::domain::workflows::StepRow;
use herald::workflow::{SharedSnapshot, StepSnapshot};
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::support::{http_client, read_json, TestServer};

/// An environment to write into: the server's own or another one, with its API key.
#[derive(Debug, Clone)]
pub struct Env {
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub api_key: String,
}

impl Env {
    pub fn main(server: &TestServer) -> Self {
        Self {
            environment_id: server.environment_id,
            organization_id: server.organization_id,
            api_key: server.api_key.clone(),
        }
    }

    /// Another environment of the server's organization.
    pub async fn other(server: &TestServer, name: &str) -> Self {
        let (environment_id, api_key) = server.other_environment(name).await;
        Self { environment_id, organization_id: server.organization_id, api_key }
    }

    /// Sends `body` with this environment's key and returns the status and JSON answer.
    pub async fn send(&self, server: &TestServer, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut request =
            http_client().request(method, server.url(path)).header("authorization", format!("ApiKey {}", self.api_key));
        if let Some(body) = body {
            request = request.json(body);
        }
        read_json(request.send().await.expect("request sent")).await
    }

    pub async fn get(&self, server: &TestServer, path: &str) -> (u16, Value) {
        self.send(server, Method::GET, path, None).await
    }
}

/// Creates a subscriber over REST; returns its body (with `_id`).
pub async fn subscriber(server: &TestServer, env: &Env, subscriber_id: &str, email: Option<&str>) -> Value {
    let mut body = json!({"subscriberId": subscriber_id, "firstName": "Ada", "lastName": "Lovelace"});
    if let Some(email) = email {
        body["email"] = json!(email);
    }
    let (status, created) = env.send(server, Method::POST, "/v2/subscribers", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// Creates a workflow over REST with one step per `(name, type)`; returns its body (with steps).
pub async fn workflow(server: &TestServer, env: &Env, name: &str, severity: &str, steps: &[(&str, &str)]) -> Value {
    let steps: Vec<Value> = steps
        .iter()
        .map(|(step_name, kind)| {
            let controls = match *kind {
                "in_app" => {
                    json!({"subject": "Hi", "body": "Order {{ payload.orderId }} for {{ subscriber.firstName }}"})
                }
                "email" => json!({"subject": "Shipped", "body": "<p>{{ payload.orderId }}</p>"}),
                "digest" => json!({"type": "regular", "amount": 5, "unit": "minutes", "digestKey": "orderId"}),
                "delay" => json!({"type": "regular", "amount": 1, "unit": "hours"}),
                _ => json!({"body": "{{ payload.orderId }}"}),
            };
            json!({"name": step_name, "type": kind, "controlValues": controls})
        })
        .collect();
    let body = json!({"name": name, "active": true, "severity": severity, "origin": "external", "steps": steps});
    let (status, created) = env.send(server, Method::POST, "/v2/workflows", Some(&body)).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// What an inserted event is made of.
#[derive(Debug, Clone)]
pub struct InsertedEvent {
    pub id: Uuid,
    /// Trigger job first, then one per workflow step.
    pub job_ids: Vec<Uuid>,
    /// Per job, its execution detail ids in `createdAt` order.
    pub detail_ids: Vec<Vec<Uuid>>,
}

fn uuid_of(value: &Value) -> Uuid {
    Uuid::parse_str(value.as_str().unwrap_or_else(|| panic!("an id: {value}"))).expect("a uuid")
}

/// The snapshot the engine takes of the stored step `step` (a step of a REST answer).
async fn step_snapshot(conn: &mut AsyncPgConnection, step: &Value) -> StepSnapshot {
    let row: StepRow = workflow_steps::table
        .find(uuid_of(&step["_id"]))
        .select(StepRow::as_select())
        .first(conn)
        .await
        .expect("the step is stored");
    StepSnapshot::from(&row)
}

/// Stores `step` in `step_snapshots` as ingest does; returns the id a job names it by.
async fn store_snapshot(conn: &mut AsyncPgConnection, step: StepSnapshot) -> Uuid {
    let shared = SharedSnapshot::of(step);
    diesel::insert_into(step_snapshots::table)
        .values((step_snapshots::id.eq(shared.id), step_snapshots::step.eq(&*shared.step)))
        .on_conflict_do_nothing()
        .execute(conn)
        .await
        .unwrap();
    shared.id
}

/// The `jobs.digest` the engine stores on a digest job.
pub fn digest_json() -> Value {
    json!({"type": "regular", "digestKey": "orderId", "amount": 5, "unit": "minutes", "events": [{"orderId": "A-1"}]})
}

/// Inserts a notification event of `workflow` for `subscriber` created at `created_at`, with the
/// trigger job and one job per step (all completed), each with two execution details.
pub async fn event(
    server: &TestServer,
    env: &Env,
    subscriber: &Value,
    workflow: &Value,
    transaction_id: &str,
    created_at: DateTime<Utc>,
) -> InsertedEvent {
    let mut conn = server.pool.get().await.unwrap();
    let id = Uuid::now_v7();
    let workflow_id = uuid_of(&workflow["_id"]);
    let subscriber_id = uuid_of(&subscriber["_id"]);
    let steps = workflow["steps"].as_array().unwrap().clone();
    let mut channels = vec!["trigger".to_string()];
    channels.extend(steps.iter().map(|step| step["type"].as_str().unwrap().to_string()));
    let payload = json!({"orderId": "A-1", "total": 12});
    diesel::insert_into(notifications::table)
        .values((
            notifications::id.eq(id),
            notifications::environment_id.eq(env.environment_id),
            notifications::organization_id.eq(env.organization_id),
            notifications::workflow_id.eq(workflow_id),
            notifications::subscriber_id.eq(subscriber_id),
            notifications::transaction_id.eq(transaction_id),
            notifications::payload.eq(&payload),
            notifications::tags.eq(vec!["orders".to_string()]),
            notifications::to_recipient.eq(json!({"subscriberId": subscriber["subscriberId"]})),
            notifications::channels.eq(channels),
            notifications::severity.eq(workflow["severity"].as_str().unwrap()),
            notifications::created_at.eq(created_at),
            notifications::updated_at.eq(created_at),
        ))
        .execute(&mut conn)
        .await
        .unwrap();

    let mut job_ids = Vec::new();
    let mut detail_ids = Vec::new();
    let mut snapshots = vec![(None, "trigger".to_string(), StepSnapshot::trigger(workflow_id))];
    for step in &steps {
        let snapshot = step_snapshot(&mut conn, step).await;
        snapshots.push((Some(uuid_of(&step["_id"])), step["type"].as_str().unwrap().to_string(), snapshot));
    }
    for (position, (step_id, kind, step)) in snapshots.into_iter().enumerate() {
        let job_id = Uuid::now_v7();
        let step_snapshot_id = store_snapshot(&mut conn, step).await;
        let at = created_at + Duration::seconds(position as i64);
        let provider = if kind == "email" { "sendgrid" } else { "svc" };
        diesel::insert_into(jobs::table)
            .values((
                jobs::id.eq(job_id),
                jobs::environment_id.eq(env.environment_id),
                jobs::organization_id.eq(env.organization_id),
                jobs::notification_id.eq(id),
                jobs::subscriber_id.eq(subscriber_id),
                jobs::workflow_id.eq(workflow_id),
                jobs::step_id.eq(step_id),
                jobs::type_.eq(&kind),
                jobs::position.eq(position as i32),
                jobs::status.eq("completed"),
                jobs::provider_id.eq(provider),
                jobs::step_snapshot_id.eq(step_snapshot_id),
                jobs::digest.eq((kind == "digest").then(digest_json)),
                jobs::schedule_extensions_count.eq(if kind == "digest" { 1 } else { 0 }),
                jobs::transaction_id.eq(transaction_id),
                jobs::created_at.eq(at),
                jobs::updated_at.eq(at),
            ))
            .execute(&mut conn)
            .await
            .unwrap();
        // The later detail is inserted first, so only `createdAt` (not insertion or id order) sorts them.
        let later = Uuid::now_v7();
        let earlier = Uuid::now_v7();
        for (detail_id, detail, status, offset) in
            [(later, "Step completed", "Success", 500), (earlier, "Step queued", "Pending", 100)]
        {
            diesel::insert_into(execution_details::table)
                .values((
                    execution_details::id.eq(detail_id),
                    execution_details::environment_id.eq(env.environment_id),
                    execution_details::job_id.eq(job_id),
                    execution_details::notification_id.eq(id),
                    execution_details::subscriber_id.eq(subscriber_id),
                    execution_details::status.eq(status),
                    execution_details::detail.eq(detail),
                    execution_details::source.eq("Internal"),
                    execution_details::provider_id.eq(provider),
                    execution_details::raw.eq((status == "Success").then(|| r#"{"ok":true}"#.to_string())),
                    execution_details::created_at.eq(at + Duration::milliseconds(offset)),
                ))
                .execute(&mut conn)
                .await
                .unwrap();
        }
        job_ids.push(job_id);
        detail_ids.push(vec![earlier, later]);
    }
    InsertedEvent { id, job_ids, detail_ids }
}

/// What a message fixture is about.
#[derive(Debug, Clone)]
pub struct MessageSpec<'a> {
    pub subscriber: &'a Value,
    pub workflow: &'a Value,
    pub channel: &'a str,
    pub transaction_id: &'a str,
    pub created_at: DateTime<Utc>,
}

/// Inserts a message (with the event and the job it comes from) and returns its `_id`. Messages of one
/// transaction and subscriber share one event, as the engine's do.
pub async fn message(server: &TestServer, env: &Env, spec: MessageSpec<'_>) -> Uuid {
    let mut conn = server.pool.get().await.unwrap();
    let job_id = Uuid::now_v7();
    let id = Uuid::now_v7();
    let workflow_id = uuid_of(&spec.workflow["_id"]);
    let subscriber_id = uuid_of(&spec.subscriber["_id"]);
    let step = spec.workflow["steps"][0].clone();
    let step_id = uuid_of(&step["_id"]);
    diesel::insert_into(notifications::table)
        .values((
            notifications::id.eq(Uuid::now_v7()),
            notifications::environment_id.eq(env.environment_id),
            notifications::organization_id.eq(env.organization_id),
            notifications::workflow_id.eq(workflow_id),
            notifications::subscriber_id.eq(subscriber_id),
            notifications::transaction_id.eq(spec.transaction_id),
            notifications::channels.eq(vec!["trigger".to_string(), spec.channel.to_string()]),
            notifications::created_at.eq(spec.created_at),
        ))
        .on_conflict((notifications::environment_id, notifications::transaction_id, notifications::subscriber_id))
        .do_nothing()
        .execute(&mut conn)
        .await
        .unwrap();
    let notification_id: Uuid = notifications::table
        .filter(notifications::environment_id.eq(env.environment_id))
        .filter(notifications::transaction_id.eq(spec.transaction_id))
        .filter(notifications::subscriber_id.eq(subscriber_id))
        .select(notifications::id)
        .first(&mut conn)
        .await
        .unwrap();
    let snapshot = step_snapshot(&mut conn, &step).await;
    let step_snapshot_id = store_snapshot(&mut conn, snapshot).await;
    let earlier_jobs: i64 =
        jobs::table.filter(jobs::notification_id.eq(notification_id)).count().get_result(&mut conn).await.unwrap();
    diesel::insert_into(jobs::table)
        .values((
            jobs::id.eq(job_id),
            jobs::environment_id.eq(env.environment_id),
            jobs::organization_id.eq(env.organization_id),
            jobs::notification_id.eq(notification_id),
            jobs::subscriber_id.eq(subscriber_id),
            jobs::workflow_id.eq(workflow_id),
            jobs::step_id.eq(step_id),
            jobs::type_.eq(spec.channel),
            jobs::position.eq(earlier_jobs as i32 + 1),
            jobs::status.eq("completed"),
            jobs::step_snapshot_id.eq(step_snapshot_id),
            jobs::transaction_id.eq(spec.transaction_id),
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    let email = spec.channel == "email";
    let content = if email {
        json!([{"type": "text", "content": "Your order shipped", "styles": {"textAlign": "left"}},
               {"type": "button", "content": "Track", "url": "https://example.com/t"}])
    } else {
        json!("Order A-1 for Ada")
    };
    let cta = if spec.channel == "in_app" {
        json!({"type": "redirect", "data": {"url": "/orders/A-1"},
               "action": {"status": "pending", "buttons": [{"type": "primary", "content": "Open"}]}})
    } else {
        json!({})
    };
    diesel::insert_into(messages::table)
        .values((
            messages::id.eq(id),
            messages::environment_id.eq(env.environment_id),
            messages::organization_id.eq(env.organization_id),
            messages::notification_id.eq(notification_id),
            messages::job_id.eq(job_id),
            messages::subscriber_id.eq(subscriber_id),
            messages::workflow_id.eq(Some(workflow_id)),
            messages::step_id.eq(Some(step_id)),
            messages::template_identifier.eq(spec.workflow["workflowId"].as_str()),
            messages::channel.eq(spec.channel),
            messages::transaction_id.eq(spec.transaction_id),
            messages::subject.eq(Some("Hi")),
            messages::content.eq(Some(content)),
            messages::cta.eq(cta),
            messages::payload.eq(json!({"orderId": "A-1", "total": 12})),
            messages::email.eq(if email { spec.subscriber["email"].as_str() } else { None }),
            messages::provider_id.eq(Some(if email { "sendgrid" } else { "svc" })),
            messages::delivered_at.eq(vec![spec.created_at]),
            messages::context_keys.eq(vec!["tenant:acme".to_string()]),
            messages::created_at.eq(spec.created_at),
            messages::updated_at.eq(spec.created_at),
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    id
}

/// The read state of a message as stored: (read, seen, lastReadDate, lastSeenDate).
pub async fn read_state(server: &TestServer, id: Uuid) -> (bool, bool, Option<DateTime<Utc>>, Option<DateTime<Utc>>) {
    let mut conn = server.pool.get().await.unwrap();
    messages::table
        .find(id)
        .select((messages::read, messages::seen, messages::last_read_date, messages::last_seen_date))
        .first(&mut conn)
        .await
        .unwrap()
}

/// Sorted keys of a JSON object.
pub fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> =
        value.as_object().unwrap_or_else(|| panic!("an object: {value}")).keys().cloned().collect();
    keys.sort();
    keys
}

/// Asserts `value` is the contract's timestamp form (RFC 3339 UTC with milliseconds).
pub fn assert_timestamp(value: &Value) {
    let text = value.as_str().unwrap_or_else(|| panic!("timestamp: {value}"));
    assert!(text.ends_with('Z') && text.len() == 24 && DateTime::parse_from_rfc3339(text).is_ok(), "{text}");
}

/// Asserts the body is a 422 naming exactly `fields`.
pub fn assert_invalid_fields(status: u16, body: &Value, fields: &[&str]) {
    assert_eq!(status, 422, "{body}");
    let mut named: Vec<&str> = body["errors"].as_object().expect("errors map").keys().map(String::as_str).collect();
    named.sort();
    let mut expected = fields.to_vec();
    expected.sort();
    assert_eq!(named, expected, "{body}");
}

/// A timestamp truncated to milliseconds, as the API writes it.
pub fn millis(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
