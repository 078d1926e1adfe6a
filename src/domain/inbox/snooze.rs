//! Snooze: a snoozed notification (`snoozed_until` set) leaves the inbox's lists and counts, and the
//! workers bring it back when it is due ([`unsnooze_due`]): they clear `snoozed_until` and write its
//! `unsnooze` event, with the counts it changes, in one transaction.
//!
//! The state is the row itself, so nothing is lost across restarts: whichever worker process scans
//! next finds every notification that fell due meanwhile (a partial index holds only the snoozed
//! rows). Until the workers bring it back, a notification stays snoozed even past its time, so the
//! list, the counts and the event log never disagree about it.

use chrono::{DateTime, TimeDelta, Utc};
use diesel::sql_types::{Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

use super::events::{record_inbox_events, InboxChange, InboxMessage};
use super::INBOX_CHANNEL;
use crate::domain::messages::MarkAs;
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};

/// The shortest snooze: a minute, as the reference service (a shorter one is a mark-as-unread).
pub const MIN_SNOOZE: TimeDelta = TimeDelta::minutes(1);
/// Notifications brought back per transaction.
const CHUNK: i64 = 100;

/// The time a snooze request names (`snoozeUntil`, RFC 3339), at least [`MIN_SNOOZE`] after `now`; 422
/// otherwise.
pub fn snooze_until(text: Option<&str>, now: DateTime<Utc>) -> AppResult<DateTime<Utc>> {
    let mut validator = Validator::new();
    let parsed = text.and_then(|text| DateTime::parse_from_rfc3339(text).ok()).map(|at| at.with_timezone(&Utc));
    let message = "snoozeUntil must be an RFC 3339 time at least a minute ahead";
    let value = text.map_or(serde_json::Value::Null, |text| text.into());
    validator.check(parsed.is_some_and(|at| at >= now + MIN_SNOOZE), "snoozeUntil", message, value);
    validator.finish()?;
    Ok(parsed.expect("checked above"))
}

/// Brings back every snoozed notification due at `now` (of every environment), [`CHUNK`] per
/// transaction, and returns how many. Rows another process is bringing back are skipped.
pub async fn unsnooze_due(conn: &mut AsyncPgConnection, now: DateTime<Utc>) -> AppResult<usize> {
    let mut total = 0;
    loop {
        let brought_back = conn
            .transaction::<_, AppError, _>(async |conn| {
                let due: Vec<InboxMessage> = diesel::sql_query(
                    "WITH due AS (
                         SELECT id FROM messages
                         WHERE snoozed_until IS NOT NULL AND snoozed_until <= $1 AND channel = $2
                         ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
                     )
                     UPDATE messages m SET snoozed_until = NULL, updated_at = $1 FROM due WHERE m.id = due.id
                     RETURNING m.id, m.environment_id, m.subscriber_id",
                )
                .bind::<Timestamptz, _>(now)
                .bind::<Text, _>(INBOX_CHANNEL)
                .bind::<diesel::sql_types::BigInt, _>(CHUNK)
                .load(conn)
                .await?;
                record_inbox_events(conn, InboxChange::Marked(MarkAs::Unsnooze), &due).await?;
                Ok(due.len())
            })
            .await?;
        total += brought_back;
        if brought_back < CHUNK as usize {
            return Ok(total);
        }
    }
}

#[derive(diesel::QueryableByName)]
struct Next {
    #[diesel(sql_type = diesel::sql_types::Nullable<Timestamptz>)]
    at: Option<DateTime<Utc>>,
}

/// When the next snoozed notification falls due, if any is snoozed.
pub async fn next_unsnooze_at(conn: &mut AsyncPgConnection) -> AppResult<Option<DateTime<Utc>>> {
    let next: Next = diesel::sql_query("SELECT min(snoozed_until) AS at FROM messages WHERE snoozed_until IS NOT NULL")
        .get_result(conn)
        .await?;
    Ok(next.at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snooze_must_be_a_time_at_least_a_minute_ahead() {
        let now = DateTime::parse_from_rfc3339("2026-11-29T10:00:00Z").unwrap().with_timezone(&Utc);
        let ahead = snooze_until(Some("2026-11-29T11:00:00+01:00"), now);
        assert!(ahead.is_err(), "11:00+01:00 is 10:00 UTC: now");
        assert_eq!(snooze_until(Some("2026-11-29T10:01:00Z"), now).unwrap(), now + MIN_SNOOZE);
        assert!(snooze_until(Some("tomorrow"), now).is_err());
        assert!(snooze_until(None, now).is_err());
    }
}
