//! What a new environment of the zero-configuration run starts with: an active in-app integration
//! and a `welcome` workflow with one in-app step, so the first trigger works without any set-up.

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use rand::RngCore;
use serde_json::json;
use uuid::Uuid;

use super::tenancy::Environment;
use crate::crypto::CredentialCipher;
use crate::db::schema::{integrations, workflow_steps, workflows};
use crate::error::{AppError, AppResult};

/// Identifier of the seeded workflow (the trigger name).
pub const WELCOME_WORKFLOW: &str = "welcome";
/// Identifier of the seeded in-app integration.
pub const INBOX_INTEGRATION: &str = "herald-inbox";

/// Creates the in-app integration and the `welcome` workflow in `environment`, atomically.
pub async fn seed_environment(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    environment: &Environment,
) -> AppResult<()> {
    let no_credentials = cipher.encrypt(b"{}");
    let mut signing_key = [0u8; 32];
    rand::rng().fill_bytes(&mut signing_key);
    let workflow_id = Uuid::now_v7();
    conn.transaction::<_, AppError, _>(async |conn| {
        diesel::insert_into(integrations::table)
            .values((
                integrations::id.eq(Uuid::now_v7()),
                integrations::environment_id.eq(environment.id),
                integrations::organization_id.eq(environment.organization_id),
                integrations::provider_id.eq("svc"),
                integrations::channel.eq("in_app"),
                integrations::name.eq("Herald Inbox"),
                integrations::identifier.eq(INBOX_INTEGRATION),
                integrations::credentials_encrypted.eq(&no_credentials),
                integrations::active.eq(true),
                integrations::inbound_webhook_signing_key.eq(hex::encode(signing_key)),
            ))
            .execute(conn)
            .await?;
        diesel::insert_into(workflows::table)
            .values((
                workflows::id.eq(workflow_id),
                workflows::environment_id.eq(environment.id),
                workflows::organization_id.eq(environment.organization_id),
                workflows::identifier.eq(WELCOME_WORKFLOW),
                workflows::name.eq("Welcome"),
                workflows::description.eq("Greets a new subscriber in their in-app inbox."),
                workflows::active.eq(true),
                workflows::origin.eq("svc-cloud"),
                workflows::status.eq("ACTIVE"),
                workflows::preferences.eq(json!({ "user": null, "default": { "all": { "enabled": true, "readOnly": false }, "channels": {} } })),
            ))
            .execute(conn)
            .await?;
        diesel::insert_into(workflow_steps::table)
            .values((
                workflow_steps::id.eq(Uuid::now_v7()),
                workflow_steps::workflow_id.eq(workflow_id),
                workflow_steps::environment_id.eq(environment.id),
                workflow_steps::position.eq(0),
                workflow_steps::step_id.eq("in-app-step"),
                workflow_steps::name.eq("In-App Step"),
                workflow_steps::type_.eq("in_app"),
                workflow_steps::control_values.eq(json!({
                    "subject": "Welcome to Herald",
                    "body": "Hello {{ subscriber.firstName | default: 'there' }}, your notifications will show up here.",
                })),
            ))
            .execute(conn)
            .await?;
        Ok(())
    })
    .await
}
