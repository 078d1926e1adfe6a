//! The record that makes outbound calls (provider sends, custom-step webhooks) happen at most once per
//! job. Before calling, a `started` row is committed; after, it becomes `accepted` or `failed`. A job
//! that finds an `accepted` row was already delivered; one that finds `started` (its previous worker
//! died during the call) cannot know whether the call went through and does not call again.
//!
//! The steps of a batch record their calls together ([`CallStarts`]): whichever step finds no record
//! in flight writes every call queued so far in one transaction of set-based statements, and the steps
//! arriving meanwhile leave together in the next. One transaction per call cost a commit's disk flush
//! and six round trips per email, and bounded a worker at about 700 emails/s to a provider answering in
//! 50 ms (docs/performance.md).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Int4, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use tokio::sync::oneshot;
use uuid::Uuid;

use super::message::{insert_messages, message_row, NewMessage, NewMessageRow};
use crate::db::schema::{messages, provider_deliveries};
use crate::db::unnest::{bind_arrays, static_query_id};
use crate::engine::jobs::{lock_leased, Job};
use crate::engine::runtime::WorkerShared;
use crate::error::{AppError, AppResult};

/// What the job may do about its outbound call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prepared {
    /// Call now; record the result on `delivery_id`.
    Send { delivery_id: Uuid, message_id: Option<Uuid> },
    /// An earlier run's call was accepted: do not call again.
    AlreadyAccepted { message_id: Option<Uuid> },
    /// An earlier run died during its call: its result is unknown, do not call again.
    InDoubt { message_id: Option<Uuid> },
    /// Another worker took the job over (this worker's lease expired): leave it alone.
    LeaseLost,
}

/// The calls of one batch's steps waiting for their `started` records, and the turn to write them.
#[derive(Default)]
pub struct CallStarts {
    queued: Mutex<Vec<Queued>>,
    /// Held while a transaction writes what was queued: one at a time, so the rest queue behind it.
    writing: tokio::sync::Mutex<()>,
}

/// A call to record, and where its verdict goes.
struct Queued {
    start: CallStart,
    verdict: oneshot::Sender<AppResult<Prepared>>,
}

/// One call to record: the job making it and the message it sends, if any.
struct CallStart {
    job_id: Uuid,
    environment_id: Uuid,
    /// The lease holder of the job's batch: only a job still held is recorded.
    holder: String,
    provider_id: String,
    message: Option<NewMessageRow>,
}

impl CallStarts {
    /// Stores the job's message (once) and its `started` record, committed with the other calls queued
    /// at the same time, before the job calls.
    pub async fn prepare(
        &self,
        shared: &WorkerShared,
        job: &Job,
        provider_id: &str,
        message: Option<&NewMessage>,
    ) -> AppResult<Prepared> {
        let now = shared.engine.clock.now();
        let start = CallStart {
            job_id: job.id,
            environment_id: job.environment_id,
            holder: job.lease_owner.clone().unwrap_or_default(),
            provider_id: provider_id.to_owned(),
            message: message.map(|message| message_row(job, message, now)),
        };
        let (verdict, mut answered) = oneshot::channel();
        self.queued.lock().expect("the call queue is never poisoned").push(Queued { start, verdict });
        loop {
            tokio::select! {
                biased;
                answer = &mut answered => {
                    return answer.unwrap_or_else(|_| Err(AppError::internal("a call's record was dropped unwritten")));
                }
                _turn = self.writing.lock() => {
                    let queued = std::mem::take(&mut *self.queued.lock().expect("the call queue is never poisoned"));
                    if queued.is_empty() {
                        // Ours was taken by a write that has answered since.
                        continue;
                    }
                    write_queued(shared, queued).await;
                }
            }
        }
    }
}

/// Writes the queued calls in one transaction and sends each its verdict (a failure is every one's).
async fn write_queued(shared: &WorkerShared, queued: Vec<Queued>) {
    let (mut starts, verdicts): (Vec<CallStart>, Vec<_>) =
        queued.into_iter().map(|queued| (queued.start, queued.verdict)).unzip();
    let written = match shared.pool.get().await {
        Ok(mut conn) => {
            let now = shared.engine.clock.now();
            conn.transaction::<_, AppError, _>(async |conn| write_starts(conn, &mut starts, now).await).await
        }
        Err(error) => Err(error.into()),
    };
    match written {
        Ok(prepared) => {
            for (verdict, prepared) in verdicts.into_iter().zip(prepared) {
                let _ = verdict.send(Ok(prepared));
            }
        }
        Err(error) => {
            let error = Arc::new(error);
            for verdict in verdicts {
                let _ = verdict.send(Err(AppError::from_shared(error.clone())));
            }
        }
    }
}

/// Locks the jobs still held, stores their messages, reads their earlier records and writes what each
/// call is now (started, or in doubt, at `now`): a statement per kind of write for all of them.
async fn write_starts(
    conn: &mut AsyncPgConnection,
    starts: &mut [CallStart],
    now: DateTime<Utc>,
) -> AppResult<Vec<Prepared>> {
    let held = lock_held(conn, starts).await?;
    let message_ids = store_messages(conn, starts, &held).await?;
    let earlier = earlier_records(conn, &held).await?;
    let mut in_doubt = Vec::new();
    let mut started = NewStarts::default();
    let prepared = starts
        .iter()
        .map(|start| {
            if !held.contains(&start.job_id) {
                return Prepared::LeaseLost;
            }
            let message_id = message_ids.get(&start.job_id).copied();
            let records = earlier.get(&start.job_id).map(Vec::as_slice).unwrap_or_default();
            if records.iter().any(|(_, status)| status == "accepted") {
                return Prepared::AlreadyAccepted { message_id };
            }
            if let Some((id, _)) = records.iter().find(|(_, status)| status == "started" || status == "unknown") {
                in_doubt.push(*id);
                return Prepared::InDoubt { message_id };
            }
            let delivery_id = Uuid::now_v7();
            started.push(delivery_id, start, message_id, records.len() as i32 + 1, now);
            Prepared::Send { delivery_id, message_id }
        })
        .collect();
    if !in_doubt.is_empty() {
        diesel::update(provider_deliveries::table.filter(provider_deliveries::id.eq_any(&in_doubt)))
            .set((provider_deliveries::status.eq("unknown"), provider_deliveries::finished_at.eq(now)))
            .execute(conn)
            .await?;
    }
    if !started.id.is_empty() {
        started.execute(conn).await?;
    }
    Ok(prepared)
}

/// Locks the calls' jobs their batch still holds (one statement per lease holder: one in practice, the
/// calls of a batch) and returns their ids.
async fn lock_held(conn: &mut AsyncPgConnection, starts: &[CallStart]) -> AppResult<HashSet<Uuid>> {
    let mut held = HashSet::with_capacity(starts.len());
    let holders: BTreeSet<&str> = starts.iter().map(|start| start.holder.as_str()).collect();
    for holder in holders {
        let ids: Vec<Uuid> = starts.iter().filter(|start| start.holder == holder).map(|start| start.job_id).collect();
        held.extend(lock_leased(conn, &ids, holder).await?);
    }
    Ok(held)
}

/// Stores the messages of the held jobs' calls (once: one stored by an earlier run keeps its id) and
/// returns their ids by job.
async fn store_messages(
    conn: &mut AsyncPgConnection,
    starts: &mut [CallStart],
    held: &HashSet<Uuid>,
) -> AppResult<HashMap<Uuid, Uuid>> {
    let mut job_ids = Vec::new();
    let messages: Vec<NewMessageRow> = starts
        .iter_mut()
        .filter(|start| held.contains(&start.job_id))
        .filter_map(|start| {
            let message = start.message.take()?;
            job_ids.push(start.job_id);
            Some(message)
        })
        .collect();
    if messages.is_empty() {
        return Ok(HashMap::new());
    }
    insert_messages(conn, &messages).await?;
    let stored: Vec<(Uuid, Uuid)> = messages::table
        .filter(messages::job_id.eq_any(&job_ids))
        .select((messages::job_id, messages::id))
        .load(conn)
        .await?;
    Ok(stored.into_iter().collect())
}

/// The earlier call records of the held jobs (id and status), by job.
async fn earlier_records(
    conn: &mut AsyncPgConnection,
    held: &HashSet<Uuid>,
) -> AppResult<HashMap<Uuid, Vec<(Uuid, String)>>> {
    let mut earlier: HashMap<Uuid, Vec<(Uuid, String)>> = HashMap::new();
    if held.is_empty() {
        return Ok(earlier);
    }
    let held: Vec<Uuid> = held.iter().copied().collect();
    let records: Vec<(Uuid, Uuid, String)> = provider_deliveries::table
        .filter(provider_deliveries::job_id.eq_any(&held))
        .select((provider_deliveries::job_id, provider_deliveries::id, provider_deliveries::status))
        .load(conn)
        .await?;
    for (job_id, id, status) in records {
        earlier.entry(job_id).or_default().push((id, status));
    }
    Ok(earlier)
}

/// The `started` records to insert, column by column (one `unnest` statement: see `db::unnest`).
#[derive(Default)]
struct NewStarts<'a> {
    id: Vec<Uuid>,
    environment_id: Vec<Uuid>,
    job_id: Vec<Uuid>,
    message_id: Vec<Option<Uuid>>,
    attempt: Vec<i32>,
    provider_id: Vec<&'a str>,
    started_at: Vec<DateTime<Utc>>,
}

impl<'a> NewStarts<'a> {
    fn push(&mut self, id: Uuid, start: &'a CallStart, message_id: Option<Uuid>, attempt: i32, now: DateTime<Utc>) {
        self.id.push(id);
        self.environment_id.push(start.environment_id);
        self.job_id.push(start.job_id);
        self.message_id.push(message_id);
        self.attempt.push(attempt);
        self.provider_id.push(&start.provider_id);
        self.started_at.push(now);
    }
}

static_query_id!(NewStarts);

impl QueryFragment<Pg> for NewStarts<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql(
            "INSERT INTO provider_deliveries (id, environment_id, job_id, message_id, attempt, provider_id, \
             started_at) SELECT * FROM unnest(",
        );
        bind_arrays!(out;
            SqlUuid: self.id, SqlUuid: self.environment_id, SqlUuid: self.job_id, Nullable<SqlUuid>: self.message_id,
            Int4: self.attempt, Text: self.provider_id, Timestamptz: self.started_at,
        );
        out.push_sql(")");
        Ok(())
    }
}
