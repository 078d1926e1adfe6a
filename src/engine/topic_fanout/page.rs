//! One page of a fan-out, in one transaction: the lease checked and extended, the next members by
//! keyset (subscriber id order, across the trigger's topics), their notifications inserted unless the
//! trigger already has one for that subscriber, the new notifications' jobs and trigger details, and the
//! cursor moved.

use chrono::{DateTime, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Bool, Int8, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::json;
use uuid::Uuid;

use super::Expansion;
use crate::db::batch::plan_generically;
use crate::db::schema::topic_fanouts;
use crate::engine::trigger::expand::Recipients;
use crate::error::{AppError, AppResult};

/// Members read per page (and notifications per insert): large enough that a page's commit is cheap
/// per recipient, small enough that memory stays flat whatever the topic's size.
pub const PAGE_SIZE: i64 = 1_000;

/// What a page did.
pub struct Expanded {
    /// Notifications created (0 when every member of the page had one, or none may receive it).
    pub inserted: usize,
    /// The cursor to continue after; `None` when this was the last page (the fan-out is completed).
    pub next: Option<Uuid>,
}

#[derive(QueryableByName)]
struct Member {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    subscriber_id: String,
    #[diesel(sql_type = Bool)]
    deleted: bool,
}

// The first PAGE_SIZE distinct members after the cursor: each topic's first PAGE_SIZE by its primary key
// (an index range scan), then merged, so a page costs the same however large the topics are.
const NEXT_MEMBERS: &str = "
SELECT m.subscriber_id AS id, s.subscriber_id, s.deleted
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
JOIN subscribers s ON s.id = m.subscriber_id
ORDER BY m.subscriber_id";

/// Expands the page after `after` if this worker still holds the fan-out's lease.
pub async fn expand_page(
    conn: &mut AsyncPgConnection,
    expansion: &Expansion,
    after: Option<Uuid>,
    owner: &str,
    now: DateTime<Utc>,
    lease: TimeDelta,
) -> AppResult<Expanded> {
    conn.transaction::<_, AppError, _>(async |conn| {
        plan_generically(conn).await?;
        let held = diesel::update(topic_fanouts::table)
            .filter(topic_fanouts::id.eq(expansion.id))
            .filter(topic_fanouts::lease_owner.eq(owner))
            .filter(topic_fanouts::status.eq("running"))
            .set((topic_fanouts::run_at.eq(now + lease), topic_fanouts::updated_at.eq(now)))
            .execute(conn)
            .await?;
        if held == 0 {
            return Err(AppError::internal("a topic fan-out's lease expired and another worker took it over"));
        }
        let members: Vec<Member> = diesel::sql_query(NEXT_MEMBERS)
            .bind::<Array<SqlUuid>, _>(&expansion.topic_ids)
            .bind::<SqlUuid, _>(after.unwrap_or(Uuid::nil()))
            .bind::<Timestamptz, _>(expansion.accepted_at)
            .bind::<Int8, _>(PAGE_SIZE)
            .load(conn)
            .await?;
        let last = members.last().map(|member| member.id);
        let template = &expansion.template;
        let reached: Vec<&Member> =
            members.iter().filter(|member| !member.deleted && !expansion.excluded.contains(&member.id)).collect();
        let mut recipients = Recipients::with_capacity(reached.len());
        recipients.start(template);
        for member in &reached {
            recipients.push(member.id, json!({ "subscriberId": member.subscriber_id }));
        }
        let inserted = recipients.insert(conn).await?;
        let finished = (members.len() as i64) < PAGE_SIZE;
        diesel::update(topic_fanouts::table)
            .filter(topic_fanouts::id.eq(expansion.id))
            .set((
                topic_fanouts::after_subscriber_id.eq(last.or(after)),
                topic_fanouts::status.eq(if finished { "completed" } else { "running" }),
                topic_fanouts::lease_owner.eq(if finished { None } else { Some(owner) }),
                topic_fanouts::updated_at.eq(now),
            ))
            .execute(conn)
            .await?;
        Ok(Expanded { inserted, next: if finished { None } else { last } })
    })
    .await
}
