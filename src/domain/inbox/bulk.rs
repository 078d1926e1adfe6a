//! Changing many of the subscriber's notifications at once: read all, archive all, archive the read
//! ones, mark seen, delete; each limited to the notifications of some tags, or to some ids.
//!
//! Notifications that arrive while a bulk change runs are not swept up: the set is read first (the
//! notifications visible when the call starts), then exactly that set is locked and changed, with
//! one inbox event per notification in the same transaction.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::{notifications_of, InboxFilter, InboxSubscriber};
use crate::db::schema::messages;
use crate::domain::messages::{mark_locked_in_id_order, MarkAs};
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// Most notification ids one bulk change may name.
pub const MAX_BULK_IDS: usize = 100;

/// What a bulk change does, and to which notifications.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkChange {
    /// Marks read the unread ones.
    Read,
    /// Archives those not archived.
    Archive,
    /// Archives the read ones not archived.
    ArchiveRead,
    /// Marks seen the unseen ones.
    Seen,
    /// Deletes them.
    Delete,
}

impl BulkChange {
    /// The notifications it changes, of those with any of `tags` (empty: all).
    fn filter(self, tags: Vec<String>) -> InboxFilter {
        let base = InboxFilter { tags, ..InboxFilter::default() };
        match self {
            BulkChange::Read => InboxFilter { read: Some(false), ..base },
            BulkChange::Archive => InboxFilter { archived: Some(false), ..base },
            BulkChange::ArchiveRead => InboxFilter { read: Some(true), archived: Some(false), ..base },
            BulkChange::Seen => InboxFilter { seen: Some(false), ..base },
            BulkChange::Delete => base,
        }
    }

    fn mark(self) -> MarkAs {
        match self {
            BulkChange::Read => MarkAs::Read,
            BulkChange::Archive | BulkChange::ArchiveRead => MarkAs::Archive,
            BulkChange::Seen => MarkAs::Seen,
            BulkChange::Delete => MarkAs::Delete,
        }
    }
}

/// Applies `change` to the subscriber's notifications it concerns (of a workflow with any of `tags`;
/// among `ids` when some are given, at most [`MAX_BULK_IDS`]) that exist when the call starts, and
/// returns how many it changed. Ids that name no such notification are ignored; a malformed id is a 422.
pub async fn update_all_inbox_notifications(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    change: BulkChange,
    tags: Vec<String>,
    ids: &[String],
    now: DateTime<Utc>,
) -> AppResult<usize> {
    let mut validator = Validator::new();
    validator.check(
        ids.len() <= MAX_BULK_IDS,
        "notificationIds",
        format!("notificationIds must hold at most {MAX_BULK_IDS} ids"),
        ids.len(),
    );
    let parsed: Vec<Uuid> = ids.iter().filter_map(|id| Uuid::try_parse(id).ok()).collect();
    if let Some(bad) = ids.iter().find(|id| Uuid::try_parse(id).is_err()) {
        validator.reject("notificationIds", "notificationIds must be notification ids", bad.as_str());
    }
    validator.finish()?;
    let mut set = notifications_of(subscriber, &change.filter(tags));
    if !ids.is_empty() {
        set = set.filter(messages::id.eq_any(parsed));
    }
    conn.transaction::<_, AppError, _>(async |conn| {
        // The snapshot: what is there now. A row that commits later is not in it.
        let ids: Vec<Uuid> = set.select(messages::id).load(conn).await?;
        let updated = mark_locked_in_id_order(conn, subscriber.tenant, subscriber.id, &ids, change.mark(), now).await?;
        Ok(updated.len())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_change_names_the_notifications_it_concerns() {
        let tags = vec!["orders".to_string()];
        let archive_read = BulkChange::ArchiveRead.filter(tags.clone());
        assert_eq!((archive_read.read, archive_read.archived, archive_read.tags), (Some(true), Some(false), tags));
        assert_eq!(BulkChange::Seen.filter(vec![]).seen, Some(false));
        assert_eq!(BulkChange::Delete.filter(vec![]), InboxFilter::default());
        assert_eq!(BulkChange::ArchiveRead.mark(), MarkAs::Archive);
    }
}
