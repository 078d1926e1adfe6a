//! The `idempotency_keys` rows: claimed before a request runs, completed with its answer after it.
//!
//! Both writes commit with `synchronous_commit = off`: they cost no disk flush of their own, and lose
//! nothing the guarantee needs. A claim lost in a crash belonged to a request whose own writes (if it
//! made any) never committed either, since PostgreSQL flushes the log in order and the request's commit
//! comes after the claim's. A completion lost in a crash leaves the key in progress, never "done" for
//! work that was not done.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::query_dsl::methods::FilterDsl;
use diesel::upsert::excluded;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use crate::db::schema::idempotency_keys as keys;
use crate::error::{AppError, AppResult};

/// An answer as stored, replayed byte for byte.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAnswer {
    pub status: u16,
    /// `[[name, value], …]` of the answer's headers.
    pub headers: Value,
    pub body: Vec<u8>,
    /// gRPC trailers in the same form; None for REST.
    pub trailers: Option<Value>,
}

/// What a key holds when a request claims it.
#[derive(Debug, PartialEq)]
pub enum Claim {
    /// The key was free (or expired): this request runs.
    Fresh,
    /// The same request ran before: its answer.
    Done(StoredAnswer),
    /// The same request is running (or its process stopped before answering).
    InFlight,
    /// Another request used this key.
    Mismatch,
}

/// Claims `key` for a request hashing to `hash`, or reports what the key already holds. An expired
/// key is taken over in the same statement.
pub async fn claim(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    key: &str,
    hash: &[u8],
    now: DateTime<Utc>,
    expires_at: DateTime<Utc>,
) -> AppResult<Claim> {
    let claimed = conn
        .transaction::<_, AppError, _>(async |conn| {
            commit_asynchronously(conn).await?;
            let row = (
                keys::environment_id.eq(environment_id),
                keys::key.eq(key),
                keys::request_hash.eq(hash),
                keys::created_at.eq(now),
                keys::expires_at.eq(expires_at),
            );
            let inserted = diesel::insert_into(keys::table)
                .values(row)
                .on_conflict((keys::environment_id, keys::key))
                .do_update()
                .set((
                    keys::request_hash.eq(excluded(keys::request_hash)),
                    keys::response_status.eq(None::<i32>),
                    keys::response_body.eq(None::<Vec<u8>>),
                    keys::response_headers.eq(None::<Value>),
                    keys::response_trailers.eq(None::<Value>),
                    keys::created_at.eq(excluded(keys::created_at)),
                    keys::expires_at.eq(excluded(keys::expires_at)),
                ))
                .filter(keys::expires_at.le(now))
                .execute(conn)
                .await?;
            Ok(inserted == 1)
        })
        .await?;
    if claimed {
        return Ok(Claim::Fresh);
    }
    type Row = (Vec<u8>, Option<i32>, Option<Vec<u8>>, Option<Value>, Option<Value>);
    let stored: Option<Row> = keys::table
        .find((environment_id, key))
        .select((
            keys::request_hash,
            keys::response_status,
            keys::response_body,
            keys::response_headers,
            keys::response_trailers,
        ))
        .first(conn)
        .await
        .optional()?;
    Ok(match stored {
        // Released (a 5xx) between the two statements: the client may simply retry.
        None => Claim::InFlight,
        Some((stored_hash, _, _, _, _)) if stored_hash != hash => Claim::Mismatch,
        Some((_, Some(status), body, headers, trailers)) => Claim::Done(StoredAnswer {
            status: status as u16,
            headers: headers.unwrap_or(Value::Array(Vec::new())),
            body: body.unwrap_or_default(),
            trailers,
        }),
        Some(_) => Claim::InFlight,
    })
}

/// Stores the answer of the request holding `key`.
pub async fn complete(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    key: &str,
    answer: &StoredAnswer,
) -> AppResult<()> {
    conn.transaction::<_, AppError, _>(async |conn| {
        commit_asynchronously(conn).await?;
        diesel::update(keys::table.find((environment_id, key)))
            .set((
                keys::response_status.eq(Some(i32::from(answer.status))),
                keys::response_body.eq(Some(&answer.body)),
                keys::response_headers.eq(Some(&answer.headers)),
                keys::response_trailers.eq(answer.trailers.as_ref()),
            ))
            .execute(conn)
            .await?;
        Ok(())
    })
    .await
}

/// Frees `key` after an answer that is not stored (a server error): the client may retry it.
pub async fn release(conn: &mut AsyncPgConnection, environment_id: Uuid, key: &str) -> AppResult<()> {
    conn.transaction::<_, AppError, _>(async |conn| {
        commit_asynchronously(conn).await?;
        diesel::delete(keys::table.find((environment_id, key)))
            .filter(keys::response_status.is_null())
            .execute(conn)
            .await?;
        Ok(())
    })
    .await
}

/// Makes the current transaction commit without waiting for its disk flush (see the module).
async fn commit_asynchronously(conn: &mut AsyncPgConnection) -> AppResult<()> {
    diesel::sql_query("SET LOCAL synchronous_commit = off").execute(conn).await?;
    Ok(())
}
