//! Rows the subscriber tests need from other resources, written straight to the database so
//! these tests depend only on the subscriber API.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use herald::db::schema::{integrations, workflow_steps, workflows};
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::support::TestServer;

/// Creates a subscriber over REST and returns its body.
pub async fn create_subscriber(server: &TestServer, body: Value) -> Value {
    let (status, created) = server.send_json(Method::POST, "/v2/subscribers", &body).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// An integration of `provider_id` in the server's environment.
pub async fn insert_integration(
    server: &TestServer,
    provider_id: &str,
    channel: &str,
    identifier: &str,
    active: bool,
) -> Uuid {
    let id = Uuid::now_v7();
    let mut conn = server.pool.get().await.unwrap();
    diesel::insert_into(integrations::table)
        .values((
            integrations::id.eq(id),
            integrations::environment_id.eq(server.environment_id),
            integrations::organization_id.eq(server.organization_id),
            integrations::provider_id.eq(provider_id),
            integrations::channel.eq(channel),
            integrations::name.eq(identifier),
            integrations::identifier.eq(identifier),
            integrations::credentials_encrypted.eq(vec![0u8; 40]),
            integrations::active.eq(active),
            integrations::inbound_webhook_signing_key.eq("test"),
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    id
}

/// A workflow with one step per entry of `step_types`, and workflow-level `preferences`.
pub async fn insert_workflow(
    server: &TestServer,
    identifier: &str,
    critical: bool,
    step_types: &[&str],
    preferences: Value,
) -> Uuid {
    let id = Uuid::now_v7();
    let mut conn = server.pool.get().await.unwrap();
    diesel::insert_into(workflows::table)
        .values((
            workflows::id.eq(id),
            workflows::environment_id.eq(server.environment_id),
            workflows::organization_id.eq(server.organization_id),
            workflows::identifier.eq(identifier),
            workflows::name.eq(format!("{identifier} name")),
            workflows::active.eq(true),
            workflows::critical.eq(critical),
            workflows::origin.eq("external"),
            workflows::preferences.eq(preferences),
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    let steps: Vec<_> = step_types
        .iter()
        .enumerate()
        .map(|(position, kind)| {
            (
                workflow_steps::id.eq(Uuid::now_v7()),
                workflow_steps::workflow_id.eq(id),
                workflow_steps::environment_id.eq(server.environment_id),
                workflow_steps::position.eq(position as i32),
                workflow_steps::step_id.eq(format!("step-{position}")),
                workflow_steps::name.eq(format!("Step {position}")),
                workflow_steps::type_.eq(kind.to_string()),
                workflow_steps::control_values.eq(json!({})),
            )
        })
        .collect();
    diesel::insert_into(workflow_steps::table).values(steps).execute(&mut conn).await.unwrap();
    id
}

/// Asserts the body is a 422 naming exactly `fields` in `errors`.
pub fn assert_invalid_fields(status: u16, body: &Value, fields: &[&str]) {
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["statusCode"], 422);
    assert_eq!(body["error"], "Unprocessable Entity");
    let mut named: Vec<&str> = body["errors"].as_object().expect("errors map").keys().map(String::as_str).collect();
    named.sort();
    let mut expected = fields.to_vec();
    expected.sort();
    assert_eq!(named, expected, "{body}");
    for field in fields {
        assert!(body["errors"][field]["messages"].as_array().is_some_and(|m| !m.is_empty()), "{body}");
        assert!(body["errors"][field].get("value").is_some(), "{body}");
    }
}
