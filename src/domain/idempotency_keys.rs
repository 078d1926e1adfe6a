//! The `idempotency_keys` rows: a key's answer, written in the transaction of the request it answers
//! (`crate::idempotency`), and for a keyed trigger its outcome, written by the trigger's batch
//! (`crate::engine::trigger::ingest`).
//!
//! A key in use is not a row but a transaction-level advisory lock on the key, taken in the transaction
//! that stores the request's work: it ends with that transaction, whether it commits, rolls back or its
//! process dies, so no key is ever left "in progress" by a crash.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Bytea, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::error::AppResult;

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

/// A key as one request uses it.
#[derive(Debug, Clone)]
pub struct KeyUse {
    pub environment_id: Uuid,
    pub key: String,
    /// What "the same request" means: see `crate::idempotency`.
    pub request_hash: Vec<u8>,
    pub now: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// What a key holds when a request claims it.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The key is free (never used, or expired): this request runs, holding the key until its
    /// transaction ends.
    Fresh,
    /// The same request ran before: its answer.
    Done(StoredAnswer),
    /// The same request, a trigger, was stored before with its outcome alone (a keyed trigger's row
    /// keeps no rendered answer): the outcome, to be answered again.
    Unanswered(Value),
    /// A request with this key is running (in any process).
    InFlight,
    /// Another request used this key.
    Mismatch,
}

/// Claims the key for the request of `used`, in the caller's transaction, or reports what holds it.
pub async fn claim(conn: &mut AsyncPgConnection, used: &KeyUse) -> AppResult<Claim> {
    Ok(claim_all(conn, &[used]).await?.pop().expect("one claim per key"))
}

/// Claims each key in the caller's transaction (two statements for any number), in order. A key
/// named twice is held by its first use: the later one is [`Claim::InFlight`].
pub async fn claim_all(conn: &mut AsyncPgConnection, uses: &[&KeyUse]) -> AppResult<Vec<Claim>> {
    let locks = try_lock_all(conn, uses).await?;
    let locked: Vec<&KeyUse> = uses.iter().zip(&locks).filter(|(_, locked)| **locked).map(|(used, _)| *used).collect();
    let stored = read_rows(conn, &locked).await?;
    Ok(claims_of(uses, &locks, stored))
}

/// [`claim_all`] on a pipelined transaction: its two statements sent together, the rows of every key
/// read (PostgreSQL still runs the read after the locks, with a snapshot of its own).
pub async fn claim_all_pipelined(conn: &AsyncPgConnection, uses: &[&KeyUse]) -> AppResult<Vec<Claim>> {
    let (locks, stored) = futures_util::join!(try_lock_all(conn, uses), read_rows(conn, uses));
    Ok(claims_of(uses, &locks?, stored?))
}

/// Takes each key's transaction-level advisory lock if it is free; whether it was, in order.
async fn try_lock_all(mut conn: &AsyncPgConnection, uses: &[&KeyUse]) -> AppResult<Vec<bool>> {
    #[derive(QueryableByName)]
    struct Locked {
        #[diesel(sql_type = Bool)]
        locked: bool,
    }
    if uses.is_empty() {
        return Ok(Vec::new());
    }
    let lock_ids: Vec<i64> = uses.iter().map(|used| lock_id(used.environment_id, &used.key)).collect();
    // Try-locks never wait, so the order they are taken in cannot deadlock.
    let locks: Vec<Locked> = diesel::sql_query(
        "SELECT pg_try_advisory_xact_lock(id) AS locked FROM unnest($1::bigint[]) WITH ORDINALITY AS t(id, n)
         ORDER BY n",
    )
    .bind::<Array<BigInt>, _>(&lock_ids)
    .load(&mut conn)
    .await?;
    Ok(locks.into_iter().map(|lock| lock.locked).collect())
}

/// Each key's claim, given whether its lock was taken and the unexpired rows read after the locks.
fn claims_of(uses: &[&KeyUse], locks: &[bool], mut stored: HashMap<(Uuid, String), KeyRow>) -> Vec<Claim> {
    let mut first_uses = HashSet::with_capacity(uses.len());
    uses.iter()
        .zip(locks)
        .map(|(used, locked)| {
            // The lock is re-entrant within one transaction: a repeat in the same call is told apart here.
            if !locked || !first_uses.insert((used.environment_id, used.key.as_str())) {
                Claim::InFlight
            } else {
                claim_of(used, stored.remove(&(used.environment_id, used.key.clone())))
            }
        })
        .collect()
}

#[derive(QueryableByName)]
struct KeyRow {
    #[diesel(sql_type = SqlUuid)]
    environment_id: Uuid,
    #[diesel(sql_type = Text)]
    key: String,
    #[diesel(sql_type = Bytea)]
    request_hash: Vec<u8>,
    #[diesel(sql_type = Nullable<Integer>)]
    response_status: Option<i32>,
    #[diesel(sql_type = Nullable<Bytea>)]
    response_body: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    response_headers: Option<Value>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    response_trailers: Option<Value>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    trigger_outcome: Option<Value>,
}

/// The unexpired rows of `uses`. A statement of its own, after the locks: its snapshot includes the
/// answer of a request that held a key and committed just before (one statement taking the lock
/// would read an older snapshot).
async fn read_rows(mut conn: &AsyncPgConnection, uses: &[&KeyUse]) -> AppResult<HashMap<(Uuid, String), KeyRow>> {
    if uses.is_empty() {
        return Ok(HashMap::new());
    }
    let environments: Vec<Uuid> = uses.iter().map(|used| used.environment_id).collect();
    let keys: Vec<&str> = uses.iter().map(|used| used.key.as_str()).collect();
    let nows: Vec<DateTime<Utc>> = uses.iter().map(|used| used.now).collect();
    let rows: Vec<KeyRow> = diesel::sql_query(
        "SELECT k.environment_id, k.key, k.request_hash, k.response_status, k.response_body, k.response_headers,
                k.response_trailers, k.trigger_outcome
         FROM idempotency_keys k
         JOIN unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS u(environment_id, key, now)
           ON k.environment_id = u.environment_id AND k.key = u.key
         WHERE k.expires_at > u.now",
    )
    .bind::<Array<SqlUuid>, _>(&environments)
    .bind::<Array<Text>, _>(&keys)
    .bind::<Array<Timestamptz>, _>(&nows)
    .load(&mut conn)
    .await?;
    Ok(rows.into_iter().map(|row| ((row.environment_id, row.key.clone()), row)).collect())
}

/// What an unexpired row (if any) means for the request of `used`, whose key is now held.
fn claim_of(used: &KeyUse, row: Option<KeyRow>) -> Claim {
    let Some(row) = row else { return Claim::Fresh };
    match (row.response_status, row.trigger_outcome) {
        // A claim that a crash left behind in a release before answers were kept in the request's
        // transaction (the advisory lock says nothing runs it now).
        (None, None) => Claim::Fresh,
        _ if row.request_hash != used.request_hash => Claim::Mismatch,
        (Some(status), _) => Claim::Done(StoredAnswer {
            status: status as u16,
            headers: row.response_headers.unwrap_or(Value::Array(Vec::new())),
            body: row.response_body.unwrap_or_default(),
            trailers: row.response_trailers,
        }),
        (None, Some(outcome)) => Claim::Unanswered(outcome),
    }
}

/// Stores the answer of the request holding the key, in its transaction (an expired row is replaced).
pub async fn save(conn: &mut AsyncPgConnection, used: &KeyUse, answer: &StoredAnswer) -> AppResult<()> {
    diesel::sql_query(SAVE)
        .bind::<SqlUuid, _>(used.environment_id)
        .bind::<Text, _>(&used.key)
        .bind::<Bytea, _>(&used.request_hash)
        .bind::<Timestamptz, _>(used.now)
        .bind::<Timestamptz, _>(used.expires_at)
        .bind::<Integer, _>(i32::from(answer.status))
        .bind::<Bytea, _>(&answer.body)
        .bind::<Jsonb, _>(&answer.headers)
        .bind::<Nullable<Jsonb>, _>(answer.trailers.as_ref())
        .execute(conn)
        .await?;
    Ok(())
}

const SAVE: &str = "
INSERT INTO idempotency_keys (environment_id, key, request_hash, created_at, expires_at,
    response_status, response_body, response_headers, response_trailers)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (environment_id, key) DO UPDATE
SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
    response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
    response_headers = EXCLUDED.response_headers, response_trailers = EXCLUDED.response_trailers,
    trigger_outcome = NULL";

/// Stores the outcomes of keyed triggers, in the transaction that stores the triggers and holds their
/// keys (a row there is expired, or an answerless leftover: it is replaced).
pub async fn insert_outcomes(mut conn: &AsyncPgConnection, outcomes: &[(&KeyUse, Value)]) -> AppResult<()> {
    if outcomes.is_empty() {
        return Ok(());
    }
    let environments: Vec<Uuid> = outcomes.iter().map(|(used, _)| used.environment_id).collect();
    let keys: Vec<&str> = outcomes.iter().map(|(used, _)| used.key.as_str()).collect();
    let hashes: Vec<&[u8]> = outcomes.iter().map(|(used, _)| used.request_hash.as_slice()).collect();
    let created: Vec<DateTime<Utc>> = outcomes.iter().map(|(used, _)| used.now).collect();
    let expires: Vec<DateTime<Utc>> = outcomes.iter().map(|(used, _)| used.expires_at).collect();
    let values: Vec<&Value> = outcomes.iter().map(|(_, outcome)| outcome).collect();
    diesel::sql_query(
        "INSERT INTO idempotency_keys (environment_id, key, request_hash, created_at, expires_at, trigger_outcome)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::timestamptz[], $5::timestamptz[], $6::jsonb[])
         ON CONFLICT (environment_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
             response_status = NULL, response_body = NULL, response_headers = NULL, response_trailers = NULL,
             trigger_outcome = EXCLUDED.trigger_outcome",
    )
    .bind::<Array<SqlUuid>, _>(&environments)
    .bind::<Array<Text>, _>(&keys)
    .bind::<Array<Bytea>, _>(&hashes)
    .bind::<Array<Timestamptz>, _>(&created)
    .bind::<Array<Timestamptz>, _>(&expires)
    .bind::<Array<Jsonb>, _>(&values)
    .execute(&mut conn)
    .await?;
    Ok(())
}

/// The advisory lock of a key: 64 bits of SHA-256 over environment and key (two keys sharing a lock
/// would only make one wait for the other's 409, at odds of 2^-64).
fn lock_id(environment_id: Uuid, key: &str) -> i64 {
    let digest = Sha256::new().chain_update(environment_id.as_bytes()).chain_update(key).finalize();
    i64::from_be_bytes(digest[..8].try_into().expect("a SHA-256 digest is 32 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_environment_and_key_has_its_own_lock() {
        let (one, other) = (Uuid::from_u128(1), Uuid::from_u128(2));
        assert_eq!(lock_id(one, "k"), lock_id(one, "k"));
        assert_ne!(lock_id(one, "k"), lock_id(other, "k"));
        assert_ne!(lock_id(one, "k"), lock_id(one, "l"));
    }
}
