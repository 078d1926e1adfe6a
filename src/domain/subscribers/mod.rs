//! Subscribers: the end users notifications go to, identified by the client's own `subscriberId`.
//! Deletion is soft: a deleted subscriber is hidden from reads and search, its messages are kept.

mod channels;
mod credentials;
mod dead_destinations;
mod profile;
mod search;

pub use channels::{credential_providers, ChannelCredentials, ChannelSetting, MAX_DEVICE_TOKENS};
pub use credentials::{upsert_credentials, CredentialsUpdate};
pub use dead_destinations::{remove_dead_destinations, DeadDestination, DeadKind};
pub(crate) use profile::validate_profile_at;
pub use profile::{create_subscriber, delete_subscriber, update_subscriber, NewSubscriber, Patch, ProfilePatch};
pub(crate) use search::contains_pattern;
pub use search::{search_subscribers, OrderBy, SearchPage, SearchQuery, TOTAL_COUNT_CAP};

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::schema::subscribers;
use crate::domain::tenancy::Tenant;
use crate::error::{AppError, AppResult};

/// A stored subscriber.
#[derive(Debug, Clone, PartialEq, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = subscribers)]
pub struct Subscriber {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub subscriber_id: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub avatar: Option<String>,
    pub locale: Option<String>,
    pub timezone: Option<String>,
    pub data: Option<Value>,
    /// JSON array of [`ChannelSetting`].
    pub channels: Value,
    pub is_online: Option<bool>,
    pub last_online_at: Option<DateTime<Utc>>,
    pub version: i32,
    pub deleted: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Subscriber {
    /// The stored channel credentials. Rows are written only through [`ChannelSetting`], so a
    /// value that does not read back is a bug, reported as such.
    pub fn channel_settings(&self) -> AppResult<Vec<ChannelSetting>> {
        serde_json::from_value(self.channels.clone()).map_err(AppError::internal)
    }
}

/// The live (not deleted) subscriber `subscriber_id` of the tenant's environment, or 404.
pub async fn get_subscriber(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber_id: &str,
) -> AppResult<Subscriber> {
    find_subscriber(conn, tenant, subscriber_id).await?.ok_or_else(|| not_found(subscriber_id))
}

/// The live subscriber `subscriber_id`, if any.
pub async fn find_subscriber(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber_id: &str,
) -> AppResult<Option<Subscriber>> {
    Ok(subscribers::table
        .filter(subscribers::environment_id.eq(tenant.environment_id))
        .filter(subscribers::subscriber_id.eq(subscriber_id))
        .filter(diesel::dsl::not(subscribers::deleted))
        .select(Subscriber::as_select())
        .first(conn)
        .await
        .optional()?)
}

/// The subscribers of the environment with these internal ids, deleted ones included (the history of
/// events and messages keeps them), in one query.
///
/// Looked up by primary key alone, the environment checked on the rows: with `environment_id` in the
/// query, the planner walked all of the subscribers of an environment newer than the table's statistics
/// (which it believes empty) for every page of events or messages: 4,000 rows read for 11 (a probe,
/// docs/performance.md).
pub async fn subscribers_by_ids(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    ids: &[Uuid],
) -> AppResult<HashMap<Uuid, Subscriber>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<Subscriber> =
        subscribers::table.filter(subscribers::id.eq_any(ids)).select(Subscriber::as_select()).load(conn).await?;
    Ok(rows
        .into_iter()
        .filter(|subscriber| subscriber.environment_id == environment_id)
        .map(|subscriber| (subscriber.id, subscriber))
        .collect())
}

pub(crate) fn not_found(subscriber_id: &str) -> AppError {
    AppError::NotFound(format!("Subscriber with subscriberId {subscriber_id} not found"))
}
