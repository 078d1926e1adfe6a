//! Pages of a fan-out. The members of the next page are read by keyset (subscriber id order, across
//! the trigger's topics, or of its direct recipients); each page is then expanded in one transaction of
//! its own: the members' notifications unless the trigger already has one for them, the new
//! notifications' jobs, their first steps run there when they run in the database (in-app, delay:
//! stored finished, one row version each instead of a queued job a worker claims and updates), and last
//! the fan-out's lease checked and extended and its cursor moved.

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::Expansion;
use crate::db::batch::{begin_batch_transaction, end_batch_transaction};
use crate::db::schema::topic_fanouts;
use crate::domain::subscribers::Subscriber;
use crate::engine::runtime::WorkerShared;
use crate::engine::steps::context::Known;
use crate::engine::trigger::expand::Recipients;
use crate::engine::worker::{run_in_database, Claimed, JobsAre, Written};
use crate::error::{AppError, AppResult};
use crate::workflow::JobStatus;

/// Members read per page (and notifications per insert): large enough that a page's commit is cheap
/// per recipient, small enough that memory stays flat whatever the topic's size.
pub const PAGE_SIZE: i64 = 1_000;

/// Direct recipients per page of a trigger's fan-out. A page's memory is that of its recipients' steps
/// run at once: with pages of 1,000, four wide triggers expanded together took the process's peak RSS
/// from 67–77 MB (their jobs claimed by the worker loops, 100 to 400 at a time) to 145–150 MB.
pub const RECIPIENTS_PAGE_SIZE: usize = 250;

/// What a page did.
pub struct Expanded {
    /// Notifications created (0 when every member of the page had one, or none may receive it).
    pub inserted: usize,
    /// Of their first steps, how many ran in the page's transaction (the others are due for the workers).
    pub ran: usize,
    /// What the steps run wrote, to announce now that the page has committed.
    pub written: Option<Written>,
}

// The first PAGE_SIZE distinct members after the cursor: each topic's first PAGE_SIZE by its primary key
// (an index range scan), then merged, so a page costs the same however large the topics are. Each
// member's subscriber is looked up by its key (`LIMIT 1` keeps the lookup a subquery: planned for a
// page of adjacent ids, a join read the whole subscribers table into a hash, 9 ms a page among 100,000).
const NEXT_MEMBERS: &str = "
SELECT s.*
FROM (
    SELECT DISTINCT c.subscriber_id
    FROM unnest($1::uuid[]) AS t(id)
    CROSS JOIN LATERAL (
        SELECT ts.subscriber_id FROM topic_subscribers ts
        WHERE ts.topic_id = t.id AND ts.subscriber_id > $2 AND ts.created_at <= $3
        ORDER BY ts.subscriber_id
        LIMIT $4
    ) c
    ORDER BY c.subscriber_id
    LIMIT $4
) m
CROSS JOIN LATERAL (SELECT * FROM subscribers WHERE subscribers.id = m.subscriber_id LIMIT 1) s
ORDER BY m.subscriber_id";

// The subscribers of the given ids, in id order, each looked up by its key (as a topic's members are).
const RECIPIENTS: &str = "
SELECT s.*
FROM unnest($1::uuid[]) AS m(id)
CROSS JOIN LATERAL (SELECT * FROM subscribers WHERE subscribers.id = m.id LIMIT 1) s
ORDER BY m.id";

/// The members of the page after `after`: the topics' (at most [`PAGE_SIZE`]; fewer on the last page),
/// or the trigger's direct recipients (at most [`RECIPIENTS_PAGE_SIZE`]).
pub async fn next_members(
    conn: &mut AsyncPgConnection,
    expansion: &Expansion,
    after: Option<Uuid>,
) -> AppResult<Vec<Subscriber>> {
    if let Some(recipients) = &expansion.recipients {
        let first = after.map_or(0, |after| recipients.partition_point(|recipient| recipient.id <= after));
        let ids: Vec<Uuid> =
            recipients[first..].iter().take(RECIPIENTS_PAGE_SIZE).map(|recipient| recipient.id).collect();
        return Ok(diesel::sql_query(RECIPIENTS).bind::<Array<SqlUuid>, _>(&ids).load(conn).await?);
    }
    Ok(diesel::sql_query(NEXT_MEMBERS)
        .bind::<Array<SqlUuid>, _>(&expansion.topic_ids)
        .bind::<SqlUuid, _>(after.unwrap_or(Uuid::nil()))
        .bind::<Timestamptz, _>(expansion.accepted_at)
        .bind::<Int8, _>(PAGE_SIZE)
        .load(conn)
        .await?)
}

/// Expands `members` if this worker still holds the fan-out's lease, and moves its cursor to
/// `committed`: a point every page before it has committed at (see `fanouts::expand`).
pub async fn expand_page(
    shared: &WorkerShared,
    expansion: &Expansion,
    members: Vec<Subscriber>,
    committed: Option<Uuid>,
) -> AppResult<Expanded> {
    let now = shared.engine.clock.now();
    let lease = super::lease(shared);
    let conn = &mut *shared.pool.get().await?;
    begin_batch_transaction(conn).await?;
    let expanded = async {
        let template = &expansion.template;
        let reached: Vec<Subscriber> =
            members.into_iter().filter(|member| !member.deleted && !expansion.excluded.contains(&member.id)).collect();
        let mut recipients = Recipients::with_capacity(reached.len());
        recipients.start(template);
        for member in &reached {
            recipients.push(member.id, expansion.to_recipient(member));
        }
        let (inserted, held) = recipients.insert_holding_first_steps(conn).await?;
        let ran = held.len();
        // The steps read neither the notifications just inserted nor the members just read.
        let known = Known {
            notifications: held.iter().map(|job| template.notification_facts(job.notification_id)).collect(),
            subscribers: reached,
        };
        let first_steps = held.into_iter().map(|job| Claimed { job, previous_status: JobStatus::Queued }).collect();
        let written = run_in_database(conn, shared, first_steps, known, JobsAre::New, now).await?;
        move_cursor(conn, expansion.id, &shared.owner, committed, now, lease).await?;
        Ok(Expanded { inserted, ran, written })
    }
    .await;
    end_batch_transaction(conn, expanded).await
}

/// Extends the lease and moves the cursor, last in a page's transaction (the fan-out's row is locked
/// from there to the commit only, so pages in flight together do not wait for each other's work).
async fn move_cursor(
    conn: &mut AsyncPgConnection,
    id: Uuid,
    owner: &str,
    committed: Option<Uuid>,
    now: DateTime<Utc>,
    lease: TimeDelta,
) -> AppResult<()> {
    let held = diesel::update(topic_fanouts::table)
        .filter(topic_fanouts::id.eq(id))
        .filter(topic_fanouts::lease_owner.eq(owner))
        .filter(topic_fanouts::status.eq("running"))
        .set((
            topic_fanouts::after_subscriber_id.eq(committed),
            topic_fanouts::run_at.eq(now + lease),
            topic_fanouts::updated_at.eq(now),
        ))
        .execute(conn)
        .await?;
    if held == 0 {
        return Err(AppError::internal(
            "a fan-out's lease expired and another worker took it over, or its trigger was canceled",
        ));
    }
    Ok(())
}
