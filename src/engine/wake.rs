//! Waking workers when work becomes due. Workers in this process are woken directly; workers in other
//! processes through `NOTIFY` on a channel named after the database schema (channels are per database,
//! and several deployments, or tests, may share one database with a schema each).
//!
//! The `NOTIFY` is sent after the work is committed, by one background task that coalesces every wake-up
//! that arrives while it is sending. It is never sent inside the transaction that stores the work:
//! PostgreSQL serialises the commits of notifying transactions (queue order must equal commit order),
//! including their WAL flush, which capped triggers at one commit per disk flush (measured: about 200/s).

use std::sync::Arc;

use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use tokio::sync::Notify;

use crate::db::DbPool;
use crate::error::AppResult;

/// Wakes the workers of this process at once and those of other processes soon after.
#[derive(Debug, Clone)]
pub struct Wakeup {
    /// Idle worker loops of this process wait on it.
    pub local: Arc<Notify>,
    /// The notifier task waits on it; a permit stored while it is busy coalesces wake-ups.
    remote: Arc<Notify>,
}

impl Wakeup {
    /// Starts the notifier task for `channel` on `pool`.
    pub fn start(pool: DbPool, channel: String) -> Self {
        let remote = Arc::new(Notify::new());
        let requests = remote.clone();
        tokio::spawn(async move {
            loop {
                requests.notified().await;
                let sent = match pool.get().await {
                    Ok(mut conn) => notify_workers(&mut conn, &channel).await,
                    Err(error) => Err(error.into()),
                };
                if let Err(error) = sent {
                    tracing::warn!(%error, "could not notify other worker processes; they will poll");
                }
            }
        });
        Self { local: Arc::new(Notify::new()), remote }
    }

    /// Call after committing new due work.
    pub fn wake(&self) {
        self.local.notify_waiters();
        self.remote.notify_one();
    }
}

/// The channel workers of the connection's schema listen on.
pub async fn wake_channel(conn: &mut AsyncPgConnection) -> AppResult<String> {
    #[derive(diesel::QueryableByName)]
    struct Schema {
        #[diesel(sql_type = Text)]
        name: String,
    }
    let schema: Schema = diesel::sql_query("SELECT current_schema() AS name").get_result(conn).await?;
    // Channel names are identifiers: at most 63 bytes.
    let mut channel = format!("herald_jobs_{}", schema.name);
    channel.truncate(63);
    Ok(channel)
}

async fn notify_workers(conn: &mut AsyncPgConnection, channel: &str) -> AppResult<()> {
    diesel::sql_query("SELECT pg_notify($1, '')").bind::<Text, _>(channel).execute(conn).await?;
    Ok(())
}
