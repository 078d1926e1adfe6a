//! The record that makes outbound calls (provider sends, custom-step webhooks) happen at most once per
//! job. Before calling, a `started` row is committed; after, it becomes `accepted` or `failed`. A job
//! that finds an `accepted` row was already delivered; one that finds `started` (its previous worker
//! died during the call) cannot know whether the call went through and does not call again.

use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use uuid::Uuid;

use super::message::{insert_messages, message_row, NewMessage};
use crate::db::schema::{messages, provider_deliveries};
use crate::engine::jobs::{lock_leased, Job};
use crate::engine::runtime::WorkerShared;
use crate::error::{AppError, AppResult};

/// What the job may do about its outbound call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prepared {
    /// Call now; record the result on `delivery_id`.
    Send { delivery_id: Uuid, message_id: Option<Uuid> },
    /// An earlier run's call was accepted: do not call again.
    AlreadyAccepted { message_id: Option<Uuid> },
    /// An earlier run died during its call: its result is unknown, do not call again.
    InDoubt { message_id: Option<Uuid> },
    /// Another worker took the job over (this worker's lease expired): leave it alone.
    LeaseLost,
}

/// Stores the message (once) and the `started` record, in one transaction, before the call.
pub async fn prepare(
    shared: &WorkerShared,
    job: &Job,
    provider_id: &str,
    message: Option<&NewMessage>,
) -> AppResult<Prepared> {
    let mut conn = shared.pool.get().await?;
    let now = shared.engine.clock.now();
    conn.transaction::<_, AppError, _>(async |conn| {
        // The claimed job carries its batch's lease holder.
        let holder = job.lease_owner.as_deref().unwrap_or_default();
        if lock_leased(conn, &[job.id], holder).await?.is_empty() {
            return Ok(Prepared::LeaseLost);
        }
        let message_id = match message {
            Some(message) => {
                insert_messages(conn, &[message_row(job, message, now)]).await?;
                let id: Uuid =
                    messages::table.filter(messages::job_id.eq(job.id)).select(messages::id).first(conn).await?;
                Some(id)
            }
            None => None,
        };
        let earlier: Vec<(Uuid, String)> = provider_deliveries::table
            .filter(provider_deliveries::job_id.eq(job.id))
            .select((provider_deliveries::id, provider_deliveries::status))
            .load(conn)
            .await?;
        if earlier.iter().any(|(_, status)| status == "accepted") {
            return Ok(Prepared::AlreadyAccepted { message_id });
        }
        if let Some((id, _)) = earlier.iter().find(|(_, status)| status == "started" || status == "unknown") {
            diesel::update(provider_deliveries::table.filter(provider_deliveries::id.eq(id)))
                .set((provider_deliveries::status.eq("unknown"), provider_deliveries::finished_at.eq(now)))
                .execute(conn)
                .await?;
            return Ok(Prepared::InDoubt { message_id });
        }
        let delivery_id = Uuid::now_v7();
        diesel::insert_into(provider_deliveries::table)
            .values((
                provider_deliveries::id.eq(delivery_id),
                provider_deliveries::environment_id.eq(job.environment_id),
                provider_deliveries::job_id.eq(job.id),
                provider_deliveries::message_id.eq(message_id),
                provider_deliveries::attempt.eq(earlier.len() as i32 + 1),
                provider_deliveries::provider_id.eq(provider_id),
                provider_deliveries::started_at.eq(now),
            ))
            .execute(conn)
            .await?;
        Ok(Prepared::Send { delivery_id, message_id })
    })
    .await
}
