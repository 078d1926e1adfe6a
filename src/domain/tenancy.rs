//! Organizations, environments and API keys.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::validation::Validator;
use crate::crypto::CredentialCipher;
use crate::db::schema::{api_keys, environments, organizations};
use crate::error::{AppError, AppResult};

/// An environment of an organization.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = environments)]
pub struct Environment {
    pub id: Uuid,
    pub organization_id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Public: an inbox session names its environment with it.
    pub application_identifier: String,
}

/// An environment with the name of its organization, for listings.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvironmentSummary {
    pub environment: Environment,
    pub organization_name: String,
}

/// Who is calling: the environment (and its organization) an API key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tenant {
    pub organization_id: Uuid,
    pub environment_id: Uuid,
}

/// A freshly issued API key. The database keeps its hash (every request's lookup) and the key
/// encrypted with the credential cipher (to check inbox sessions' `subscriberHash`).
#[derive(Debug, Clone)]
pub struct IssuedApiKey {
    pub environment_id: Uuid,
    pub key: String,
}

/// SHA-256 of an API key, the only form in which keys are stored and looked up.
pub fn hash_api_key(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

/// Finds the environment of an API key through the unique index on its hash.
pub async fn find_tenant_by_api_key(conn: &mut AsyncPgConnection, key: &str) -> AppResult<Option<Tenant>> {
    let found = api_keys::table
        .inner_join(environments::table)
        .filter(api_keys::key_hash.eq(hash_api_key(key)))
        .select((environments::organization_id, environments::id))
        .first::<(Uuid, Uuid)>(conn)
        .await
        .optional()?;
    Ok(found.map(|(organization_id, environment_id)| Tenant { organization_id, environment_id }))
}

/// The environment an inbox session names by its public identifier; None when no environment has it.
pub async fn find_environment_by_application_identifier(
    conn: &mut AsyncPgConnection,
    application_identifier: &str,
) -> AppResult<Option<Environment>> {
    Ok(environments::table
        .filter(environments::application_identifier.eq(application_identifier))
        .select(Environment::as_select())
        .first(conn)
        .await
        .optional()?)
}

/// The environment's API keys that can be recovered, oldest first: those created before the keys were
/// kept encrypted exist only as hashes and are missing here.
pub async fn recoverable_api_keys(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    environment_id: Uuid,
) -> AppResult<Vec<String>> {
    let encrypted: Vec<Vec<u8>> = api_keys::table
        .filter(api_keys::environment_id.eq(environment_id))
        .filter(api_keys::key_encrypted.is_not_null())
        .order((api_keys::created_at, api_keys::id))
        .select(api_keys::key_encrypted.assume_not_null())
        .load(conn)
        .await?;
    encrypted
        .iter()
        .map(|stored| {
            let plain = cipher.decrypt(stored).map_err(|error| AppError::internal(error.to_string()))?;
            String::from_utf8(plain).map_err(AppError::internal)
        })
        .collect()
}

/// A new environment's public identifier: 122 random bits in hex, the format the migration gives
/// environments that existed before identifiers did.
fn new_application_identifier() -> String {
    Uuid::new_v4().simple().to_string()
}

/// Loads an environment by id.
pub async fn get_environment(conn: &mut AsyncPgConnection, id: Uuid) -> AppResult<Environment> {
    environments::table
        .find(id)
        .select(Environment::as_select())
        .first(conn)
        .await
        .optional()?
        .ok_or_else(|| AppError::NotFound(format!("Environment with id {id} not found")))
}

/// Environments by id, kept in process for `GET /v1/environments/me`: nothing in the API changes an
/// environment once created (the admin commands create them), so the entries only expire to bound
/// staleness after an operator's direct edit, and an authenticated read of `/me` costs no database
/// round trip in the steady state.
#[derive(Clone)]
pub struct EnvironmentCache {
    entries: moka::future::Cache<Uuid, Environment>,
}

impl Default for EnvironmentCache {
    fn default() -> Self {
        let entries =
            moka::future::Cache::builder().max_capacity(Self::CAPACITY).time_to_live(Self::TIME_TO_LIVE).build();
        Self { entries }
    }
}

impl EnvironmentCache {
    const TIME_TO_LIVE: std::time::Duration = std::time::Duration::from_secs(30);
    /// Most environments kept (a few hundred bytes each).
    const CAPACITY: u64 = 10_000;

    /// The environment `id`; a database read only on a miss, shared by concurrent lookups.
    pub async fn get(&self, pool: &crate::db::DbPool, id: Uuid) -> AppResult<Environment> {
        self.entries
            .try_get_with(id, async {
                let mut conn = pool.get().await?;
                get_environment(&mut conn, id).await
            })
            .await
            .map_err(AppError::from_shared)
    }
}

/// Every environment with its organization's name, oldest first.
pub async fn list_environments(conn: &mut AsyncPgConnection) -> AppResult<Vec<EnvironmentSummary>> {
    let rows = environments::table
        .inner_join(organizations::table)
        .order(environments::id)
        .select((Environment::as_select(), organizations::name))
        .load::<(Environment, String)>(conn)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(environment, organization_name)| EnvironmentSummary { environment, organization_name })
        .collect())
}

/// Creates an environment (and its organization when that does not exist yet) with a first API key.
/// An environment of that name already in the organization → 409.
pub async fn create_environment(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    organization_name: &str,
    environment_name: &str,
) -> AppResult<(Environment, IssuedApiKey)> {
    use diesel_async::AsyncConnection;

    let organization_name = organization_name.trim().to_string();
    let environment_name = environment_name.trim().to_string();
    let mut validator = Validator::new();
    validator.check(!organization_name.is_empty(), "organization", "organization must not be empty", "");
    validator.check(!environment_name.is_empty(), "name", "name must not be empty", "");
    validator.finish()?;
    conn.transaction::<_, AppError, _>(async |conn| {
        let organization_id = upsert_organization(conn, &organization_name).await?;
        let now = Utc::now();
        let environment = Environment {
            id: Uuid::now_v7(),
            organization_id,
            name: environment_name.clone(),
            created_at: now,
            updated_at: now,
            application_identifier: new_application_identifier(),
        };
        let inserted = diesel::insert_into(environments::table)
            .values(&environment)
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
        if inserted == 0 {
            return Err(AppError::Conflict(format!(
                "Environment {environment_name} already exists in organization {organization_name}"
            )));
        }
        let key = insert_api_key(conn, cipher, environment.id).await?;
        Ok((environment, key))
    })
    .await
}

async fn upsert_organization(conn: &mut AsyncPgConnection, name: &str) -> AppResult<Uuid> {
    // The no-op update makes RETURNING yield the existing row's id on conflict.
    Ok(diesel::insert_into(organizations::table)
        .values((organizations::id.eq(Uuid::now_v7()), organizations::name.eq(name)))
        .on_conflict(organizations::name)
        .do_update()
        .set(organizations::name.eq(name))
        .returning(organizations::id)
        .get_result(conn)
        .await?)
}

/// Issues a new API key for an existing environment.
pub async fn create_api_key(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    environment_id: Uuid,
) -> AppResult<IssuedApiKey> {
    get_environment(conn, environment_id).await?;
    insert_api_key(conn, cipher, environment_id).await
}

async fn insert_api_key(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    environment_id: Uuid,
) -> AppResult<IssuedApiKey> {
    let mut secret = [0u8; 32];
    rand::rng().fill_bytes(&mut secret);
    let key = format!("hk_{}", hex::encode(secret));
    diesel::insert_into(api_keys::table)
        .values((
            api_keys::id.eq(Uuid::now_v7()),
            api_keys::environment_id.eq(environment_id),
            api_keys::key_hash.eq(hash_api_key(&key)),
            api_keys::key_encrypted.eq(cipher.encrypt(key.as_bytes())),
        ))
        .execute(conn)
        .await?;
    Ok(IssuedApiKey { environment_id, key })
}
