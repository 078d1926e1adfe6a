//! Waking workers when work becomes due. Workers in this process are woken directly; workers in other
//! processes through `NOTIFY` on a channel named after the database schema (channels are per database,
//! and several deployments, or tests, may share one database with a schema each).
//!
//! The `NOTIFY` is sent after the work is committed, by one background task that coalesces every wake-up
//! that arrives while it is sending. It is never sent inside the transaction that stores the work:
//! PostgreSQL serialises the commits of notifying transactions (queue order must equal commit order),
//! including their WAL flush, which capped triggers at one commit per disk flush (measured: about 200/s).
//!
//! Two kinds of work wake different loops: due jobs the batch loops, stored fan-outs the fan-out
//! claimer. Waking the fan-out loop for every trigger made it plan and run its claim in vain about once
//! per 13 triggers of a run with no topic at all (1,528 claims, ~190 µs of planning each, in a
//! 20,000-trigger run; pg_stat_statements).

use std::sync::Arc;
use std::time::Duration;

use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use tokio::sync::Notify;

use crate::db::DbPool;
use crate::error::AppResult;

/// What became due, and the `NOTIFY` payload that says so to other processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Due {
    Jobs,
    Fanouts,
}

impl Due {
    fn payload(self) -> &'static str {
        match self {
            Due::Jobs => "",
            Due::Fanouts => "fanouts",
        }
    }

    /// The kind a received payload names (an unknown one, from a newer version, wakes the job loops).
    pub fn of_payload(payload: &str) -> Self {
        if payload == Due::Fanouts.payload() {
            Due::Fanouts
        } else {
            Due::Jobs
        }
    }
}

/// One kind's waiters in this process and its pending `NOTIFY`.
#[derive(Debug, Default)]
struct Waiters {
    /// The idle loops of this process wait on it.
    local: Arc<Notify>,
    /// The notifier task waits on it; a permit stored while it is busy coalesces wake-ups.
    remote: Notify,
}

/// Wakes the workers of this process at once and those of other processes soon after.
#[derive(Debug, Clone)]
pub struct Wakeup {
    jobs: Arc<Waiters>,
    fanouts: Arc<Waiters>,
}

impl Wakeup {
    /// Starts the notifier task for `channel` on `pool`.
    pub fn start(pool: DbPool, channel: String) -> Self {
        let wakeup = Self { jobs: Arc::default(), fanouts: Arc::default() };
        let (jobs, fanouts) = (wakeup.jobs.clone(), wakeup.fanouts.clone());
        tokio::spawn(async move {
            loop {
                let due = tokio::select! {
                    _ = jobs.remote.notified() => Due::Jobs,
                    _ = fanouts.remote.notified() => Due::Fanouts,
                };
                let sent = match pool.get().await {
                    Ok(mut conn) => notify_workers(&mut conn, &channel, due).await,
                    Err(error) => Err(error.into()),
                };
                if let Err(error) = sent {
                    tracing::warn!(%error, "could not notify other worker processes; they will poll");
                }
                tokio::time::sleep(NOTIFY_SPACING).await;
            }
        });
        wakeup
    }

    /// Call after committing new work of kind `due`.
    pub fn wake(&self, due: Due) {
        let waiters = self.waiters(due);
        waiters.local.notify_waiters();
        waiters.remote.notify_one();
    }

    /// Wakes this process's idle loops of kind `due` (for a `NOTIFY` another process sent).
    pub fn wake_local(&self, due: Due) {
        self.waiters(due).local.notify_waiters();
    }

    /// What the idle loops of kind `due` wait on.
    pub fn local(&self, due: Due) -> Arc<Notify> {
        self.waiters(due).local.clone()
    }

    fn waiters(&self, due: Due) -> &Waiters {
        match due {
            Due::Jobs => &self.jobs,
            Due::Fanouts => &self.fanouts,
        }
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

/// The least time between two `NOTIFY`s: the wake-ups of the commits in between leave as one. Other
/// processes' workers learn of new work up to this much later (they would poll it within a second).
/// At 2,000 triggers/s, one `NOTIFY` per trigger batch (less those coalesced while one was sent) was
/// 540 transactions a second (`pg_stat_statements`).
const NOTIFY_SPACING: Duration = Duration::from_millis(5);

/// The `NOTIFY` commits without waiting for the disk (`synchronous_commit` off for its own transaction
/// only): it is a hint, and a notifying transaction has a commit record, which otherwise waited for a
/// WAL flush of its own.
async fn notify_workers(conn: &mut AsyncPgConnection, channel: &str, due: Due) -> AppResult<()> {
    diesel::sql_query("SELECT pg_notify($1, $2), set_config('synchronous_commit', 'off', true)")
        .bind::<Text, _>(channel)
        .bind::<Text, _>(due.payload())
        .execute(conn)
        .await?;
    Ok(())
}
