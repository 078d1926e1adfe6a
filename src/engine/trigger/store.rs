//! The trigger's writes, each one statement whatever the number of recipients: subscriber upserts,
//! the tenant upsert, the transaction id claim, notifications and jobs.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::{json, Value};
use uuid::Uuid;

use super::request::{SubscriberInput, TenantReference};
use crate::db::schema::{jobs, notifications, tenants, trigger_transactions};
use crate::domain::tenancy::Tenant;
use crate::engine::jobs::Job;
use crate::error::{AppError, AppResult};

/// Rows per multi-row INSERT: PostgreSQL allows 65,535 bind parameters; a job has 28 columns.
const INSERT_CHUNK: usize = 2_000;

/// Claims `transaction_id` for this environment; false when it was used before.
pub async fn claim_transaction_id(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    transaction_id: &str,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let inserted = diesel::insert_into(trigger_transactions::table)
        .values((
            trigger_transactions::environment_id.eq(environment_id),
            trigger_transactions::transaction_id.eq(transaction_id),
            trigger_transactions::created_at.eq(now),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    Ok(inserted == 1)
}

/// Whether a trigger with this transaction id exists in the environment.
pub async fn transaction_exists(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    transaction_id: &str,
) -> AppResult<bool> {
    let found = trigger_transactions::table
        .filter(trigger_transactions::environment_id.eq(environment_id))
        .filter(trigger_transactions::transaction_id.eq(transaction_id))
        .count()
        .get_result::<i64>(conn)
        .await?;
    Ok(found > 0)
}

#[derive(QueryableByName)]
struct UpsertedSubscriber {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    subscriber_id: String,
}

/// Creates the subscribers that do not exist and writes the present fields of the others (`data`
/// replaced); returns the internal id of each subscriberId. One statement for all of them, run again
/// for any row a concurrent trigger created meanwhile (invisible to the first statement's snapshot).
pub async fn upsert_subscribers(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    inputs: &[SubscriberInput],
    now: DateTime<Utc>,
) -> AppResult<HashMap<String, Uuid>> {
    let mut sorted: Vec<&SubscriberInput> = inputs.iter().collect();
    // One lock order for every trigger, so concurrent triggers to overlapping recipients cannot deadlock.
    sorted.sort_by(|a, b| a.subscriber_id.cmp(&b.subscriber_id));
    sorted.dedup_by(|a, b| a.subscriber_id == b.subscriber_id);
    let mut ids = HashMap::with_capacity(sorted.len());
    for _ in 0..3 {
        let missing: Vec<Value> = sorted
            .iter()
            .filter(|input| !ids.contains_key(&input.subscriber_id))
            .map(|input| {
                json!({
                    "id": Uuid::now_v7(),
                    "subscriber_id": input.subscriber_id,
                    "email": input.email, "first_name": input.first_name, "last_name": input.last_name,
                    "phone": input.phone, "avatar": input.avatar, "locale": input.locale,
                    "timezone": input.timezone, "data": input.data,
                })
            })
            .collect();
        if missing.is_empty() {
            break;
        }
        let rows: Vec<UpsertedSubscriber> = diesel::sql_query(UPSERT_SUBSCRIBERS)
            .bind::<Jsonb, _>(Value::Array(missing))
            .bind::<SqlUuid, _>(tenant.environment_id)
            .bind::<SqlUuid, _>(tenant.organization_id)
            .bind::<Timestamptz, _>(now)
            .load(conn)
            .await?;
        ids.extend(rows.into_iter().map(|row| (row.subscriber_id, row.id)));
    }
    if ids.len() < sorted.len() {
        return Err(AppError::internal("subscribers could not be upserted after 3 attempts"));
    }
    Ok(ids)
}

const UPSERT_SUBSCRIBERS: &str = "
WITH input AS (
    SELECT * FROM jsonb_to_recordset($1) AS x(
        id uuid, subscriber_id text, email text, first_name text, last_name text, phone text, avatar text,
        locale text, timezone text, data jsonb)
),
upserted AS (
    INSERT INTO subscribers AS s (id, environment_id, organization_id, subscriber_id, email, first_name, last_name,
                                  phone, avatar, locale, timezone, data, created_at, updated_at)
    SELECT id, $2, $3, subscriber_id, email, first_name, last_name, phone, avatar, locale, timezone,
           NULLIF(data, 'null'::jsonb), $4, $4
    FROM input ORDER BY subscriber_id
    ON CONFLICT (environment_id, subscriber_id) WHERE NOT deleted DO UPDATE SET
        email = COALESCE(EXCLUDED.email, s.email),
        first_name = COALESCE(EXCLUDED.first_name, s.first_name),
        last_name = COALESCE(EXCLUDED.last_name, s.last_name),
        phone = COALESCE(EXCLUDED.phone, s.phone),
        avatar = COALESCE(EXCLUDED.avatar, s.avatar),
        locale = COALESCE(EXCLUDED.locale, s.locale),
        timezone = COALESCE(EXCLUDED.timezone, s.timezone),
        data = COALESCE(EXCLUDED.data, s.data),
        version = s.version + 1,
        updated_at = EXCLUDED.updated_at
    -- Only when a sent field changes something: an unchanged subscriber keeps its __v.
    WHERE (EXCLUDED.email IS NOT NULL AND EXCLUDED.email IS DISTINCT FROM s.email)
       OR (EXCLUDED.first_name IS NOT NULL AND EXCLUDED.first_name IS DISTINCT FROM s.first_name)
       OR (EXCLUDED.last_name IS NOT NULL AND EXCLUDED.last_name IS DISTINCT FROM s.last_name)
       OR (EXCLUDED.phone IS NOT NULL AND EXCLUDED.phone IS DISTINCT FROM s.phone)
       OR (EXCLUDED.avatar IS NOT NULL AND EXCLUDED.avatar IS DISTINCT FROM s.avatar)
       OR (EXCLUDED.locale IS NOT NULL AND EXCLUDED.locale IS DISTINCT FROM s.locale)
       OR (EXCLUDED.timezone IS NOT NULL AND EXCLUDED.timezone IS DISTINCT FROM s.timezone)
       OR (EXCLUDED.data IS NOT NULL AND EXCLUDED.data IS DISTINCT FROM s.data)
    RETURNING s.id, s.subscriber_id
)
SELECT id, subscriber_id FROM upserted
UNION ALL
SELECT s.id, s.subscriber_id
FROM subscribers s JOIN input i ON s.subscriber_id = i.subscriber_id
WHERE s.environment_id = $2 AND NOT s.deleted
  AND s.subscriber_id NOT IN (SELECT subscriber_id FROM upserted)";

/// The id of the tenant named by identifier, None when it does not exist.
pub async fn find_tenant(conn: &mut AsyncPgConnection, tenant: Tenant, identifier: &str) -> AppResult<Option<Uuid>> {
    Ok(tenants::table
        .filter(tenants::environment_id.eq(tenant.environment_id))
        .filter(tenants::identifier.eq(identifier))
        .select(tenants::id)
        .first(conn)
        .await
        .optional()?)
}

#[derive(QueryableByName)]
struct TenantId {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
}

/// Creates the tenant or writes its present fields; returns its id.
pub async fn upsert_tenant(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    reference: &TenantReference,
    now: DateTime<Utc>,
) -> AppResult<Uuid> {
    let (name, data) = match reference {
        TenantReference::Upsert { name, data, .. } => (name.clone(), data.clone()),
        TenantReference::Identifier(_) => (None, None),
    };
    let row: TenantId = diesel::sql_query(
        "INSERT INTO tenants AS t (id, environment_id, organization_id, identifier, name, data, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
         ON CONFLICT (environment_id, identifier) DO UPDATE SET
             name = COALESCE(EXCLUDED.name, t.name), data = COALESCE(EXCLUDED.data, t.data),
             updated_at = EXCLUDED.updated_at
         RETURNING t.id",
    )
    .bind::<SqlUuid, _>(Uuid::now_v7())
    .bind::<SqlUuid, _>(tenant.environment_id)
    .bind::<SqlUuid, _>(tenant.organization_id)
    .bind::<Text, _>(reference.identifier())
    .bind::<Nullable<Text>, _>(name)
    .bind::<Nullable<Jsonb>, _>(data)
    .bind::<Timestamptz, _>(now)
    .get_result(conn)
    .await?;
    Ok(row.id)
}

/// A notification row as the trigger creates it.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = notifications)]
pub struct NewNotification {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub workflow_id: Uuid,
    pub subscriber_id: Uuid,
    pub transaction_id: String,
    pub payload: Value,
    pub overrides: Value,
    pub actor_subscriber_id: Option<Uuid>,
    pub tenant_id: Option<Uuid>,
    pub tags: Vec<String>,
    pub to_recipient: Value,
    pub channels: Vec<String>,
    pub severity: String,
    pub critical: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Inserts the notifications and their jobs in multi-row statements.
pub async fn insert_fanout(
    conn: &mut AsyncPgConnection,
    notifications: &[NewNotification],
    jobs: &[Job],
) -> AppResult<()> {
    for chunk in notifications.chunks(INSERT_CHUNK) {
        diesel::insert_into(notifications::table).values(chunk).execute(conn).await?;
    }
    for chunk in jobs.chunks(INSERT_CHUNK) {
        diesel::insert_into(jobs::table).values(chunk).execute(conn).await?;
    }
    Ok(())
}
