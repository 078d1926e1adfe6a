//! Exact counts of the subscriber's notifications for up to [`MAX_FILTERS`] filters at once, all
//! read in one snapshot (a repeatable-read transaction), so counts that should add up do: unread and
//! read always sum to the total, however many marks and arrivals run meanwhile. No cap (the reference
//! service stops counting at 100).

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use super::{notifications_of, InboxFilter, InboxSubscriber};
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// Most filters one count request may carry.
pub const MAX_FILTERS: usize = 30;

/// The number of the subscriber's notifications matching each filter, in the order given.
pub async fn count_inbox_notifications(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    filters: &[InboxFilter],
) -> AppResult<Vec<i64>> {
    let mut validator = Validator::new();
    validator.check(
        (1..=MAX_FILTERS).contains(&filters.len()),
        "filters",
        format!("filters must hold 1 to {MAX_FILTERS} filters"),
        filters.len(),
    );
    validator.finish()?;
    if let [filter] = filters {
        // One statement is one snapshot already (and may run inside a keyed request's transaction,
        // where a transaction of its own cannot begin).
        return Ok(vec![notifications_of(subscriber, filter).count().get_result(conn).await?]);
    }
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run::<_, AppError, _>(async |conn| {
            let mut counts = Vec::with_capacity(filters.len());
            for filter in filters {
                counts.push(notifications_of(subscriber, filter).count().get_result(conn).await?);
            }
            Ok(counts)
        })
        .await
}
