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
