//! Seen/read state of a subscriber's messages (mark-as).
//!
//! | markAs | read | seen | lastReadDate | lastSeenDate |
//! |---|---|---|---|---|
//! | read | true | true | now | now |
//! | unread | false | true | now | now |
//! | seen | kept | true | kept | now |
//! | unseen | kept | false | kept | now |
//!
//! All or nothing: every id must be a message of that subscriber in the environment, else a 404 lists
//! the ids that are not and nothing changes. One `UPDATE … WHERE id = ANY(…) AND subscriber_id = …
//! RETURNING` in a transaction that rolls back when fewer rows come back than ids were named.
//! Where the spec is silent: the channel is not checked (any message of the subscriber can be
//! marked); a repeated id counts once; the answer lists the messages in the order of the request.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::{with_relations, Message, StoredMessage};
use crate::db::schema::messages;
use crate::domain::subscribers::get_subscriber;
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// The state change of a mark-as request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkAs {
    Read,
    Seen,
    Unread,
    Unseen,
}

/// The columns one state change writes; `None` leaves a column as it is.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = messages)]
struct StateChange {
    read: Option<bool>,
    seen: bool,
    last_read_date: Option<DateTime<Utc>>,
    last_seen_date: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl MarkAs {
    fn change(self, now: DateTime<Utc>) -> StateChange {
        let (read, seen, last_read_date) = match self {
            MarkAs::Read => (Some(true), true, Some(now)),
            MarkAs::Unread => (Some(false), true, Some(now)),
            MarkAs::Seen => (None, true, None),
            MarkAs::Unseen => (None, false, None),
        };
        StateChange { read, seen, last_read_date, last_seen_date: now, updated_at: now }
    }
}

/// Applies `mark_as` to the messages `message_ids` of the live subscriber `subscriber_id` (the
/// client's id) and returns them as updated. `mark_as` is `None` when the request did not say.
pub async fn mark_messages_as(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber_id: &str,
    message_ids: &[String],
    mark_as: Option<MarkAs>,
) -> AppResult<Vec<Message>> {
    let mut validator = Validator::new();
    validator.check(
        !message_ids.is_empty(),
        "messageId",
        "messageId must be a message id or a non-empty array of them",
        serde_json::json!(message_ids),
    );
    validator.check(
        mark_as.is_some(),
        "markAs",
        "markAs must be one of read, seen, unread, unseen",
        serde_json::Value::Null,
    );
    validator.finish()?;
    let mark_as = mark_as.expect("checked above");

    let subscriber = get_subscriber(conn, tenant, subscriber_id).await?;
    // Each id once (`ABC…` and `abc…` are one id); ids that are not UUIDs name no message.
    let mut requested: Vec<(&str, Option<Uuid>)> = Vec::new();
    for text in message_ids {
        let id = Uuid::parse_str(text).ok();
        let seen = requested.iter().any(|(other, other_id)| match id {
            Some(_) => *other_id == id,
            None => other == text,
        });
        if !seen {
            requested.push((text, id));
        }
    }
    let ids: Vec<Uuid> = requested.iter().filter_map(|(_, id)| *id).collect();

    let updated: Vec<StoredMessage> = conn
        .transaction::<_, AppError, _>(async |conn| {
            // The rows are locked in id order first: an UPDATE locks them in the order its scan meets
            // them, which changes as updates move row versions, so two concurrent marks of the same
            // messages could each hold a row the other waits for (measured in the soak: `deadlock
            // detected` between a mark-as read and a mark-as unread of one set of 100).
            let locked: Vec<Uuid> = messages::table
                .select(messages::id)
                .filter(messages::environment_id.eq(tenant.environment_id))
                .filter(messages::subscriber_id.eq(subscriber.id))
                .filter(messages::id.eq_any(&ids))
                .order(messages::id)
                .for_update()
                .load(conn)
                .await?;
            let updated: Vec<StoredMessage> = diesel::update(messages::table.filter(messages::id.eq_any(&locked)))
                .set(mark_as.change(Utc::now()))
                .returning(StoredMessage::as_returning())
                .get_results(conn)
                .await?;
            if updated.len() != requested.len() {
                let unknown: Vec<&str> = requested
                    .iter()
                    .filter(|(_, id)| !id.is_some_and(|id| updated.iter().any(|row| row.id == id)))
                    .map(|(text, _)| *text)
                    .collect();
                // Returning an error rolls the update back: nothing changes.
                return Err(AppError::NotFound(format!(
                    "Messages not found for subscriber {subscriber_id}: {}",
                    unknown.join(", ")
                )));
            }
            Ok(updated)
        })
        .await?;

    let mut by_id: HashMap<Uuid, StoredMessage> = updated.into_iter().map(|row| (row.id, row)).collect();
    let in_request_order: Vec<StoredMessage> = ids.iter().filter_map(|id| by_id.remove(id)).collect();
    with_relations(conn, tenant.environment_id, in_request_order).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_change_writes_its_columns() {
        let now = Utc::now();
        let read = MarkAs::Read.change(now);
        assert_eq!(
            (read.read, read.seen, read.last_read_date, read.last_seen_date),
            (Some(true), true, Some(now), now)
        );
        let unread = MarkAs::Unread.change(now);
        assert_eq!((unread.read, unread.seen, unread.last_read_date), (Some(false), true, Some(now)));
        let seen = MarkAs::Seen.change(now);
        assert_eq!((seen.read, seen.seen, seen.last_read_date), (None, true, None));
        let unseen = MarkAs::Unseen.change(now);
        assert_eq!((unseen.read, unseen.seen, unseen.last_read_date), (None, false, None));
    }
}
