//! Writing the event log: one set-based statement for any number of messages, inside the caller's
//! transaction.
//!
//! The statement bumps (and so locks until commit) the `inbox_sequences` row of each subscriber
//! concerned, in a fixed order so two transactions never wait on each other's rows, and writes each
//! message's event from the row its bump returned: a bump that waited for another transaction's
//! lock updates the version that transaction committed, so the counts it returns (kept in the row
//! by triggers on `messages`) are exact at commit. It queues a `NOTIFY` per subscriber when asked to
//! ([`Announce`]). Every writer of a subscriber's in-app messages goes through here, so the sequence
//! is gap-free and in commit order.

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{BigInt, Bool, Nullable, Text, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::super::INBOX_CHANNEL;
use crate::db::unnest::{bind_arrays, static_query_id};
use crate::domain::messages::{MarkAs, StoredMessage};
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

/// Writes the inbox events of `messages` (in-app messages), as `change`, and returns each subscriber's
/// sequence after them. Call inside the transaction that changed them, after the change.
pub async fn record_inbox_events(
    conn: &mut AsyncPgConnection,
    change: InboxChange,
    messages: &[InboxMessage],
    announce: Announce,
) -> AppResult<Vec<InboxBump>> {
    if messages.is_empty() {
        return Ok(Vec::new());
    }
    let statement = EventLog {
        environment_id: messages.iter().map(|message| message.environment_id).collect(),
        subscriber_id: messages.iter().map(|message| message.subscriber_id).collect(),
        message_id: messages.iter().map(|message| message.id).collect(),
        kind: change.kind(),
        change: change.change(),
        notify: announce == Announce::WithCommit,
    };
    Ok(statement.load(conn).await?)
}

/// The statement of [`record_inbox_events`]: its text is the same for every call, so it is prepared
/// once per connection (a statement pair reading the messages back, parsed and planned on every
/// batch, cost 133 µs of PostgreSQL time a message, this one 83 µs: docs/performance.md).
struct EventLog<'a> {
    environment_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    message_id: Vec<Uuid>,
    kind: &'a str,
    change: Option<&'a str>,
    notify: bool,
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
                        b.last_seq - count(*) OVER w + row_number() OVER (w ORDER BY c.id),
                        ",
        );
        out.push_bind_param::<Text, _>(self.kind)?;
        out.push_sql(", ");
        out.push_bind_param::<Nullable<Text>, _>(&self.change)?;
        out.push_sql(
            ", c.id, b.unread_count, b.unseen_count, clock_timestamp()
                 FROM changed c
                 JOIN bumped b ON b.environment_id = c.environment_id AND b.subscriber_id = c.subscriber_id
                 WINDOW w AS (PARTITION BY c.environment_id, c.subscriber_id)
             )
             SELECT subscriber_id, last_seq, CASE WHEN ",
        );
        out.push_bind_param::<Bool, _>(&self.notify)?;
        out.push_sql(" THEN pg_notify(");
        out.push_sql(CHANNEL_SQL);
        out.push_sql(", subscriber_id::text || ':' || last_seq)::text END AS notified FROM bumped");
        Ok(())
    }
}
