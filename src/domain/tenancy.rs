//! Organizations, environments and API keys.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::validation::Validator;
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

/// A freshly issued API key. The plain key exists only here; the database keeps its hash.
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
        let key = insert_api_key(conn, environment.id).await?;
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
pub async fn create_api_key(conn: &mut AsyncPgConnection, environment_id: Uuid) -> AppResult<IssuedApiKey> {
    get_environment(conn, environment_id).await?;
    insert_api_key(conn, environment_id).await
}

async fn insert_api_key(conn: &mut AsyncPgConnection, environment_id: Uuid) -> AppResult<IssuedApiKey> {
    let mut secret = [0u8; 32];
    rand::rng().fill_bytes(&mut secret);
    let key = format!("hk_{}", hex::encode(secret));
    diesel::insert_into(api_keys::table)
        .values((
            api_keys::id.eq(Uuid::now_v7()),
            api_keys::environment_id.eq(environment_id),
            api_keys::key_hash.eq(hash_api_key(&key)),
        ))
        .execute(conn)
        .await?;
    Ok(IssuedApiKey { environment_id, key })
}
