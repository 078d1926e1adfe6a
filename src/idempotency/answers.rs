//! The answers of keyed triggers, added to their keys' rows after the trigger's batch stored the
//! key with the trigger's outcome. One writer stores whatever answers are queued in one statement, with
//! asynchronous commit: an answer lost (a crash within the moment before the WAL reaches disk, or a
//! full queue) costs nothing but speed, since a retry is answered from the stored outcome instead.

use tokio::sync::mpsc;

use crate::db::DbPool;
use crate::domain::idempotency_keys::{self, KeyUse, StoredAnswer};
use crate::error::{AppError, AppResult};

/// Most answers one statement stores.
const MAX_BATCH: usize = 1_000;
/// Answers waiting for the writer before new ones are dropped.
const QUEUE_CAPACITY: usize = 10_000;

/// The queue of answers to add.
#[derive(Clone, Debug)]
pub struct KeyAnswers {
    queue: mpsc::Sender<(KeyUse, StoredAnswer)>,
}

impl KeyAnswers {
    /// Starts the writer on `pool`; it stops when the last handle is dropped.
    pub fn start(pool: DbPool) -> Self {
        let (queue, queued) = mpsc::channel(QUEUE_CAPACITY);
        tokio::spawn(write(pool, queued));
        Self { queue }
    }

    /// Queues `answer` for the key of `used`, whose row holds its trigger's outcome already.
    pub fn add(&self, used: KeyUse, answer: StoredAnswer) {
        if self.queue.try_send((used, answer)).is_err() {
            tracing::debug!("idempotency answer queue full; the key keeps its trigger's outcome");
        }
    }
}

async fn write(pool: DbPool, mut queued: mpsc::Receiver<(KeyUse, StoredAnswer)>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while queued.recv_many(&mut batch, MAX_BATCH).await > 0 {
        if let Err(error) = add_answers(&pool, &batch).await {
            tracing::warn!(%error, answers = batch.len(), "idempotency answers not stored; their keys keep the outcomes");
        }
        batch.clear();
    }
}

async fn add_answers(pool: &DbPool, batch: &[(KeyUse, StoredAnswer)]) -> AppResult<()> {
    use diesel_async::{AsyncConnection, RunQueryDsl};
    let mut conn = pool.get().await?;
    conn.transaction::<_, AppError, _>(async |conn| {
        diesel::sql_query("SET LOCAL synchronous_commit = off").execute(conn).await?;
        idempotency_keys::add_answers(conn, batch).await
    })
    .await
}
