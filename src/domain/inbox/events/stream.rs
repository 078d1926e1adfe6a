//! One client's stream of inbox events: where it starts (the client's last event, or now), the
//! replay of the log from there, then live events as the feed wakes it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::Stream;
use uuid::Uuid;

use super::super::{InboxSubscriber, INBOX_CHANNEL};
use super::feed::{Following, InboxFeed};
use crate::db::schema::{messages, subscribers, workflows};
use crate::db::DbPool;
use crate::domain::messages::{Message, StoredMessage};
use crate::domain::subscribers::Subscriber;
use crate::domain::workflows::{StoredWorkflow, WorkflowRow};
use crate::error::AppResult;

/// Events read from the log at once.
const PAGE: i64 = 100;
/// Longest wait without a wake-up: the fallback for a notification that never came (its writer
/// killed between its commit and its announcement). Every other loss wakes the streams: the listener
/// wakes them all when it listens again. At 10,000 idle streams a 5 s poll read the log 2,000 times a
/// second for nothing.
const POLL_INTERVAL: Duration = Duration::from_secs(30);
/// What an event reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InboxEventKind {
    Received,
    Changed,
    /// The log no longer holds what follows the client's last event: it refetches.
    Reset,
    /// Opens a stream that starts without a last event.
    Counts,
}

/// The subscriber's unread and unseen notifications, not archived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InboxCounts {
    pub unread: i64,
    pub unseen: i64,
}

/// One event of the stream.
#[derive(Debug, Clone, PartialEq)]
pub struct InboxEvent {
    /// The subscriber's sequence number (for reset and counts: the latest one).
    pub seq: i64,
    pub kind: InboxEventKind,
    /// For `Changed`: the mark (`read`, `archive`, …).
    pub change: Option<String>,
    /// The message as it is now; `None` for reset and counts, and once retention deleted it. Boxed: a
    /// message is most of a kilobyte, and an event is moved by value through the stream's layers.
    pub notification: Option<Box<Message>>,
    /// The counts right after the event.
    pub counts: InboxCounts,
}

/// The subscriber's events after `last_event_id` (replayed from the log, then live), or from now on
/// (opened by a `Counts` event) without one. The stream ends when the client drops it or the feed
/// closes; a database error ends it with that error (the client resumes from its last event).
///
/// The stream is polled by its connection's body: no task or channel of its own, and between reads it
/// holds only its cursor and its wait (each read's future is boxed while it runs). An idle stream costs
/// its connection little beyond the connection itself (`scripts/bench-inbox-sse.sh`).
pub fn inbox_events(
    pool: DbPool,
    feed: &InboxFeed,
    subscriber: InboxSubscriber,
    last_event_id: Option<i64>,
) -> impl Stream<Item = AppResult<InboxEvent>> + Send + 'static {
    let cursor = Cursor {
        // Followed before the first read, so no event committed after that read goes unnoticed.
        following: feed.follow(subscriber.id),
        pool,
        subscriber,
        resume_from: last_event_id,
        last: None,
        read_at_once: true,
        pending: VecDeque::new(),
        ended: false,
    };
    futures_util::stream::unfold(cursor, async |mut cursor| {
        let next = cursor.next().await?;
        Some((next, cursor))
    })
}

/// Where one stream stands.
struct Cursor {
    pool: DbPool,
    subscriber: InboxSubscriber,
    following: Following,
    /// The client's last event, if it sent one.
    resume_from: Option<i64>,
    /// The last event read; `None` until the start is read.
    last: Option<i64>,
    /// Read the log again without waiting for a wake-up (after the start, and after a full page).
    read_at_once: bool,
    /// Events read and not yet sent.
    pending: VecDeque<InboxEvent>,
    ended: bool,
}

impl Cursor {
    /// The next event to send, or `None` once the stream ends.
    async fn next(&mut self) -> Option<AppResult<InboxEvent>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.ended {
                return None;
            }
            if let Err(error) = self.read().await {
                self.ended = true;
                return Some(Err(error));
            }
        }
    }

    /// Reads the start, or waits for a wake-up (unless a read is due at once) and reads the next page.
    async fn read(&mut self) -> AppResult<()> {
        let Some(last) = self.last else {
            let (last, opening) = Box::pin(start(&self.pool, &self.subscriber, self.resume_from)).await?;
            self.last = Some(last);
            self.pending.extend(opening);
            return Ok(());
        };
        if !self.read_at_once {
            let following = &mut self.following;
            tokio::select! {
                _ = following.wake.changed() => {}
                _ = tokio::time::sleep(POLL_INTERVAL) => {}
                _ = following.closing.wait_for(|closing| *closing) => {
                    self.ended = true;
                    return Ok(());
                }
            }
        }
        let events = Box::pin(read_after(&self.pool, &self.subscriber, last)).await?;
        self.read_at_once = events.len() as i64 == PAGE;
        self.last = Some(events.last().map_or(last, |event| event.seq));
        self.pending.extend(events);
        Ok(())
    }
}

/// Where a subscriber's inbox stands: its latest event number and its counts right after that event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InboxPosition {
    pub last_event_id: i64,
    pub counts: InboxCounts,
}

#[derive(QueryableByName)]
struct PositionRow {
    #[diesel(sql_type = BigInt)]
    last_seq: i64,
    #[diesel(sql_type = BigInt)]
    unread: i64,
    #[diesel(sql_type = BigInt)]
    unseen: i64,
}

impl From<PositionRow> for InboxPosition {
    fn from(row: PositionRow) -> Self {
        Self { last_event_id: row.last_seq, counts: InboxCounts { unread: row.unread, unseen: row.unseen } }
    }
}

/// The query of a [`PositionRow`] (and `extra_columns`) of the subscriber `$1`, `$2`. One row: the number
/// and the counts come from one snapshot (a subscriber without a row has had no in-app message).
fn position_query(extra_columns: &str) -> String {
    format!(
        "SELECT coalesce(s.last_seq, 0) AS last_seq, coalesce(s.unread_count, 0) AS unread,
                coalesce(s.unseen_count, 0) AS unseen{extra_columns}
         FROM (SELECT $1::uuid AS environment_id, $2::uuid AS subscriber_id) t
         LEFT JOIN inbox_sequences s ON s.environment_id = t.environment_id AND s.subscriber_id = t.subscriber_id"
    )
}

/// Where the subscriber's inbox stands now: what every inbox change answers besides its own result.
pub async fn inbox_position(conn: &mut AsyncPgConnection, subscriber: &InboxSubscriber) -> AppResult<InboxPosition> {
    let row: PositionRow = diesel::sql_query(position_query(""))
        .bind::<SqlUuid, _>(subscriber.tenant.environment_id)
        .bind::<SqlUuid, _>(subscriber.id)
        .get_result(conn)
        .await?;
    Ok(row.into())
}

#[derive(QueryableByName)]
struct Start {
    #[diesel(embed)]
    position: PositionRow,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    next_retained: bool,
}

/// Where the stream starts, and the event that opens it, if any: none when the log holds everything
/// after `last_event_id`; a `Reset` when it does not (swept, or an id this subscriber never had); a
/// `Counts` without a last event.
async fn start(
    pool: &DbPool,
    subscriber: &InboxSubscriber,
    last_event_id: Option<i64>,
) -> AppResult<(i64, Option<InboxEvent>)> {
    let mut conn = pool.get().await?;
    let resume = last_event_id.unwrap_or(-1);
    // One statement, so one snapshot: the counts are those right after the latest number.
    let query = position_query(
        ", EXISTS (SELECT 1 FROM inbox_events e WHERE e.environment_id = t.environment_id
                   AND e.subscriber_id = t.subscriber_id AND e.seq = $3 + 1) AS next_retained",
    );
    let start: Start = diesel::sql_query(query)
        .bind::<SqlUuid, _>(subscriber.tenant.environment_id)
        .bind::<SqlUuid, _>(subscriber.id)
        .bind::<BigInt, _>(resume)
        .get_result(&mut conn)
        .await?;
    let position = InboxPosition::from(start.position);
    let last = position.last_event_id;
    let resumable = last_event_id.is_some_and(|id| id == last || (id < last && start.next_retained));
    if resumable {
        return Ok((resume, None));
    }
    let kind = if last_event_id.is_some() { InboxEventKind::Reset } else { InboxEventKind::Counts };
    let event = InboxEvent { seq: last, kind, change: None, notification: None, counts: position.counts };
    Ok((last, Some(event)))
}

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = BigInt)]
    seq: i64,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Nullable<Text>)]
    change: Option<String>,
    #[diesel(sql_type = SqlUuid)]
    message_id: Uuid,
    #[diesel(sql_type = BigInt)]
    unread_count: i64,
    #[diesel(sql_type = BigInt)]
    unseen_count: i64,
}

/// The next page of the subscriber's events after `last`, with their notifications as they are now.
async fn read_after(pool: &DbPool, subscriber: &InboxSubscriber, last: i64) -> AppResult<Vec<InboxEvent>> {
    let mut conn = pool.get().await?;
    let rows: Vec<Row> = diesel::sql_query(
        "SELECT seq, kind, change, message_id, unread_count, unseen_count FROM inbox_events
         WHERE environment_id = $1 AND subscriber_id = $2 AND seq > $3 ORDER BY seq LIMIT $4",
    )
    .bind::<SqlUuid, _>(subscriber.tenant.environment_id)
    .bind::<SqlUuid, _>(subscriber.id)
    .bind::<BigInt, _>(last)
    .bind::<BigInt, _>(PAGE)
    .load(&mut conn)
    .await?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let notifications = notifications_by_id(&mut conn, subscriber, &rows).await?;
    Ok(rows
        .into_iter()
        .map(|row| InboxEvent {
            seq: row.seq,
            kind: if row.kind == "received" { InboxEventKind::Received } else { InboxEventKind::Changed },
            change: row.change,
            // A message with several events in the page is as it is now in each.
            notification: notifications.get(&row.message_id).cloned().map(Box::new),
            counts: InboxCounts { unread: row.unread_count, unseen: row.unseen_count },
        })
        .collect())
}

/// The subscriber's in-app messages named by `rows` (snoozed and deleted ones too: their events say so,
/// and the client needs their ids), each with its subscriber and workflow, in one statement: every
/// woken stream runs this, and at 500 events a second the four statements it took before (messages,
/// subscribers, workflows, steps) kept the pool's connections busy enough that checkouts queued for
/// 10 ms on average (`herald_db_pool_wait_seconds`, `scripts/bench-inbox-sse.sh`). The workflows come
/// without their steps: an inbox notification shows none.
async fn notifications_by_id(
    conn: &mut AsyncPgConnection,
    subscriber: &InboxSubscriber,
    rows: &[Row],
) -> AppResult<HashMap<Uuid, Message>> {
    let ids: Vec<Uuid> = rows.iter().map(|row| row.message_id).collect();
    let found: Vec<(StoredMessage, Option<Subscriber>, Option<WorkflowRow>)> = messages::table
        .left_join(subscribers::table)
        .left_join(workflows::table)
        .filter(messages::environment_id.eq(subscriber.tenant.environment_id))
        .filter(messages::subscriber_id.eq(subscriber.id))
        .filter(messages::channel.eq(INBOX_CHANNEL))
        .filter(messages::id.eq_any(ids))
        .select((StoredMessage::as_select(), Option::<Subscriber>::as_select(), Option::<WorkflowRow>::as_select()))
        .load(conn)
        .await?;
    Ok(found
        .into_iter()
        .map(|(row, subscriber, workflow)| {
            let message = Message {
                subscriber: subscriber.map(Arc::new),
                workflow: workflow.map(|workflow| Arc::new(StoredWorkflow { workflow, steps: Vec::new() })),
                row,
            };
            (message.row.id, message)
        })
        .collect())
}
