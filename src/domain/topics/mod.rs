//! Topics: named groups of subscribers, addressed by the client's `key`. A trigger naming a topic
//! reaches its members through the engine's fan-out (`engine::fanouts`); this module keeps the
//! topics and their membership.

mod members;

pub use members::{
    add_subscribers, get_membership, remove_memberships_of, remove_subscribers, topic_keys_of, AddOutcome, Membership,
    MAX_SUBSCRIBERS_PER_CALL,
};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use crate::db::schema::{topic_subscribers, topics};
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::error::{violated_unique_constraint, AppError, AppResult};

/// Longest topic key and name.
pub const MAX_KEY_CHARS: usize = 100;
pub const MAX_NAME_CHARS: usize = 100;
/// Topics per page of a listing: default and most.
pub const DEFAULT_PAGE_SIZE: i64 = 10;
pub const MAX_PAGE_SIZE: i64 = 100;

/// A stored topic.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = topics)]
pub struct Topic {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub key: String,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A topic with the subscriberIds of its members, in the order they joined.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicWithMembers {
    pub topic: Topic,
    pub subscribers: Vec<String>,
}

/// One page of a topic listing.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPage {
    pub data: Vec<TopicWithMembers>,
    pub page: i64,
    pub page_size: i64,
    pub total_count: i64,
}

/// Whether `key` is a valid topic key: 1 to 100 characters of letters, digits and `-_:.@` (the
/// reference service's alphabet plus what an email address needs).
pub fn is_topic_key(key: &str) -> bool {
    (1..=MAX_KEY_CHARS).contains(&key.chars().count())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || "-_:.@".contains(c))
}

/// Records a 422 for `key` at `path` unless it is a valid topic key.
pub fn check_key(validator: &mut Validator, path: &str, key: &str) {
    validator.check(
        is_topic_key(key),
        path,
        format!("{path} must be 1 to {MAX_KEY_CHARS} characters of letters, digits and -_:.@"),
        key,
    );
}

fn check_name(validator: &mut Validator, name: &str) {
    let length = name.chars().count();
    validator.check(
        (1..=MAX_NAME_CHARS).contains(&length),
        "name",
        format!("name must be 1 to {MAX_NAME_CHARS} characters"),
        name,
    );
}

/// Creates the topic `key`; 409 when the environment already has it.
pub async fn create_topic(conn: &mut AsyncPgConnection, tenant: Tenant, key: &str, name: &str) -> AppResult<Topic> {
    let mut validator = Validator::new();
    check_key(&mut validator, "key", key);
    check_name(&mut validator, name);
    validator.finish()?;
    let now = Utc::now();
    let inserted = diesel::insert_into(topics::table)
        .values((
            topics::id.eq(Uuid::now_v7()),
            topics::environment_id.eq(tenant.environment_id),
            topics::organization_id.eq(tenant.organization_id),
            topics::key.eq(key),
            topics::name.eq(name),
            topics::created_at.eq(now),
            topics::updated_at.eq(now),
        ))
        .returning(Topic::as_returning())
        .get_result(conn)
        .await;
    match inserted {
        Ok(topic) => Ok(topic),
        Err(error) if violated_unique_constraint(&error).is_some() => {
            Err(AppError::Conflict(format!("Topic with key {key} already exists")))
        }
        Err(error) => Err(error.into()),
    }
}

/// The topic `key`, if the environment has it.
pub async fn find_topic(conn: &mut AsyncPgConnection, tenant: Tenant, key: &str) -> AppResult<Option<Topic>> {
    Ok(topics::table
        .filter(topics::environment_id.eq(tenant.environment_id))
        .filter(topics::key.eq(key))
        .select(Topic::as_select())
        .first(conn)
        .await
        .optional()?)
}

/// How [`lock_topic`] locks the topic row.
pub(crate) enum TopicLock {
    /// Adding members: any number of adds at once, but no delete.
    Share,
    /// Deleting it: alone.
    Update,
}

/// The topic `key` locked until the transaction ends, if it exists (a row deleted while this waited for
/// its lock is not returned).
pub(crate) async fn lock_topic(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    key: &str,
    lock: TopicLock,
) -> AppResult<Option<Topic>> {
    let query = topics::table
        .filter(topics::environment_id.eq(tenant.environment_id))
        .filter(topics::key.eq(key))
        .select(Topic::as_select());
    let topic = match lock {
        TopicLock::Share => query.for_share().first(conn).await,
        TopicLock::Update => query.for_update().first(conn).await,
    };
    Ok(topic.optional()?)
}

/// The topic `key`, or 404.
pub async fn get_topic(conn: &mut AsyncPgConnection, tenant: Tenant, key: &str) -> AppResult<Topic> {
    find_topic(conn, tenant, key).await?.ok_or_else(|| not_found(key))
}

/// The topic `key` with its members, or 404.
pub async fn get_topic_with_members(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    key: &str,
) -> AppResult<TopicWithMembers> {
    let topic = get_topic(conn, tenant, key).await?;
    Ok(with_members(conn, vec![topic]).await?.remove(0))
}

/// A page of the environment's topics, oldest first, optionally only the one with `key`.
pub async fn list_topics(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    page: Option<i64>,
    page_size: Option<i64>,
    key: Option<&str>,
) -> AppResult<TopicPage> {
    let page = page.unwrap_or(0);
    let page_size = page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    let mut validator = Validator::new();
    validator.check(page >= 0, "page", "page must be 0 or more", page);
    validator.check(
        (1..=MAX_PAGE_SIZE).contains(&page_size),
        "pageSize",
        format!("pageSize must be between 1 and {MAX_PAGE_SIZE}"),
        page_size,
    );
    validator.finish()?;
    let filtered = || {
        let mut query = topics::table.filter(topics::environment_id.eq(tenant.environment_id)).into_boxed();
        if let Some(key) = key {
            query = query.filter(topics::key.eq(key.to_string()));
        }
        query
    };
    let total_count: i64 = filtered().count().get_result(conn).await?;
    let rows: Vec<Topic> = filtered()
        .order(topics::id)
        .offset(page.saturating_mul(page_size))
        .limit(page_size)
        .select(Topic::as_select())
        .load(conn)
        .await?;
    Ok(TopicPage { data: with_members(conn, rows).await?, page, page_size, total_count })
}

/// `topics` with their members, in one query.
async fn with_members(conn: &mut AsyncPgConnection, topics: Vec<Topic>) -> AppResult<Vec<TopicWithMembers>> {
    let ids: Vec<Uuid> = topics.iter().map(|topic| topic.id).collect();
    let members: Vec<(Uuid, String)> = topic_subscribers::table
        .filter(topic_subscribers::topic_id.eq_any(&ids))
        .order((topic_subscribers::created_at, topic_subscribers::subscriber_id))
        .select((topic_subscribers::topic_id, topic_subscribers::external_subscriber_id))
        .load(conn)
        .await?;
    Ok(topics
        .into_iter()
        .map(|topic| {
            let subscribers =
                members.iter().filter(|(id, _)| *id == topic.id).map(|(_, subscriber)| subscriber.clone()).collect();
            TopicWithMembers { topic, subscribers }
        })
        .collect())
}

/// Renames the topic `key`.
pub async fn rename_topic(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    key: &str,
    name: &str,
) -> AppResult<TopicWithMembers> {
    let mut validator = Validator::new();
    check_name(&mut validator, name);
    validator.finish()?;
    let renamed: Option<Topic> = diesel::update(topics::table)
        .filter(topics::environment_id.eq(tenant.environment_id))
        .filter(topics::key.eq(key))
        .set((topics::name.eq(name), topics::updated_at.eq(Utc::now())))
        .returning(Topic::as_returning())
        .get_result(conn)
        .await
        .optional()?;
    let topic = renamed.ok_or_else(|| not_found(key))?;
    Ok(with_members(conn, vec![topic]).await?.remove(0))
}

/// Deletes the topic `key`: 404 when unknown, 409 while it has members (as the reference service
/// answers: removing the members first is an explicit act, not a side effect of a delete).
pub async fn delete_topic(conn: &mut AsyncPgConnection, tenant: Tenant, key: &str) -> AppResult<()> {
    conn.transaction::<_, AppError, _>(async |conn| {
        // Locked first, so that the members are counted after any add holding the topic has committed
        // (each statement here sees what committed before it started).
        let topic = lock_topic(conn, tenant, key, TopicLock::Update).await?.ok_or_else(|| not_found(key))?;
        let has_members: bool = diesel::select(diesel::dsl::exists(
            topic_subscribers::table.filter(topic_subscribers::topic_id.eq(topic.id)),
        ))
        .get_result(conn)
        .await?;
        if has_members {
            return Err(AppError::Conflict(format!(
                "Topic with key {key} still has subscribers; remove them before deleting it"
            )));
        }
        diesel::delete(topics::table.filter(topics::id.eq(topic.id))).execute(conn).await?;
        Ok(())
    })
    .await
}

pub(crate) fn not_found(key: &str) -> AppError {
    AppError::NotFound(format!("Topic with key {key} not found"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_keys_are_1_to_100_characters_of_the_allowed_alphabet() {
        for valid in ["a", "project:42", "team_a-b.c", "user@example.com", &"k".repeat(100)] {
            assert!(is_topic_key(valid), "{valid}");
        }
        for invalid in ["", "with space", "slash/key", "é", "a,b", &"k".repeat(101)] {
            assert!(!is_topic_key(invalid), "{invalid}");
        }
    }
}
