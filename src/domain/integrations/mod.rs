//! Business rules of integrations (provider connections): create, read, update, soft delete, the
//! organization-wide active listing and set-primary. Credentials are kept as the JSON object the API
//! carries (`{"apiKey": …}`), encrypted at rest; the engine decrypts them with [`Integration::credentials`].

mod primary;
pub mod providers;
mod store;

pub use primary::set_primary;
pub use store::{
    active_channels, active_integrations_in, get_integration, list_active_integrations, list_integrations,
};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use rand::RngCore;
use serde_json::Value;
use uuid::Uuid;

use super::tenancy::Tenant;
use super::validation::Validator;
use crate::crypto::CredentialCipher;
use crate::db::schema::integrations;
use crate::error::{violated_unique_constraint, AppError, AppResult};

/// Name of the unique index that keeps identifiers unique per environment (among live rows).
const IDENTIFIER_INDEX: &str = "integrations_environment_identifier_key";
/// Generated identifiers that collide get a random suffix; this many tries before giving up.
const IDENTIFIER_ATTEMPTS: usize = 5;

/// An integration row as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = integrations)]
pub struct IntegrationRow {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub provider_id: String,
    pub channel: String,
    pub name: String,
    pub identifier: String,
    pub credentials_encrypted: Vec<u8>,
    pub active: bool,
    pub is_primary: bool,
    pub conditions: Value,
    pub inbound_webhook_enabled: bool,
    pub inbound_webhook_signing_key: String,
    pub deleted: bool,
    pub deleted_at: Option<DateTime<Utc>>,
    pub deleted_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// An integration with its credentials decrypted.
#[derive(Debug, Clone, PartialEq)]
pub struct Integration {
    pub row: IntegrationRow,
    /// The credentials object as the client gave it (API field names).
    pub credentials: Value,
}

/// What a create request carries, already out of its wire form.
#[derive(Debug, Clone, Default)]
pub struct NewIntegration {
    pub name: Option<String>,
    pub identifier: Option<String>,
    pub provider_id: String,
    /// `in_app`, `email`, `sms`, `chat` or `push`; anything else (or empty) is a 422.
    pub channel: String,
    /// A JSON object of credential fields.
    pub credentials: Value,
    pub active: bool,
    /// A JSON array of step filters.
    pub conditions: Value,
    pub inbound_webhook_enabled: bool,
}

/// The fields an update writes; `None` leaves a field alone.
#[derive(Debug, Clone, Default)]
pub struct IntegrationChanges {
    pub name: Option<String>,
    pub identifier: Option<String>,
    pub active: Option<bool>,
    pub credentials: Option<Value>,
    pub conditions: Option<Value>,
    pub inbound_webhook_enabled: Option<bool>,
}

/// Creates an integration. `providerId` must belong to `channel` (422); an explicit identifier already
/// used in the environment is a 409; an absent one is derived from the name (a random suffix when taken).
pub async fn create_integration(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tenant: Tenant,
    new: NewIntegration,
) -> AppResult<Integration> {
    validate_new(&new)?;
    let name = new.name.clone().map(|name| name.trim().to_string()).unwrap_or_else(|| new.provider_id.clone());
    let base_identifier = slug::slugify(&name);
    let base_identifier = if base_identifier.is_empty() { new.provider_id.clone() } else { base_identifier };
    let credentials_encrypted = encrypt_credentials(cipher, &new.credentials);
    let now = Utc::now();
    for attempt in 0..IDENTIFIER_ATTEMPTS {
        let identifier = match &new.identifier {
            Some(explicit) => explicit.trim().to_string(),
            None if attempt == 0 => base_identifier.clone(),
            None => format!("{base_identifier}-{}", random_hex(3)),
        };
        let inserted = diesel::insert_into(integrations::table)
            .values((
                integrations::id.eq(Uuid::now_v7()),
                integrations::environment_id.eq(tenant.environment_id),
                integrations::organization_id.eq(tenant.organization_id),
                integrations::provider_id.eq(&new.provider_id),
                integrations::channel.eq(&new.channel),
                integrations::name.eq(&name),
                integrations::identifier.eq(&identifier),
                integrations::credentials_encrypted.eq(&credentials_encrypted),
                integrations::active.eq(new.active),
                integrations::conditions.eq(&new.conditions),
                integrations::inbound_webhook_enabled.eq(new.inbound_webhook_enabled),
                integrations::inbound_webhook_signing_key.eq(random_hex(32)),
                integrations::created_at.eq(now),
                integrations::updated_at.eq(now),
            ))
            // A taken identifier inserts nothing rather than failing the statement: a failed statement
            // would abort the transaction a keyed request runs in (the only other unique keys are
            // the new id and the primary flag, which a new integration never sets).
            .on_conflict_do_nothing()
            .returning(IntegrationRow::as_returning())
            .get_result(conn)
            .await
            .optional()?;
        match inserted {
            Some(row) => return Ok(Integration { row, credentials: new.credentials }),
            None if new.identifier.is_some() => return Err(duplicate_identifier(&identifier)),
            None => {}
        }
    }
    Err(duplicate_identifier(&base_identifier))
}

fn validate_new(new: &NewIntegration) -> AppResult<()> {
    let mut validator = Validator::new();
    if !providers::CHANNELS.contains(&new.channel.as_str()) {
        let message = format!("channel must be one of {}", providers::CHANNELS.join(", "));
        validator.reject("channel", message, non_empty_or_null(&new.channel));
    } else if !providers::providers_of(&new.channel).contains(&new.provider_id.as_str()) {
        let message = format!(
            "providerId must be a provider of the {} channel: {}",
            new.channel,
            providers::providers_of(&new.channel).join(", ")
        );
        validator.reject("providerId", message, non_empty_or_null(&new.provider_id));
    }
    check_text_fields(&mut validator, new.name.as_deref(), new.identifier.as_deref());
    validator.finish()
}

fn check_text_fields(validator: &mut Validator, name: Option<&str>, identifier: Option<&str>) {
    if let Some(name) = name {
        validator.check(!name.trim().is_empty(), "name", "name must not be empty", name);
    }
    if let Some(identifier) = identifier {
        let valid = !identifier.trim().is_empty() && !identifier.contains('/');
        validator.check(valid, "identifier", "identifier must be a non-empty string without '/'", identifier);
    }
}

fn non_empty_or_null(text: &str) -> Value {
    if text.is_empty() {
        Value::Null
    } else {
        Value::String(text.to_string())
    }
}

/// Updates an integration. Deactivating the primary integration also makes it stop being primary.
pub async fn update_integration(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tenant: Tenant,
    id: &str,
    changes: IntegrationChanges,
) -> AppResult<Integration> {
    let mut validator = Validator::new();
    check_text_fields(&mut validator, changes.name.as_deref(), changes.identifier.as_deref());
    validator.finish()?;
    let uuid = store::parse_integration_id(id)?;
    let changeset = store::IntegrationChangeset {
        name: changes.name.map(|name| name.trim().to_string()),
        identifier: changes.identifier.clone().map(|identifier| identifier.trim().to_string()),
        credentials_encrypted: changes.credentials.as_ref().map(|credentials| encrypt_credentials(cipher, credentials)),
        active: changes.active,
        is_primary: (changes.active == Some(false)).then_some(false),
        conditions: changes.conditions,
        inbound_webhook_enabled: changes.inbound_webhook_enabled,
        updated_at: Utc::now(),
    };
    let updated = diesel::update(store::live_in_environment(tenant).filter(integrations::id.eq(uuid)))
        .set(&changeset)
        .returning(IntegrationRow::as_returning())
        .get_result(conn)
        .await
        .optional();
    match updated {
        Ok(Some(row)) => store::decrypt(cipher, row),
        Ok(None) => Err(store::not_found(id)),
        Err(error) if violated_unique_constraint(&error).as_deref() == Some(IDENTIFIER_INDEX) => {
            Err(duplicate_identifier(changes.identifier.as_deref().unwrap_or_default()))
        }
        Err(error) => Err(error.into()),
    }
}

/// Soft-deletes an integration (it stops being primary; `deletedBy` is the caller's environment id,
/// the API key holder, since there are no user accounts) and returns the remaining integrations of
/// the environment, oldest first.
pub async fn delete_integration(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    tenant: Tenant,
    id: &str,
) -> AppResult<Vec<Integration>> {
    let uuid = store::parse_integration_id(id)?;
    let now = Utc::now();
    let deleted = diesel::update(store::live_in_environment(tenant).filter(integrations::id.eq(uuid)))
        .set((
            integrations::deleted.eq(true),
            integrations::deleted_at.eq(now),
            integrations::deleted_by.eq(tenant.environment_id.to_string()),
            integrations::is_primary.eq(false),
            integrations::updated_at.eq(now),
        ))
        .execute(conn)
        .await?;
    if deleted == 0 {
        return Err(store::not_found(id));
    }
    list_integrations(conn, cipher, tenant).await
}

fn duplicate_identifier(identifier: &str) -> AppError {
    AppError::Conflict(format!("Integration with identifier {identifier} already exists"))
}

fn encrypt_credentials(cipher: &CredentialCipher, credentials: &Value) -> Vec<u8> {
    let plaintext = serde_json::to_vec(credentials).expect("a JSON value serializes");
    cipher.encrypt(&plaintext)
}

fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buffer);
    hex::encode(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(channel: &str, provider_id: &str) -> NewIntegration {
        NewIntegration { channel: channel.into(), provider_id: provider_id.into(), ..Default::default() }
    }

    fn rejected_paths(result: AppResult<()>) -> Vec<String> {
        match result {
            Err(AppError::Validation(fields)) => fields.into_iter().map(|field| field.path).collect(),
            other => panic!("expected a 422, got {other:?}"),
        }
    }

    #[test]
    fn provider_must_belong_to_the_channel() {
        assert!(validate_new(&new("email", "sendgrid")).is_ok());
        assert!(validate_new(&new("in_app", "svc")).is_ok());
        assert_eq!(rejected_paths(validate_new(&new("sms", "sendgrid"))), ["providerId"]);
        assert_eq!(rejected_paths(validate_new(&new("", "sendgrid"))), ["channel"]);
    }

    #[test]
    fn every_bad_field_is_reported() {
        let mut request = new("email", "nope");
        request.name = Some("  ".into());
        request.identifier = Some("a/b".into());
        assert_eq!(rejected_paths(validate_new(&request)), ["providerId", "name", "identifier"]);
    }
}
