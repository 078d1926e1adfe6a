//! The inbox listing: newest first (`createdAt`, then id, both descending), by keyset cursor.
//!
//! The cursor (`next`, passed back as `after`) is the position of the page's last notification:
//! opaque to clients (base64url of its `createdAt` in microseconds and its id). A page starts strictly
//! after that position, so notifications arriving meanwhile, which sort before it, neither shift nor
//! repeat what follows (offset paging would repeat a row per arrival). `after` may also be a
//! notification id, as the reference service's clients send: its position is looked up.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::{DateTime, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::{notifications_of, owned_by, InboxFilter, InboxSubscriber};
use crate::db::schema::messages;
use crate::domain::messages::{with_relations, Message, StoredMessage};
use crate::domain::validation::Validator;
use crate::error::AppResult;

pub const DEFAULT_LIMIT: i32 = 10;
pub const MAX_LIMIT: i32 = 100;

/// A listing request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InboxQuery {
    pub filter: InboxFilter,
    pub limit: Option<i32>,
    pub after: Option<String>,
}

/// One page, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct InboxPage {
    pub notifications: Vec<Message>,
    pub has_more: bool,
    /// Cursor of the next page when `has_more`.
    pub next: Option<String>,
}

/// A position in the listing's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Position {
    created_at: DateTime<Utc>,
    id: Uuid,
}

impl Position {
    fn of(row: &StoredMessage) -> Self {
        Self { created_at: row.created_at, id: row.id }
    }

    fn encode(self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{}:{}", self.created_at.timestamp_micros(), self.id.simple()))
    }

    fn decode(cursor: &str) -> Option<Self> {
        let text = String::from_utf8(URL_SAFE_NO_PAD.decode(cursor).ok()?).ok()?;
        let (micros, id) = text.split_once(':')?;
        let created_at = DateTime::from_timestamp_micros(micros.parse().ok()?)?;
        Some(Self { created_at, id: Uuid::try_parse(id).ok()? })
    }
}

/// A page of the subscriber's notifications; a bad `limit` or `after` is a 422.
pub async fn list_inbox_notifications(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    query: InboxQuery,
) -> AppResult<InboxPage> {
    let mut validator = Validator::new();
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    validator.check((1..=MAX_LIMIT).contains(&limit), "limit", "limit must be between 1 and 100", limit);
    let after = match &query.after {
        None => None,
        Some(after) => {
            let position = start_of(conn, subscriber, after).await?;
            validator.check(
                position.is_some(),
                "after",
                "after must be the `next` of a page or the id of a notification of this inbox",
                after.as_str(),
            );
            position
        }
    };
    validator.finish()?;

    let mut statement = notifications_of(subscriber, &query.filter);
    if let Some(after) = after {
        // A row comparison, so the (environment, subscriber, channel, created_at, id) index serves it.
        statement = statement.filter(
            sql::<Bool>("(messages.created_at, messages.id) < (")
                .bind::<Timestamptz, _>(after.created_at)
                .sql(", ")
                .bind::<SqlUuid, _>(after.id)
                .sql(")"),
        );
    }
    let mut rows: Vec<StoredMessage> = statement
        .order((messages::created_at.desc(), messages::id.desc()))
        .limit(i64::from(limit) + 1)
        .select(StoredMessage::as_select())
        .load(conn)
        .await?;
    let has_more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let next = rows.last().filter(|_| has_more).map(|row| Position::of(row).encode());
    let notifications = with_relations(conn, subscriber.tenant.environment_id, rows).await?;
    Ok(InboxPage { notifications, has_more, next })
}

/// Where a page after `after` starts: a cursor's position, or a notification id's.
async fn start_of(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    after: &str,
) -> AppResult<Option<Position>> {
    let Ok(id) = Uuid::try_parse(after) else {
        return Ok(Position::decode(after));
    };
    // Any notification of the inbox places a page, also one snoozed or deleted since it was listed.
    let created_at: Option<DateTime<Utc>> =
        owned_by(subscriber).filter(messages::id.eq(id)).select(messages::created_at).first(conn).await.optional()?;
    Ok(created_at.map(|created_at| Position { created_at, id }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_round_trips_to_the_microsecond_and_garbage_decodes_to_nothing() {
        let position = Position {
            created_at: DateTime::from_timestamp_micros(1_790_000_000_123_456).unwrap(),
            id: Uuid::now_v7(),
        };
        assert_eq!(Position::decode(&position.encode()), Some(position));
        assert_eq!(Position::decode("!!"), None);
        assert_eq!(Position::decode(&URL_SAFE_NO_PAD.encode("12:not-a-uuid")), None);
        assert_eq!(Position::decode(&URL_SAFE_NO_PAD.encode("x:0198")), None);
    }
}
