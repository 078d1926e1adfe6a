//! The `idempotency_keys` rows: a key's answer, written in the transaction of the request it answers.
//!
//! A key in use is not a row but a transaction-level advisory lock on the key, taken in the request's
//! transaction: it ends with that transaction, whether it commits, rolls back or its process dies, so
//! no key is ever left "in progress" by a crash.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Bytea, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::db::schema::idempotency_keys as keys;
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
pub struct KeyUse {
    pub environment_id: Uuid,
    pub key: String,
    /// What "the same request" means: see `request_hash`.
    pub request_hash: Vec<u8>,
    pub now: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// What a key holds when a request claims it.
#[derive(Debug, PartialEq)]
pub enum Claim {
    /// The key is free (never used, or expired): this request runs, holding the key until its
    /// transaction ends.
    Fresh,
    /// The same request ran before: its answer.
    Done(StoredAnswer),
    /// A request with this key is running (in any process).
    InFlight,
    /// Another request used this key.
    Mismatch,
}

/// Claims the key for the request of `used`, in the caller's transaction, or reports what holds it.
pub async fn claim(conn: &mut AsyncPgConnection, used: &KeyUse) -> AppResult<Claim> {
    #[derive(QueryableByName)]
    struct Locked {
        #[diesel(sql_type = Bool)]
        locked: bool,
    }
    let lock: Locked = diesel::sql_query("SELECT pg_try_advisory_xact_lock($1) AS locked")
        .bind::<BigInt, _>(lock_id(used.environment_id, &used.key))
        .get_result(conn)
        .await?;
    if !lock.locked {
        return Ok(Claim::InFlight);
    }
    // A statement of its own, after the lock: its snapshot includes the answer of a request that held
    // the key and committed just before (one statement taking the lock would read an older snapshot).
    type Row = (Vec<u8>, Option<i32>, Option<Vec<u8>>, Option<Value>, Option<Value>);
    let stored: Option<Row> = keys::table
        .find((used.environment_id, &used.key))
        .filter(keys::expires_at.gt(used.now))
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
        Some((stored_hash, Some(_), _, _, _)) if stored_hash != used.request_hash => Claim::Mismatch,
        Some((_, Some(status), body, headers, trailers)) => Claim::Done(StoredAnswer {
            status: status as u16,
            headers: headers.unwrap_or(Value::Array(Vec::new())),
            body: body.unwrap_or_default(),
            trailers,
        }),
        // No row, or one without an answer: a claim that a crash left behind in a release before
        // answers were kept in the request's transaction (the advisory lock says nothing runs it now).
        Some((_, None, _, _, _)) | None => Claim::Fresh,
    })
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
    response_headers = EXCLUDED.response_headers, response_trailers = EXCLUDED.response_trailers";

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
