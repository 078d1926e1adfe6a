//! Set-based writes of a batch: one statement changes every row, whatever the batch size, instead of
//! a statement per row. Callers pass the SQL; these helpers bind the batch and the time.

use chrono::{DateTime, Utc};
use diesel::connection::TransactionManagerStatus;
use diesel::sql_types::{Array, Jsonb, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AnsiTransactionManager, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection, TransactionManager};
use serde_json::Value;
use uuid::Uuid;

/// Runs one `UPDATE … FROM jsonb_to_recordset($1)` statement (with `$2` = now) over `records`, the batch's
/// rows to change; nothing when there are none.
pub async fn update_from_records(
    conn: &mut AsyncPgConnection,
    sql: &str,
    records: Vec<Value>,
    now: DateTime<Utc>,
) -> QueryResult<()> {
    if records.is_empty() {
        return Ok(());
    }
    diesel::sql_query(sql).bind::<Jsonb, _>(Value::Array(records)).bind::<Timestamptz, _>(now).execute(conn).await?;
    Ok(())
}

/// Runs one `UPDATE … FROM unnest($1, $2)` statement over pairs of ids (two arrays of equal length), with
/// `$3` = now.
pub async fn update_by_pairs(
    conn: &mut AsyncPgConnection,
    sql: &str,
    (first, second): (&[Uuid], &[Uuid]),
    now: DateTime<Utc>,
) -> QueryResult<()> {
    diesel::sql_query(sql)
        .bind::<Array<SqlUuid>, _>(first)
        .bind::<Array<SqlUuid>, _>(second)
        .bind::<Timestamptz, _>(now)
        .execute(conn)
        .await?;
    Ok(())
}

/// Plans the rest of the current transaction's statements generically: once per connection for a
/// prepared batch statement, instead of for every batch. Connections default to custom plans (see
/// `establish_with_custom_plans`), which a search needs and a batch write does not: re-planning a
/// batch statement for its bound arrays on every run cost a quarter of PostgreSQL's time storing a
/// 1,000-recipient trigger (perf, `GetCachedPlan`). Call it where a transaction's batch writes start
/// (after a claim's reads); a transaction of batch writes alone begins so ([`begin_batch_transaction`]).
pub async fn plan_generically(conn: &mut AsyncPgConnection) -> QueryResult<()> {
    diesel::sql_query("SET LOCAL plan_cache_mode = force_generic_plan").execute(conn).await?;
    Ok(())
}

/// Begins a transaction planned generically (as [`plan_generically`] plans the rest of one) in one round
/// trip: `BEGIN` and the setting travel together, where `transaction` and then `plan_generically` took two.
/// Under load every round trip of a trigger batch waits for its turn on a core, and its callers with it
/// (docs/performance.md). End it with [`end_batch_transaction`]. A pair of calls rather than a closure
/// like `AsyncConnection::transaction`: a function taking the closure cannot state that the closure's
/// future is `Send` (diesel-async keeps the bound it uses for that private), and the callers run in
/// spawned tasks. diesel-async's `TransactionBuilder` begins in one statement too, but sets only the
/// isolation, read mode and deferrability.
pub async fn begin_batch_transaction(conn: &mut AsyncPgConnection) -> QueryResult<()> {
    AnsiTransactionManager::begin_transaction_sql(conn, BEGIN_BATCH).await
}

const BEGIN_BATCH: &str = "BEGIN; SET LOCAL plan_cache_mode = force_generic_plan";

/// Ends the transaction [`begin_batch_transaction`] began: commits it if `result` is a success, else
/// rolls it back, as `AsyncConnection::transaction` does. Returns `result`, or the commit's error.
pub async fn end_batch_transaction<T, E: From<diesel::result::Error>>(
    conn: &mut AsyncPgConnection,
    result: Result<T, E>,
) -> Result<T, E> {
    match result {
        Ok(value) => {
            AnsiTransactionManager::commit_transaction(conn).await?;
            Ok(value)
        }
        Err(error) => match AnsiTransactionManager::rollback_transaction(conn).await {
            // The batch's own error says more than a rollback refused on a broken connection.
            Ok(()) | Err(diesel::result::Error::BrokenTransactionManager) => Err(error),
            Err(rollback_error) => Err(rollback_error.into()),
        },
    }
}

/// A batch transaction whose `BEGIN` travels with its statements: the caller sends [`Self::begin`] and the
/// statements together (pipelined, polled in order in one `join`: PostgreSQL runs them in the order
/// sent), then commits or rolls back. `begin` must be the `join`'s first future: each statement waits
/// for its turn at the connection's statement cache, so one still being prepared is sent before the
/// next, but a simple query such as `begin`'s takes no turn and would overtake it. diesel-async's transaction manager cannot begin without waiting
/// for the answer, so it is not told; instead the connection counts as broken until the transaction
/// ends, so that a connection dropped in between (a panic) is discarded by the pool, never lent out
/// inside a transaction.
pub struct PipelinedTransaction<'c> {
    conn: &'c mut AsyncPgConnection,
}

impl<'c> PipelinedTransaction<'c> {
    pub fn new(conn: &'c mut AsyncPgConnection) -> Self {
        AnsiTransactionManager::transaction_manager_status_mut(conn).set_in_error();
        Self { conn }
    }

    /// The connection to send the statements on, the first of them [`Self::begin`]'s.
    pub fn connection(&self) -> &AsyncPgConnection {
        self.conn
    }

    /// The `BEGIN` of a batch transaction (planned generically, as [`begin_batch_transaction`]'s).
    pub async fn begin(mut conn: &AsyncPgConnection) -> QueryResult<()> {
        conn.batch_execute(BEGIN_BATCH).await
    }

    /// Commits; only once every statement succeeded (a `COMMIT` of a failed transaction rolls it back
    /// without an error).
    pub async fn commit(self) -> QueryResult<()> {
        self.end("COMMIT").await
    }

    pub async fn rollback(self) -> QueryResult<()> {
        self.end("ROLLBACK").await
    }

    /// Ends the transaction; the connection counts as whole again once it has.
    async fn end(self, sql: &str) -> QueryResult<()> {
        self.conn.batch_execute(sql).await?;
        *AnsiTransactionManager::transaction_manager_status_mut(self.conn) = TransactionManagerStatus::default();
        Ok(())
    }
}
