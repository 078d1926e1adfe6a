//! `POST /v1/events/trigger`: turns one trigger into a notification per recipient and their jobs,
//! durably, before answering. Also the bulk trigger and the cancel by transactionId.

mod payload;
pub mod request;
mod store;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::{json, Value};
use uuid::Uuid;

use super::details::{insert_details, Detail, DetailStatus};
use super::digest_windows;
use super::jobs::{self, Job};
use super::steps::digest_key_value;
use super::EngineContext;
use crate::db::schema::{jobs as jobs_table, workflows};
use crate::domain::subscribers::upsert_credentials;
use crate::domain::tenancy::Tenant;
use crate::domain::workflows::{find_workflow, StoredWorkflow};
use crate::error::{AppError, AppResult};
use crate::workflow::controls::{read, DigestControls};
use crate::workflow::{JobKind, JobStatus, StepKind, StepSnapshot};
pub use request::{Recipient, SubscriberInput, TenantReference, TriggerRequest};
use store::NewNotification;

/// Most triggers in one bulk request.
pub const MAX_BULK_TRIGGERS: usize = 100;

/// The trigger response `status` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq)]
pub struct TriggerOutcome {
    pub status: TriggerStatus,
    pub errors: Vec<String>,
    pub transaction_id: String,
}

impl TriggerOutcome {
    pub fn acknowledged(&self) -> bool {
        self.status == TriggerStatus::Processed
    }

    fn refused(status: TriggerStatus, transaction_id: String, error: impl Into<Option<String>>) -> Self {
        Self { status, errors: error.into().into_iter().collect(), transaction_id }
    }
}

/// Runs one trigger. Field errors are a 422, an unknown workflow a 422 `workflow_not_found`, a payload
/// that fails the workflow's schema a 400; every other refusal is an outcome with its status.
pub async fn trigger_event(
    conn: &mut AsyncPgConnection,
    engine: &EngineContext,
    tenant: Tenant,
    request: TriggerRequest,
) -> AppResult<TriggerOutcome> {
    request::validate(&request)?;
    let transaction_id = request.transaction_id.clone().unwrap_or_else(|| Uuid::now_v7().to_string());
    let workflow = match find_workflow(conn, tenant, &request.name).await {
        Ok(workflow) => workflow,
        Err(AppError::NotFound(_)) => return Err(AppError::Unprocessable("workflow_not_found".into())),
        Err(other) => return Err(other),
    };
    if let Some(status) = refusal(&workflow) {
        return Ok(TriggerOutcome::refused(status, transaction_id, None));
    }
    let payload = match (&workflow.workflow.payload_schema, workflow.workflow.validate_payload) {
        (Some(schema), true) => payload::validate_payload(schema, request.payload.clone())?,
        _ => request.payload.clone(),
    };
    let recipients = request::distinct_recipients(&request.to);
    if recipients.is_empty() {
        let error = "No valid recipient: `to` must name at least one subscriberId".to_string();
        return Ok(TriggerOutcome::refused(TriggerStatus::InvalidRecipients, transaction_id, error));
    }
    let actor = request::actor_input(&request.actor)?;
    if let Some(TenantReference::Identifier(identifier)) = &request.tenant {
        if store::find_tenant(conn, tenant, identifier).await?.is_none() {
            let error = format!("Tenant with identifier {identifier} was not found");
            return Ok(TriggerOutcome::refused(TriggerStatus::NoTenantFound, transaction_id, error));
        }
    }

    let now = engine.clock.now();
    let plan = FanoutPlan { workflow: &workflow, payload, overrides: request.overrides.clone(), now };
    let stored = conn
        .transaction::<_, AppError, _>(async |conn| {
            if !store::claim_transaction_id(conn, tenant.environment_id, &transaction_id, now).await? {
                return Ok(false);
            }
            let tenant_id = match &request.tenant {
                Some(reference) => Some(store::upsert_tenant(conn, tenant, reference, now).await?),
                None => None,
            };
            let mut subscribers: Vec<SubscriberInput> = recipients.clone();
            subscribers.extend(actor.clone());
            let ids = store::upsert_subscribers(conn, tenant, &subscribers, now).await?;
            for input in subscribers.iter().filter(|input| !input.channels.is_empty()) {
                for update in &input.channels {
                    upsert_credentials(conn, tenant, &input.subscriber_id, update.clone()).await?;
                }
            }
            let actor_id = actor.as_ref().map(|actor| ids[&actor.subscriber_id]);
            let (notifications, jobs) =
                plan.rows(tenant, &transaction_id, &recipients, &ids, actor_id, tenant_id, &request.to);
            store::insert_fanout(conn, &notifications, &jobs).await?;
            Ok(true)
        })
        .await?;
    if !stored {
        let error = format!("transactionId {transaction_id} was already used in this environment");
        return Ok(TriggerOutcome::refused(TriggerStatus::Error, transaction_id, error));
    }
    engine.wakeup.wake();
    record_last_triggered(conn, workflow.workflow.id, now).await?;
    Ok(TriggerOutcome { status: TriggerStatus::Processed, errors: Vec::new(), transaction_id })
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

/// `lastTriggeredAt`, written at most once a second per workflow and outside the trigger's
/// transaction, so concurrent triggers of one workflow never queue on its row.
async fn record_last_triggered(conn: &mut AsyncPgConnection, workflow_id: Uuid, now: DateTime<Utc>) -> AppResult<()> {
    diesel::update(workflows::table)
        .filter(workflows::id.eq(workflow_id))
        .filter(
            workflows::last_triggered_at
                .is_null()
                .or(workflows::last_triggered_at.lt(now - chrono::TimeDelta::seconds(1))),
        )
        .set(workflows::last_triggered_at.eq(now))
        .execute(conn)
        .await?;
    Ok(())
}

/// What every notification of one trigger shares.
struct FanoutPlan<'a> {
    workflow: &'a StoredWorkflow,
    payload: Value,
    overrides: Value,
    now: DateTime<Utc>,
}

impl FanoutPlan<'_> {
    /// A notification per recipient, each with its trigger job (due now) and a job per active step
    /// (waiting for the one before).
    #[allow(clippy::too_many_arguments)]
    fn rows(
        &self,
        tenant: Tenant,
        transaction_id: &str,
        recipients: &[SubscriberInput],
        ids: &std::collections::HashMap<String, Uuid>,
        actor_id: Option<Uuid>,
        tenant_id: Option<Uuid>,
        to: &[Recipient],
    ) -> (Vec<NewNotification>, Vec<Job>) {
        let workflow = &self.workflow.workflow;
        let steps: Vec<_> = self.workflow.steps.iter().filter(|step| step.active).collect();
        let mut channels = vec![JobKind::Trigger.as_str().to_string()];
        for step in &steps {
            if !channels.iter().any(|channel| channel == step.kind.as_str()) {
                channels.push(step.kind.as_str().to_string());
            }
        }
        let mut notifications = Vec::with_capacity(recipients.len());
        let mut jobs = Vec::with_capacity(recipients.len() * (steps.len() + 1));
        for recipient in recipients {
            let notification_id = Uuid::now_v7();
            let subscriber_id = ids[&recipient.subscriber_id];
            notifications.push(NewNotification {
                id: notification_id,
                environment_id: tenant.environment_id,
                organization_id: tenant.organization_id,
                workflow_id: workflow.id,
                subscriber_id,
                transaction_id: transaction_id.to_string(),
                payload: self.payload.clone(),
                overrides: self.overrides.clone(),
                actor_subscriber_id: actor_id,
                tenant_id,
                tags: workflow.tags.clone(),
                to_recipient: recipient_as_sent(to, &recipient.subscriber_id),
                channels: channels.clone(),
                severity: workflow.severity.clone(),
                critical: workflow.critical,
                created_at: self.now,
                updated_at: self.now,
            });
            let job = |position: usize, kind: JobKind, step_id: Option<Uuid>, step: StepSnapshot| Job {
                id: Uuid::now_v7(),
                environment_id: tenant.environment_id,
                organization_id: tenant.organization_id,
                notification_id,
                subscriber_id,
                workflow_id: workflow.id,
                step_id,
                kind,
                position: position as i32,
                status: if position == 0 { JobStatus::Queued } else { JobStatus::Pending },
                run_at: if position == 0 { self.now } else { jobs::waiting_run_at() },
                lease_owner: None,
                attempts: 0,
                max_attempts: crate::providers::DEFAULT_MAX_ATTEMPTS as i32,
                provider_id: jobs::INTERNAL_PROVIDER.to_string(),
                payload: self.payload.clone(),
                overrides: self.overrides.clone(),
                step,
                digest: None,
                digest_key: None,
                digested_into_job_id: None,
                schedule_extensions_count: 0,
                transaction_id: transaction_id.to_string(),
                error: None,
                created_at: self.now,
                updated_at: self.now,
                result: None,
            };
            jobs.push(job(0, JobKind::Trigger, None, StepSnapshot::trigger(workflow.id)));
            for (index, step) in steps.iter().enumerate() {
                let mut step_job = job(index + 1, JobKind::Step(step.kind), Some(step.id), StepSnapshot::from(*step));
                // Known now, so a backoff digest sees every event of its key triggered before it.
                if step.kind == StepKind::Digest {
                    let controls: DigestControls = read(&step.control_values);
                    step_job.digest_key = Some(digest_key_value(&controls, &self.payload));
                }
                jobs.push(step_job);
            }
        }
        (notifications, jobs)
    }
}

/// The `to` entry of a recipient as the client sent it (the activity API's `to`).
fn recipient_as_sent(to: &[Recipient], subscriber_id: &str) -> Value {
    let sent = to.iter().rev().find_map(|recipient| match recipient {
        Recipient::Subscriber(input) if input.subscriber_id == subscriber_id => Some(json!(input)),
        _ => None,
    });
    sent.unwrap_or_else(|| json!({ "subscriberId": subscriber_id }))
}

/// Runs each trigger of a bulk request on its own: one's failure (even a 4xx) is its result and
/// does not undo the others.
pub async fn trigger_bulk(
    conn: &mut AsyncPgConnection,
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
    let mut outcomes = Vec::with_capacity(requests.len());
    for request in requests {
        outcomes.push(trigger_event(conn, engine, tenant, request).await);
    }
    Ok(outcomes)
}

/// Cancels the jobs of `transaction_id` that have not run yet (pending, queued or delayed); returns
/// how many. Jobs already running finish. An unknown transactionId is a 404.
pub async fn cancel_transaction(
    conn: &mut AsyncPgConnection,
    engine: &EngineContext,
    tenant: Tenant,
    transaction_id: &str,
) -> AppResult<usize> {
    let now = engine.clock.now();
    conn.transaction::<_, AppError, _>(async |conn| {
        if !store::transaction_exists(conn, tenant.environment_id, transaction_id).await? {
            return Err(AppError::NotFound(format!("No trigger with transactionId {transaction_id}")));
        }
        let of_transaction =
            || jobs_table::environment_id.eq(tenant.environment_id).and(jobs_table::transaction_id.eq(transaction_id));
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
        Ok(canceled.len())
    })
    .await
}
