//! What a new environment of the zero-configuration run starts with: an active in-app integration
//! and a `welcome` workflow with one in-app step, so the first trigger works without any set-up.
//! Both are made as the API makes them, through the domain's create functions.

use diesel_async::{AsyncConnection, AsyncPgConnection};
use serde_json::json;

use super::integrations::{create_integration, NewIntegration};
use super::subscribers::{create_subscriber, find_subscriber, NewSubscriber};
use super::tenancy::{list_environments, Environment, Tenant};
use super::workflows::{create_workflow, PreferencesInput, StepDefinition, WorkflowDefinition};
use crate::crypto::CredentialCipher;
use crate::error::{AppError, AppResult};

/// Identifier of the seeded workflow (the trigger name).
pub const WELCOME_WORKFLOW: &str = "welcome";
/// Identifier of the seeded in-app integration.
pub const INBOX_INTEGRATION: &str = "herald-inbox";
/// The subscriber the inbox demo page (`/inbox/demo`) shows in the zero-configuration run.
pub const DEMO_SUBSCRIBER: &str = "inbox-demo";

/// Creates the in-app integration and the `welcome` workflow in `environment`, atomically.
pub async fn seed_environment(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    environment: &Environment,
) -> AppResult<()> {
    let tenant = Tenant { organization_id: environment.organization_id, environment_id: environment.id };
    conn.transaction::<_, AppError, _>(async |conn| {
        // First, so that the workflow's in-app step finds an active integration and has no issue.
        create_integration(conn, cipher, tenant, inbox_integration()).await?;
        create_workflow(conn, tenant, welcome_workflow()).await?;
        Ok(())
    })
    .await
}

fn inbox_integration() -> NewIntegration {
    NewIntegration {
        name: Some("Herald Inbox".into()),
        identifier: Some(INBOX_INTEGRATION.into()),
        provider_id: "svc".into(),
        channel: "in_app".into(),
        credentials: json!({}),
        active: true,
        conditions: json!([]),
        inbound_webhook_enabled: false,
    }
}

fn welcome_workflow() -> WorkflowDefinition {
    let in_app = StepDefinition {
        step_id: Some("in-app-step".into()),
        name: "In-App Step".into(),
        kind: "in_app".into(),
        control_values: Some(json!({
            "subject": "Welcome to Herald",
            "body": "Hello {{ subscriber.firstName | default: 'there' }}, your notifications will show up here.",
        })),
        filters: json!([]),
        ..Default::default()
    };
    WorkflowDefinition {
        name: "Welcome".into(),
        description: Some("Greets a new subscriber in their in-app inbox.".into()),
        active: Some(true),
        workflow_id: Some(WELCOME_WORKFLOW.into()),
        origin: Some("svc-cloud".into()),
        preferences: Some(PreferencesInput {
            user: None,
            workflow: Some(json!({ "all": { "enabled": true, "readOnly": false }, "channels": {} })),
        }),
        steps: vec![in_app],
        ..Default::default()
    }
}

/// For the zero-configuration run: creates the seeded (oldest) environment's demo subscriber when
/// missing, so the inbox demo page works on the first `cargo run`, and returns that environment's
/// application identifier, which the page names by default (None before any environment exists).
pub async fn prepare_inbox_demo(conn: &mut AsyncPgConnection) -> AppResult<Option<String>> {
    let Some(seeded) = list_environments(conn).await?.into_iter().next() else { return Ok(None) };
    let environment = seeded.environment;
    let tenant = Tenant { organization_id: environment.organization_id, environment_id: environment.id };
    if find_subscriber(conn, tenant, DEMO_SUBSCRIBER).await?.is_none() {
        let new = NewSubscriber {
            subscriber_id: DEMO_SUBSCRIBER.into(),
            first_name: Some("Demo".into()),
            ..Default::default()
        };
        create_subscriber(conn, tenant, new).await?;
    }
    Ok(Some(environment.application_identifier))
}
