//! Writing the event log: one set-based statement pair for any number of messages, inside the
//! caller's transaction.
//!
//! The first statement bumps (and so locks until commit) the `inbox_sequences` row of each subscriber
//! concerned, in a fixed order so two transactions never wait on each other's rows, and queues a
//! `NOTIFY` per subscriber when asked to ([`Announce`]). The second one runs after the locks are
//! held: under READ COMMITTED it sees every change committed by the transactions that held them
//! before, so the counts it copies from the rows (kept there by triggers on `messages`) are exact at
//! commit. Every writer of a subscriber's in-app messages goes through here, so the sequence is
//! gap-free and in commit order.

use diesel::sql_types::{Array, BigInt, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::super::INBOX_CHANNEL;
use crate::domain::messages::MarkAs;
use crate::error::AppResult;

/// What happened to the messages an event is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboxChange {
    Received,
    Marked(MarkAs),
    /// An action button completed (`true`) or reverted.
    Action {
        completed: bool,
    },
}

impl InboxChange {
    fn kind(self) -> &'static str {
        match self {
            InboxChange::Received => "received",
            InboxChange::Marked(_) | InboxChange::Action { .. } => "changed",
        }
    }

    fn change(self) -> Option<&'static str> {
        match self {
            InboxChange::Received => None,
            InboxChange::Marked(mark_as) => Some(mark_as.name()),
            InboxChange::Action { completed: true } => Some("complete"),
            InboxChange::Action { completed: false } => Some("revert"),
        }
    }
}

/// How the streams following the subscribers hear of the events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Announce {
    /// A `NOTIFY` queued in the transaction, delivered at its commit: for writers that do not commit
    /// the transaction themselves (a request's, which a keyed request's middleware commits).
    /// PostgreSQL commits notifying transactions one at a time, their WAL flush included.
    WithCommit,
    /// The caller passes the returned bumps to [`super::InboxFeed::announce`] after its commit, so its
    /// commit does not queue behind other notifying ones: the worker's, at hundreds a second.
    AfterCommit,
}

/// A subscriber's sequence after a write: its events up to `seq` are committed with the write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, diesel::QueryableByName)]
pub struct InboxBump {
    #[diesel(sql_type = SqlUuid, column_name = subscriber_id)]
    pub subscriber: Uuid,
    #[diesel(sql_type = BigInt, column_name = last_seq)]
    pub seq: i64,
}

/// The `NOTIFY` channel of the inbox in the connection's schema (channels are per database; tests and
/// deployments may share one with a schema each). Channel names are identifiers: 63 bytes at most.
pub(super) const CHANNEL_SQL: &str = "left('herald_inbox_' || current_schema(), 63)";

/// Writes the inbox events of those of `message_ids` that are in-app messages (others are ignored),
/// as `change`, and returns each subscriber's sequence after them. Call inside the transaction that
/// changed them, after the change.
pub async fn record_inbox_events(
    conn: &mut AsyncPgConnection,
    change: InboxChange,
    message_ids: &[Uuid],
    announce: Announce,
) -> AppResult<Vec<InboxBump>> {
    if message_ids.is_empty() {
        return Ok(Vec::new());
    }
    let notify = match announce {
        Announce::WithCommit => format!(", pg_notify({CHANNEL_SQL}, subscriber_id::text || ':' || last_seq)::text"),
        Announce::AfterCommit => String::new(),
    };
    let bumps: Vec<InboxBump> = diesel::sql_query(format!(
        "WITH touched AS (
             SELECT environment_id, subscriber_id, count(*) AS events FROM messages
             WHERE id = ANY($2) AND channel = $1
             GROUP BY environment_id, subscriber_id
             ORDER BY environment_id, subscriber_id
         ), bumped AS (
             INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq)
             SELECT environment_id, subscriber_id, events FROM touched
             ON CONFLICT (environment_id, subscriber_id) DO UPDATE SET last_seq = s.last_seq + excluded.last_seq
             RETURNING subscriber_id, last_seq
         )
         SELECT subscriber_id, last_seq{notify} FROM bumped"
    ))
    .bind::<Text, _>(INBOX_CHANNEL)
    .bind::<Array<SqlUuid>, _>(message_ids)
    .load(conn)
    .await?;
    // Each subscriber's events take the numbers its bump reserved, in message id order, and the counts
    // its row holds: kept there by the triggers on `messages` (migration `inbox_counters`), and locked
    // by this transaction since the bump, so they are those at its commit.
    diesel::sql_query(
        "WITH changed AS (
             SELECT environment_id, subscriber_id, id FROM messages WHERE id = ANY($2) AND channel = $1
         )
         INSERT INTO inbox_events (environment_id, subscriber_id, seq, kind, change, message_id, unread_count,
                                   unseen_count, created_at)
         SELECT m.environment_id, m.subscriber_id,
                s.last_seq - count(*) OVER w + row_number() OVER (w ORDER BY m.id),
                $3, $4, m.id, s.unread_count, s.unseen_count, clock_timestamp()
         FROM changed m
         JOIN inbox_sequences s ON s.environment_id = m.environment_id AND s.subscriber_id = m.subscriber_id
         WINDOW w AS (PARTITION BY m.environment_id, m.subscriber_id)",
    )
    .bind::<Text, _>(INBOX_CHANNEL)
    .bind::<Array<SqlUuid>, _>(message_ids)
    .bind::<Text, _>(change.kind())
    .bind::<Nullable<Text>, _>(change.change())
    .execute(conn)
    .await?;
    Ok(bumps)
}
