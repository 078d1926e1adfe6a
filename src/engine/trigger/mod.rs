//! `POST /v1/events/trigger`: turns one trigger into a notification per recipient and their jobs,
//! durably, before answering. Also the bulk trigger and the cancel by transactionId.
//!
//! A trigger is checked here without the database (the workflow comes from the in-process cache),
//! then stored by group commit with every trigger arriving at the same time ([`ingest`]).

pub(crate) mod expand;
pub(crate) mod fanout;
pub mod ingest;
pub mod keyed;
mod payload;
mod pipelined;
pub mod request;
pub(crate) mod store;
pub mod stream;

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use super::details::{insert_details, Detail, DetailStatus};
use super::digest_windows;
use super::jobs::Job;
use super::wake::Due;
use super::EngineContext;
use crate::db::schema::{jobs as jobs_table, notifications};
use crate::db::DbPool;
use crate::domain::tenancy::Tenant;
use crate::domain::workflows::{CachedWorkflow, StoredWorkflow};
use crate::error::{AppError, AppResult};
use crate::telemetry;
use crate::workflow::{JobKind, JobStatus, StepKind};
pub use request::{Recipient, SubscriberInput, TenantReference, TriggerRequest};

/// Most triggers in one bulk request.
pub const MAX_BULK_TRIGGERS: usize = 100;

/// Most direct recipients whose notifications and jobs a trigger's batch stores itself. A trigger naming
/// more is fanned out like a trigger to topics: its batch stores one fan-out row with its recipients,
/// and a worker stores their rows and runs their first in-app or delay steps in one page transaction
/// ([`crate::engine::fanouts`]). Its acknowledgment no longer waits for a thousand rows (a
/// 1,000-recipient trigger: 21 ms of one statement, which every trigger of its batch waited for), and
/// its notifications appear a moment after it, as a topic trigger's do. A batch of one-recipient
/// triggers holds about as many rows as this at full load, so a trigger at the limit no more than
/// doubles its batch.
pub const MOST_RECIPIENTS_STORED_AT_INGEST: usize = 100;

/// The trigger response `status` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerStatus {
    Error,
    TriggerNotActive,
    NoWorkflowActiveStepsDefined,
    NoWorkflowStepsDefined,
    Processed,
    NoTenantFound,
    InvalidRecipients,
}

/// The trigger's answer (a 201 whatever the status; `acknowledged` only for `processed`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerOutcome {
    pub status: TriggerStatus,
    pub errors: Vec<String>,
    pub transaction_id: String,
}

impl TriggerStatus {
    /// The status as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TriggerStatus::Error => "error",
            TriggerStatus::TriggerNotActive => "trigger_not_active",
            TriggerStatus::NoWorkflowActiveStepsDefined => "no_workflow_active_steps_defined",
            TriggerStatus::NoWorkflowStepsDefined => "no_workflow_steps_defined",
            TriggerStatus::Processed => "processed",
            TriggerStatus::NoTenantFound => "no_tenant_found",
            TriggerStatus::InvalidRecipients => "invalid_recipients",
        }
    }
}

impl TriggerOutcome {
    pub fn acknowledged(&self) -> bool {
        self.status == TriggerStatus::Processed
    }

    fn refused(status: TriggerStatus, transaction_id: String, error: impl Into<Option<String>>) -> Self {
        Self { status, errors: error.into().into_iter().collect(), transaction_id }
    }

    fn processed(transaction_id: String) -> Self {
        Self { status: TriggerStatus::Processed, errors: Vec::new(), transaction_id }
    }
}

/// A trigger that passed every check needing no database, ready to be stored by [`ingest::Ingest`].
#[derive(Debug)]
pub struct PreparedTrigger {
    tenant: Tenant,
    transaction_id: String,
    workflow: Arc<CachedWorkflow>,
    payload: Value,
    overrides: Value,
    /// One per subscriberId, in the order of `to`.
    recipients: Vec<SubscriberInput>,
    /// The distinct topics of `to`, expanded later by the engine's fan-out.
    topic_keys: Vec<String>,
    /// subscriberIds the topics must not reach.
    exclude: Vec<String>,
    actor: Option<SubscriberInput>,
    tenant_reference: Option<TenantReference>,
    /// `to` as sent (each notification keeps its recipient's entry).
    to: Vec<Recipient>,
    now: DateTime<Utc>,
    /// The W3C `traceparent` of the request's span, stored with the jobs (`None` when tracing is off).
    traceparent: Option<String>,
}

impl PreparedTrigger {
    /// Whether its direct recipients are fanned out rather than stored by its batch (see
    /// [`MOST_RECIPIENTS_STORED_AT_INGEST`]).
    fn fans_out_recipients(&self) -> bool {
        self.recipients.len() > MOST_RECIPIENTS_STORED_AT_INGEST
    }

    /// Rows it adds to a batch, in notifications: a trigger fanned out still writes its fan-out row.
    fn weight(&self) -> usize {
        if self.fans_out_recipients() {
            1
        } else {
            self.recipients.len().max(1)
        }
    }

    /// What storing it makes due: the jobs of the subscribers it names, or their fan-out, and the
    /// fan-out of its topics.
    fn makes_due(&self) -> impl Iterator<Item = Due> {
        let stores_jobs = !self.recipients.is_empty() && !self.fans_out_recipients();
        let jobs = stores_jobs.then_some(Due::Jobs);
        let fanouts = (!self.topic_keys.is_empty() || self.fans_out_recipients()).then_some(Due::Fanouts);
        jobs.into_iter().chain(fanouts)
    }
}

/// What the checks before storing decide: store it, or this answer.
enum Checked {
    Ready(Box<PreparedTrigger>),
    Refused(TriggerOutcome),
}

/// Runs one trigger. Field errors are a 422, an unknown workflow a 422 `workflow_not_found`, a payload
/// that fails the workflow's schema a 400; every other refusal is an outcome with its status. The
/// trigger is stored with the others arriving at the same time ([`ingest`]) and answered once committed.
pub async fn trigger_event(
    pool: &DbPool,
    engine: &EngineContext,
    tenant: Tenant,
    request: TriggerRequest,
) -> AppResult<TriggerOutcome> {
    if let Some(outcome) = keyed::stored_outcome() {
        return Ok(outcome);
    }
    let outcome = match check(pool, engine, tenant, request).await {
        Ok(Checked::Ready(trigger)) => engine.ingest.store(*trigger).await,
        Ok(Checked::Refused(outcome)) => Ok(outcome),
        Err(error) => Err(error),
    };
    if keyed::answered_by_key() {
        return outcome;
    }
    engine.metrics.trigger(match &outcome {
        Ok(outcome) => outcome.status.as_str(),
        Err(error) if error.http_status().is_client_error() => "rejected",
        Err(_) => "failed",
    });
    outcome
}

/// The checks that need no database (the workflow comes from the cache).
async fn check(pool: &DbPool, engine: &EngineContext, tenant: Tenant, request: TriggerRequest) -> AppResult<Checked> {
    request::validate(&request)?;
    let transaction_id = request.transaction_id.clone().unwrap_or_else(|| Uuid::now_v7().to_string());
    let workflow = match engine.workflows.find(pool, tenant, &request.name).await {
        Ok(workflow) => workflow,
        Err(AppError::NotFound(_)) => return Err(AppError::Unprocessable("workflow_not_found".into())),
        Err(other) => return Err(other),
    };
    if let Some(status) = refusal(&workflow.stored) {
        return Ok(Checked::Refused(TriggerOutcome::refused(status, transaction_id, None)));
    }
    let TriggerRequest { payload, overrides, to, actor, tenant: tenant_reference, exclude, .. } = request;
    let payload = match (&workflow.stored.workflow.payload_schema, workflow.stored.workflow.validate_payload) {
        (Some(schema), true) => payload::validate_payload(schema, payload)?,
        _ => payload,
    };
    let recipients = request::distinct_recipients(&to);
    let topic_keys = request::topic_keys(&to);
    if recipients.is_empty() && topic_keys.is_empty() {
        let error = "No valid recipient: `to` must name at least one subscriberId or topic".to_string();
        return Ok(Checked::Refused(TriggerOutcome::refused(TriggerStatus::InvalidRecipients, transaction_id, error)));
    }
    let actor = request::actor_input(&actor)?;
    let now = engine.clock.now();
    Ok(Checked::Ready(Box::new(PreparedTrigger {
        tenant,
        transaction_id,
        workflow,
        payload,
        overrides,
        recipients,
        topic_keys,
        exclude,
        actor,
        tenant_reference,
        to,
        now,
        traceparent: telemetry::current_traceparent(),
    })))
}

/// Why a workflow cannot run, if it cannot.
fn refusal(workflow: &StoredWorkflow) -> Option<TriggerStatus> {
    if !workflow.workflow.active {
        Some(TriggerStatus::TriggerNotActive)
    } else if workflow.steps.is_empty() {
        Some(TriggerStatus::NoWorkflowStepsDefined)
    } else if !workflow.steps.iter().any(|step| step.active) {
        Some(TriggerStatus::NoWorkflowActiveStepsDefined)
    } else {
        None
    }
}

/// Runs each trigger of a bulk request on its own: one's failure (even a 4xx) is its result and
/// does not undo the others. They are queued together, so they usually share a batch. Triggers that
/// give the same transactionId run one after another in the request's order, so the first of them that
/// is stored claims it: run together, the later one's checks could finish first (its workflow read
/// from the cache while the earlier one's was read from the database) and claim it instead.
pub async fn trigger_bulk(
    pool: &DbPool,
    engine: &EngineContext,
    tenant: Tenant,
    requests: Vec<TriggerRequest>,
) -> AppResult<Vec<AppResult<TriggerOutcome>>> {
    if requests.len() > MAX_BULK_TRIGGERS {
        return Err(AppError::invalid_field(
            "events",
            format!("a bulk trigger holds at most {MAX_BULK_TRIGGERS} events"),
            requests.len(),
        ));
    }
    let mut in_turn: Vec<Vec<(usize, TriggerRequest)>> = Vec::new();
    let mut turn_of: HashMap<String, usize> = HashMap::new();
    for (index, request) in requests.into_iter().enumerate() {
        let turn = match &request.transaction_id {
            Some(id) => *turn_of.entry(id.clone()).or_insert(in_turn.len()),
            None => in_turn.len(),
        };
        if turn == in_turn.len() {
            in_turn.push(Vec::new());
        }
        in_turn[turn].push((index, request));
    }
    let turns = in_turn.into_iter().map(|requests| async move {
        let mut outcomes = Vec::with_capacity(requests.len());
        for (index, request) in requests {
            outcomes.push((index, trigger_event(pool, engine, tenant, request).await));
        }
        outcomes
    });
    let mut outcomes: Vec<(usize, AppResult<TriggerOutcome>)> =
        futures_util::future::join_all(turns).await.into_iter().flatten().collect();
    outcomes.sort_by_key(|(index, _)| *index);
    Ok(outcomes.into_iter().map(|(_, outcome)| outcome).collect())
}

/// What a cancel request stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canceled {
    /// Jobs canceled.
    pub jobs: usize,
    /// Fan-outs (to topics, or to many direct recipients) stopped before their last page.
    pub fanouts: usize,
}

/// Cancels the jobs of `transaction_id` that have not run yet (pending, queued or delayed) and the
/// recipients its fan-outs have not reached yet. Jobs already running finish. An unknown transactionId
/// is a 404.
pub async fn cancel_transaction(
    conn: &mut AsyncPgConnection,
    engine: &EngineContext,
    tenant: Tenant,
    transaction_id: &str,
) -> AppResult<Canceled> {
    let now = engine.clock.now();
    conn.transaction::<_, AppError, _>(async |conn| {
        if !store::transaction_exists(conn, tenant.environment_id, transaction_id).await? {
            return Err(AppError::NotFound(format!("No trigger with transactionId {transaction_id}")));
        }
        // Its fan-outs not yet expanded to the end expand no further page: first, so that a page in
        // flight either commits before (its jobs are canceled below) or fails on the fan-out's status.
        let fanouts = store::stop_fanouts(conn, tenant.environment_id, transaction_id, now).await?;
        // Through the transaction's notifications: jobs have no index of their own by transactionId
        // (migration `leaner_hot_indexes`).
        let of_transaction = || {
            jobs_table::notification_id.eq_any(
                notifications::table
                    .filter(notifications::environment_id.eq(tenant.environment_id))
                    .filter(notifications::transaction_id.eq(transaction_id))
                    .select(notifications::id),
            )
        };
        let open_windows: Vec<Job> = jobs_table::table
            .filter(of_transaction())
            .filter(jobs_table::type_.eq(JobKind::Step(StepKind::Digest)))
            .filter(jobs_table::status.eq(JobStatus::Delayed))
            .select(Job::as_select())
            .load(conn)
            .await?;
        digest_windows::lock_windows_of(conn, &open_windows).await?;
        let canceled: Vec<Job> = diesel::update(jobs_table::table)
            .filter(of_transaction())
            .filter(jobs_table::status.eq_any([JobStatus::Pending, JobStatus::Queued, JobStatus::Delayed]))
            .set((jobs_table::status.eq(JobStatus::Canceled), jobs_table::updated_at.eq(now)))
            .returning(Job::as_returning())
            .get_results(conn)
            .await?;
        let mut details: Vec<_> = canceled
            .iter()
            .map(|job| {
                Detail::internal(job, DetailStatus::Warning, "Canceled by a cancel request for its transactionId")
            })
            .collect();
        let canceled_windows: Vec<Job> =
            canceled.iter().filter(|job| open_windows.iter().any(|window| window.id == job.id)).cloned().collect();
        details.extend(digest_windows::hand_over_windows(conn, &canceled_windows, now).await?);
        insert_details(conn, &details, now).await?;
        Ok(Canceled { jobs: canceled.len(), fanouts })
    })
    .await
}
