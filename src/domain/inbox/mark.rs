//! Marking the subscriber's notifications: one at a time (read, unread, archive, unarchive), or all
//! unread ones at once. Both go through the messages module's state table and its id-ordered row
//! locks, so an inbox mark and a server-side mark-as of the same messages cannot deadlock.

use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::{notifications_of, InboxFilter, InboxSubscriber, INBOX_CHANNEL};
use crate::db::schema::messages;
use crate::domain::messages::{mark_locked_in_id_order, with_relations, MarkAs, Message};
use crate::error::{AppError, AppResult};

/// Applies `mark_as` to the notification `id` of the subscriber and returns it; an id that is not
/// one of the subscriber's in-app messages is a 404 and changes nothing.
pub async fn mark_inbox_notification(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    id: &str,
    mark_as: MarkAs,
) -> AppResult<Message> {
    let not_found = || AppError::NotFound(format!("Notification with id {id} not found"));
    let uuid = Uuid::try_parse(id).map_err(|_| not_found())?;
    let row = conn
        .transaction::<_, AppError, _>(async |conn| {
            let updated = mark_locked_in_id_order(conn, subscriber.tenant, subscriber.id, &[uuid], mark_as).await?;
            // Another channel's message of the same subscriber is not an inbox notification: the
            // error rolls the change back.
            updated.into_iter().find(|row| row.channel == INBOX_CHANNEL).ok_or_else(not_found)
        })
        .await?;
    let mut marked = with_relations(conn, subscriber.tenant.environment_id, vec![row]).await?;
    Ok(marked.pop().expect("one row in, one message out"))
}

/// Marks read every unread notification of the subscriber (of a workflow with any of `tags`, when
/// given) that exists when the call starts, and returns how many. Notifications that arrive while it
/// runs are not swept up: the set is read first, then exactly that set is locked and changed.
pub async fn read_all_inbox_notifications(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    tags: Vec<String>,
) -> AppResult<usize> {
    let filter = InboxFilter { tags, read: Some(false), ..InboxFilter::default() };
    conn.transaction::<_, AppError, _>(async |conn| {
        let ids: Vec<Uuid> = notifications_of(subscriber, &filter).select(messages::id).load(conn).await?;
        let updated = mark_locked_in_id_order(conn, subscriber.tenant, subscriber.id, &ids, MarkAs::Read).await?;
        Ok(updated.len())
    })
    .await
}
