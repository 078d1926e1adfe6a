//! How many API processes share the database, so each takes its share of a rate limit without a
//! database round trip per request: every process upserts its row in `api_processes` every
//! [`HEARTBEAT`] and counts the rows seen within [`ALIVE_FOR`]. A process that starts or stops moves
//! the others' shares within one heartbeat; until then the cluster-wide rate can be off by one
//! process's share.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use tokio::sync::watch;
use uuid::Uuid;

use crate::db::DbPool;
use crate::error::AppResult;

/// How often a process says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// A process not heard from for this long counts no more (three missed heartbeats).
pub const ALIVE_FOR: Duration = Duration::from_secs(15);

/// Beats until `stop`, keeping `processes` at the number of live API processes (itself included),
/// then removes its row.
pub async fn heartbeat(pool: DbPool, processes: Arc<AtomicU32>, mut stop: watch::Receiver<bool>) {
    let id = Uuid::now_v7();
    while !*stop.borrow() {
        match beat(&pool, id).await {
            Ok(count) => processes.store(count, Ordering::Relaxed),
            Err(error) => tracing::warn!(%error, "API process heartbeat failed; keeping the last count"),
        }
        tokio::select! {
            _ = tokio::time::sleep(HEARTBEAT) => {}
            _ = stop.changed() => {}
        }
    }
    let removed = match pool.get().await {
        Ok(mut conn) => diesel::sql_query("DELETE FROM api_processes WHERE id = $1")
            .bind::<SqlUuid, _>(id)
            .execute(&mut conn)
            .await
            .map_err(Into::into),
        Err(error) => Err(crate::error::AppError::from(error)),
    };
    if let Err(error) = removed {
        tracing::warn!(%error, "API process row not removed; it stops counting after {ALIVE_FOR:?}");
    }
}

#[derive(diesel::QueryableByName)]
struct Alive {
    #[diesel(sql_type = BigInt)]
    alive: i64,
}

/// Records this process as alive and counts the live ones, itself included (the statement's own
/// insert is not visible to its select, hence the `+ 1`).
async fn beat(pool: &DbPool, id: Uuid) -> AppResult<u32> {
    let mut conn = pool.get().await?;
    let alive: Alive = diesel::sql_query(
        "WITH beat AS (
             INSERT INTO api_processes (id, last_seen) VALUES ($1, now())
             ON CONFLICT (id) DO UPDATE SET last_seen = now()
         )
         SELECT count(*) + 1 AS alive FROM api_processes
         WHERE id <> $1 AND last_seen > now() - make_interval(secs => $2::double precision)",
    )
    .bind::<SqlUuid, _>(id)
    .bind::<BigInt, _>(ALIVE_FOR.as_secs() as i64)
    .get_result(&mut conn)
    .await?;
    Ok(u32::try_from(alive.alive).unwrap_or(u32::MAX))
}
