//! Seen/read state of a subscriber's messages (mark-as).
//!
//! | markAs | read | seen | lastReadDate | lastSeenDate |
//! |---|---|---|---|---|
//! | read | true | true | now | now |
//! | unread | false | true | now | now |
//! | seen | kept | true | kept | now |
//! | unseen | kept | false | kept | now |
//! | archive (inbox) | kept | kept | kept | kept |, archivedAt now
//! | unarchive (inbox) | kept | kept | kept | kept |, archivedAt cleared
//! | snooze (inbox) | kept | kept | kept | kept |, snoozedUntil set
//! | unsnooze (inbox) | kept | kept | kept | kept |, snoozedUntil cleared
//! | delete (inbox) | kept | kept | kept | kept |, deletedAt now, snoozedUntil cleared (it never comes back)
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
use crate::domain::inbox::{record_inbox_events, InboxChange, InboxMessage};
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
    /// Inbox only: the messages API's `markAs` has no such value.
    Archive,
    /// Inbox only.
    Unarchive,
    /// Inbox only: out of the inbox's lists and counts until the time given.
    Snooze(DateTime<Utc>),
    /// Inbox only: back from snooze (by the subscriber, or by the workers when it is due).
    Unsnooze,
    /// Inbox only: gone from the inbox for good (a soft delete).
    Delete,
}

/// The columns one state change writes; `None` leaves a column as it is.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = messages)]
struct StateChange {
    read: Option<bool>,
    seen: Option<bool>,
    last_read_date: Option<DateTime<Utc>>,
    last_seen_date: Option<DateTime<Utc>>,
    /// `Some(None)` clears the column.
    archived_at: Option<Option<DateTime<Utc>>>,
    snoozed_until: Option<Option<DateTime<Utc>>>,
    deleted_at: Option<Option<DateTime<Utc>>>,
    updated_at: DateTime<Utc>,
}

impl MarkAs {
    /// The name an inbox `changed` event gives the change.
    pub fn name(self) -> &'static str {
        match self {
            MarkAs::Read => "read",
            MarkAs::Seen => "seen",
            MarkAs::Unread => "unread",
            MarkAs::Unseen => "unseen",
            MarkAs::Archive => "archive",
            MarkAs::Unarchive => "unarchive",
            MarkAs::Snooze(_) => "snooze",
            MarkAs::Unsnooze => "unsnooze",
            MarkAs::Delete => "delete",
        }
    }

    fn change(self, now: DateTime<Utc>) -> StateChange {
        let unchanged = StateChange {
            read: None,
            seen: None,
            last_read_date: None,
            last_seen_date: None,
            archived_at: None,
            snoozed_until: None,
            deleted_at: None,
            updated_at: now,
        };
        let seen_now = StateChange { seen: Some(true), last_seen_date: Some(now), ..unchanged };
        match self {
            MarkAs::Read => StateChange { read: Some(true), last_read_date: Some(now), ..seen_now },
            MarkAs::Unread => StateChange { read: Some(false), last_read_date: Some(now), ..seen_now },
            MarkAs::Seen => seen_now,
            MarkAs::Unseen => StateChange { seen: Some(false), ..seen_now },
            MarkAs::Archive => StateChange { archived_at: Some(Some(now)), ..unchanged },
            MarkAs::Unarchive => StateChange { archived_at: Some(None), ..unchanged },
            MarkAs::Snooze(until) => StateChange { snoozed_until: Some(Some(until)), ..unchanged },
            MarkAs::Unsnooze => StateChange { snoozed_until: Some(None), ..unchanged },
            MarkAs::Delete => StateChange { deleted_at: Some(Some(now)), snoozed_until: Some(None), ..unchanged },
        }
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
    now: DateTime<Utc>,
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
            let updated = mark_locked_in_id_order(conn, tenant, subscriber.id, &ids, mark_as, now).await?;
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

/// Applies `mark_as` to those of `ids` that are messages of the subscriber (internal id
/// `subscriber`) in the tenant's environment, and returns them as updated. Call it inside a
/// transaction: the rows stay locked until it ends, and the inbox events of the in-app ones among
/// them are written in it ([`record_inbox_events`]).
pub async fn mark_locked_in_id_order(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    subscriber: Uuid,
    ids: &[Uuid],
    mark_as: MarkAs,
    now: DateTime<Utc>,
) -> AppResult<Vec<StoredMessage>> {
    // The rows are locked in id order first: an UPDATE locks them in the order its scan meets
    // them, which changes as updates move row versions, so two concurrent marks of the same
    // messages could each hold a row the other waits for (measured in the soak: `deadlock
    // detected` between a mark-as read and a mark-as unread of one set of 100).
    let locked: Vec<Uuid> = messages::table
        .select(messages::id)
        .filter(messages::environment_id.eq(tenant.environment_id))
        .filter(messages::subscriber_id.eq(subscriber))
        .filter(messages::id.eq_any(ids))
        .order(messages::id)
        .for_update()
        .load(conn)
        .await?;
    let updated = diesel::update(messages::table.filter(messages::id.eq_any(&locked)))
        .set(mark_as.change(now))
        .returning(StoredMessage::as_returning())
        .get_results(conn)
        .await?;
    let in_app = InboxMessage::in_app_of(&updated);
    record_inbox_events(conn, InboxChange::Marked(mark_as), &in_app).await?;
    Ok(updated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_change_writes_its_columns() {
        let now = Utc::now();
        let read = MarkAs::Read.change(now);
        assert_eq!(
            (read.read, read.seen, read.last_read_date, read.last_seen_date, read.archived_at),
            (Some(true), Some(true), Some(now), Some(now), None)
        );
        let unread = MarkAs::Unread.change(now);
        assert_eq!((unread.read, unread.seen, unread.last_read_date), (Some(false), Some(true), Some(now)));
        let seen = MarkAs::Seen.change(now);
        assert_eq!(
            (seen.read, seen.seen, seen.last_read_date, seen.last_seen_date),
            (None, Some(true), None, Some(now))
        );
        let unseen = MarkAs::Unseen.change(now);
        assert_eq!((unseen.read, unseen.seen, unseen.last_read_date), (None, Some(false), None));
        let archive = MarkAs::Archive.change(now);
        assert_eq!(
            (archive.read, archive.seen, archive.last_seen_date, archive.archived_at),
            (None, None, None, Some(Some(now)))
        );
        assert_eq!(MarkAs::Unarchive.change(now).archived_at, Some(None));
        let until = now + chrono::TimeDelta::hours(1);
        let snooze = MarkAs::Snooze(until).change(now);
        assert_eq!((snooze.read, snooze.archived_at, snooze.snoozed_until), (None, None, Some(Some(until))));
        assert_eq!(MarkAs::Unsnooze.change(now).snoozed_until, Some(None));
        let delete = MarkAs::Delete.change(now);
        assert_eq!((delete.seen, delete.snoozed_until, delete.deleted_at), (None, Some(None), Some(Some(now))));
    }
}
