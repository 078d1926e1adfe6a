//! Reading integrations: lookups, listings and the conversion from stored rows (decryption).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use diesel::dsl::{not, Eq, Filter};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use super::{Integration, IntegrationRow};
use crate::crypto::CredentialCipher;
use crate::db::schema::integrations;
use crate::domain::tenancy::Tenant;
use crate::error::{AppError, AppResult};

/// The integrations of the caller's environment that are not deleted. The `NOT deleted` predicate is
/// SQL, not a bind, so the partial indexes apply (see the migration's header).
pub(super) type LiveInEnvironment = Filter<
    Filter<integrations::table, Eq<integrations::environment_id, Uuid>>,
    diesel::dsl::not<integrations::deleted>,
>;

pub(super) fn live_in_environment(tenant: Tenant) -> LiveInEnvironment {
    integrations::table
        .filter(integrations::environment_id.eq(tenant.environment_id))
        .filter(not(integrations::deleted))
}

/// The columns an update may write; `None` leaves a column alone.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = integrations)]
pub(super) struct IntegrationChangeset {
    pub name: Option<String>,
    pub identifier: Option<String>,
    pub credentials_encrypted: Option<Vec<u8>>,
    pub active: Option<bool>,
    pub is_primary: Option<bool>,
    pub conditions: Option<Value>,
    pub inbound_webhook_enabled: Option<bool>,
    pub updated_at: DateTime<Utc>,
}

/// An id that is not ours names nothing: 404, like an unknown one.
pub(super) fn parse_integration_id(id: &str) -> AppResult<Uuid> {
    Uuid::parse_str(id).map_err(|_| not_found(id))
}

pub(super) fn not_found(id: &str) -> AppError {
    AppError::NotFound(format!("Integration with id {id} not found"))
}

pub(super) fn decrypt(cipher: &CredentialCipher, row: IntegrationRow) -> AppResult<Integration> {
    let plaintext =
        cipher.decrypt(&row.credentials_encrypted).map_err(|error| AppError::internal(error.to_string()))?;
    let credentials: Value = serde_json::from_slice(&plaintext).map_err(AppError::internal)?;
    Ok(Integration { row, credentials })
}

fn decrypt_all(cipher: &CredentialCipher, rows: Vec<IntegrationRow>) -> AppResult<Vec<Integration>> {
    rows.into_iter().map(|row| decrypt(cipher, row)).collect()
}

/// One integration of the caller's environment (deleted ones are gone: 404).
pub async fn get_integration(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tenant: Tenant,
    id: &str,
) -> AppResult<Integration> {
    let uuid = parse_integration_id(id)?;
    let row = live_in_environment(tenant)
        .filter(integrations::id.eq(uuid))
        .select(IntegrationRow::as_select())
        .first(conn)
        .await
        .optional()?
        .ok_or_else(|| not_found(id))?;
    decrypt(cipher, row)
}

/// Every integration of the caller's environment that is not deleted, oldest first.
pub async fn list_integrations(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tenant: Tenant,
) -> AppResult<Vec<Integration>> {
    let rows = live_in_environment(tenant)
        .order((integrations::created_at, integrations::id))
        .select(IntegrationRow::as_select())
        .load(conn)
        .await?;
    decrypt_all(cipher, rows)
}

/// The active integrations of the caller's whole organization (every environment), oldest first.
pub async fn list_active_integrations(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tenant: Tenant,
) -> AppResult<Vec<Integration>> {
    let rows = integrations::table
        .filter(integrations::organization_id.eq(tenant.organization_id))
        .filter(integrations::active)
        .filter(not(integrations::deleted))
        .order((integrations::created_at, integrations::id))
        .select(IntegrationRow::as_select())
        .load(conn)
        .await?;
    decrypt_all(cipher, rows)
}

/// The active integrations of the given environments, oldest first (the engine picks from them).
pub async fn active_integrations_in(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    environment_ids: &[Uuid],
) -> AppResult<Vec<Integration>> {
    let rows = integrations::table
        .filter(integrations::environment_id.eq_any(environment_ids))
        .filter(integrations::active)
        .filter(not(integrations::deleted))
        .order((integrations::created_at, integrations::id))
        .select(IntegrationRow::as_select())
        .load(conn)
        .await?;
    decrypt_all(cipher, rows)
}

/// The channels that have at least one active integration in the environment (workflow issues).
pub async fn active_channels(conn: &mut AsyncPgConnection, environment_id: Uuid) -> AppResult<HashSet<String>> {
    let channels: Vec<String> = integrations::table
        .filter(integrations::environment_id.eq(environment_id))
        .filter(integrations::active)
        .filter(not(integrations::deleted))
        .select(integrations::channel)
        .distinct()
        .load(conn)
        .await?;
    Ok(channels.into_iter().collect())
}
