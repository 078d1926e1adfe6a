//! Writing the event log: one set-based statement for any number of changed messages, inside the
//! caller's transaction. A new in-app message's `received` event is written by the trigger on
//! `messages` that keeps the counts (migration `2026-12-09-000002_arrivals_logged_with_their_counts`),
//! in the same write of the subscriber's row and in the same order; [`arrival_bumps`] reads back the
//! sequence numbers it reserved.
//!
//! The statement bumps (and so locks until commit) the `inbox_sequences` row of each subscriber
//! concerned, in a fixed order so two transactions never wait on each other's rows, and writes each
//! message's event from the row its bump returned: a bump that waited for another transaction's
//! lock updates the version that transaction committed, so the counts it returns (kept in the row
//! by triggers on `messages`) are exact at commit. It queues a `NOTIFY` per subscriber. Every writer
//! of a subscriber's in-app messages either goes through here or inserts them (and the trigger writes
//! their events), so the sequence is gap-free and in commit order.

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Array, BigInt, Text, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::super::INBOX_CHANNEL;
use crate::db::unnest::{bind_arrays, static_query_id};
use crate::domain::messages::{MarkAs, StoredMessage};
use crate::error::AppResult;

/// What happened to the messages a `changed` event is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboxChange {
    Marked(MarkAs),
    /// An action button completed (`true`) or reverted.
    Action {
        completed: bool,
    },
}

impl InboxChange {
    /// The event's `change`: read, unread, seen, unseen, archive, unarchive, complete, revert.
    fn name(self) -> &'static str {
        match self {
            InboxChange::Marked(mark_as) => mark_as.name(),
            InboxChange::Action { completed: true } => "complete",
            InboxChange::Action { completed: false } => "revert",
        }
    }
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

/// An in-app message an event is written for: which subscriber's log it goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, diesel::QueryableByName)]
pub struct InboxMessage {
    #[diesel(sql_type = SqlUuid)]
    pub environment_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    pub subscriber_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    pub id: Uuid,
}

impl InboxMessage {
    /// The in-app ones of `messages` (the others have no inbox).
    pub fn in_app_of<'a>(messages: impl IntoIterator<Item = &'a StoredMessage>) -> Vec<Self> {
        messages
            .into_iter()
            .filter(|message| message.channel == INBOX_CHANNEL)
            .map(|message| Self {
                environment_id: message.environment_id,
                subscriber_id: message.subscriber_id,
                id: message.id,
            })
            .collect()
    }
}

/// Writes the inbox events of `messages` (in-app messages), as `change`, with a `NOTIFY` per subscriber
/// that PostgreSQL delivers at the commit. Call inside the transaction that changed them, after the
/// change: the writers of marks, snoozes and actions, whose transactions a request or its keyed
/// middleware commits.
pub async fn record_inbox_events(
    conn: &mut AsyncPgConnection,
    change: InboxChange,
    messages: &[InboxMessage],
) -> AppResult<()> {
    if messages.is_empty() {
        return Ok(());
    }
    let statement = EventLog {
        environment_id: messages.iter().map(|message| message.environment_id).collect(),
        subscriber_id: messages.iter().map(|message| message.subscriber_id).collect(),
        message_id: messages.iter().map(|message| message.id).collect(),
        change: change.name(),
    };
    statement.execute(conn).await?;
    Ok(())
}

/// The sequence numbers the `received` events of `arrived` (in-app messages this transaction inserted)
/// took: the trigger on `messages` wrote the events and locked the subscribers' rows until the commit.
/// The worker passes them to [`super::InboxFeed::announce`] after its commit rather than queueing a
/// `NOTIFY` in it: PostgreSQL commits notifying transactions one at a time, their WAL flush included,
/// and the worker commits hundreds a second.
pub async fn arrival_bumps(conn: &mut AsyncPgConnection, arrived: &[InboxMessage]) -> AppResult<Vec<InboxBump>> {
    if arrived.is_empty() {
        return Ok(Vec::new());
    }
    let environment_ids: Vec<Uuid> = arrived.iter().map(|message| message.environment_id).collect();
    let subscriber_ids: Vec<Uuid> = arrived.iter().map(|message| message.subscriber_id).collect();
    Ok(diesel::sql_query(
        "SELECT s.subscriber_id, s.last_seq FROM inbox_sequences s
         WHERE (s.environment_id, s.subscriber_id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))",
    )
    .bind::<Array<SqlUuid>, _>(environment_ids)
    .bind::<Array<SqlUuid>, _>(subscriber_ids)
    .load(conn)
    .await?)
}

/// The statement of [`record_inbox_events`]: its text is the same for every call, so it is prepared
/// once per connection (a statement pair reading the messages back, parsed and planned on every
/// batch, cost 133 µs of PostgreSQL time a message, this one 83 µs: docs/performance.md).
struct EventLog<'a> {
    environment_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    message_id: Vec<Uuid>,
    change: &'a str,
}

static_query_id!(EventLog, diesel::sql_types::Untyped);

impl QueryFragment<Pg> for EventLog<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH changed AS (SELECT * FROM unnest(");
        bind_arrays!(out; SqlUuid: self.environment_id, SqlUuid: self.subscriber_id, SqlUuid: self.message_id);
        // Each subscriber's events take the numbers its bump reserved, in message id order.
        out.push_sql(
            ") AS c(environment_id, subscriber_id, id)
             ), touched AS (
                 SELECT environment_id, subscriber_id, count(*) AS events FROM changed
                 GROUP BY environment_id, subscriber_id
                 ORDER BY environment_id, subscriber_id
             ), bumped AS (
                 INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq)
                 SELECT environment_id, subscriber_id, events FROM touched
                 ON CONFLICT (environment_id, subscriber_id) DO UPDATE SET last_seq = s.last_seq + excluded.last_seq
                 RETURNING environment_id, subscriber_id, last_seq, unread_count, unseen_count
             ), logged AS (
                 INSERT INTO inbox_events (environment_id, subscriber_id, seq, kind, change, message_id,
                                           unread_count, unseen_count, created_at)
                 SELECT c.environment_id, c.subscriber_id,
                        b.last_seq - count(*) OVER w + row_number() OVER (w ORDER BY c.id), 'changed', ",
        );
        out.push_bind_param::<Text, _>(self.change)?;
        out.push_sql(
            ", c.id, b.unread_count, b.unseen_count, clock_timestamp()
                 FROM changed c
                 JOIN bumped b ON b.environment_id = c.environment_id AND b.subscriber_id = c.subscriber_id
                 WINDOW w AS (PARTITION BY c.environment_id, c.subscriber_id)
             )
             SELECT pg_notify(",
        );
        out.push_sql(CHANNEL_SQL);
        out.push_sql(", subscriber_id::text || ':' || last_seq) FROM bumped");
        Ok(())
    }
}
