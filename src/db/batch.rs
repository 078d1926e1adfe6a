//! Set-based writes of a batch: one statement changes every row, whatever the batch size, instead of
//! a statement per row. Callers pass the SQL; these helpers bind the batch and the time.

use chrono::{DateTime, Utc};
use diesel::sql_types::{Array, Jsonb, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
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
/// 1,000-recipient trigger (perf, `GetCachedPlan`). Call first in a batch's transaction.
pub async fn plan_generically(conn: &mut AsyncPgConnection) -> QueryResult<()> {
    diesel::sql_query("SET LOCAL plan_cache_mode = force_generic_plan").execute(conn).await?;
    Ok(())
}
