//! Changing one of the subscriber's notifications (read, unread, archive, unarchive, snooze,
//! unsnooze, delete). It goes through the messages module's state table and its id-ordered row
//! locks, so an inbox mark and a server-side mark-as of the same messages cannot deadlock. Read-all
//! is one of the bulk changes ([`super::bulk`]).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::bulk::{update_all_inbox_notifications, BulkChange};
use super::{InboxSubscriber, INBOX_CHANNEL};
use crate::db::schema::messages;
use crate::domain::messages::{mark_locked_in_id_order, with_relations, MarkAs, Message, StoredMessage};
use crate::error::{AppError, AppResult};

/// Applies `mark_as` to the notification `id` of the subscriber and returns it; an id that is not
/// one of the subscriber's in-app messages, or one it deleted, is a 404 and changes nothing.
pub async fn mark_inbox_notification(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    id: &str,
    mark_as: MarkAs,
    now: DateTime<Utc>,
) -> AppResult<Message> {
    let row = conn
        .transaction::<_, AppError, _>(async |conn| {
            let row = lock_visible(conn, subscriber, id).await?;
            let updated =
                mark_locked_in_id_order(conn, subscriber.tenant, subscriber.id, &[row.id], mark_as, now).await?;
            updated.into_iter().next().ok_or_else(|| not_found(id))
        })
        .await?;
    let mut marked = with_relations(conn, subscriber.tenant.environment_id, vec![row]).await?;
    Ok(marked.pop().expect("one row in, one message out"))
}

/// Locks the notification `id` of the subscriber (not deleted) until the transaction ends, and
/// returns it; 404 when the id names none.
pub(super) async fn lock_visible(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    id: &str,
) -> AppResult<StoredMessage> {
    let uuid = Uuid::try_parse(id).map_err(|_| not_found(id))?;
    // Spelled out rather than from `owned_by`: a boxed query cannot lock.
    messages::table
        .find(uuid)
        .filter(messages::environment_id.eq(subscriber.tenant.environment_id))
        .filter(messages::subscriber_id.eq(subscriber.id))
        .filter(messages::channel.eq(INBOX_CHANNEL))
        .filter(messages::deleted_at.is_null())
        .select(StoredMessage::as_select())
        .for_update()
        .first(conn)
        .await
        .optional()?
        .ok_or_else(|| not_found(id))
}

fn not_found(id: &str) -> AppError {
    AppError::NotFound(format!("Notification with id {id} not found"))
}

/// Marks read every unread notification of the subscriber (of a workflow with any of `tags`, when
/// given) that exists when the call starts, and returns how many; see [`update_all_inbox_notifications`].
pub async fn read_all_inbox_notifications(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    tags: Vec<String>,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    update_all_inbox_notifications(conn, subscriber, BulkChange::Read, tags, &[], now).await
}
