//! What running one job does. A step never writes to the database itself (except the delivery
//! record a provider call needs first, see `delivery`): it returns an [`Outcome`] that the worker
//! writes with the rest of its batch in one transaction.

mod channel;
mod content;
pub mod context;
mod custom;
mod delay;
mod delivery;
mod device_answers;
mod digest;
mod email_body;
mod in_app;
mod integration_choice;
pub mod message;
mod schedule;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::Value;
use uuid::Uuid;

use super::details::{Detail, DetailSource, DetailStatus};
use super::jobs::Job;
use super::render::RenderContext;
use super::runtime::WorkerShared;
use crate::domain::activity::triggered_text;
use crate::domain::preferences::{resolve_channel, PreferenceSource, WorkflowDefaults};
use crate::domain::subscribers::{DeadDestination, Subscriber};
use crate::domain::workflows::WorkflowRow;
use crate::workflow::filters::{step_passes, FilterContext};
use crate::workflow::{JobKind, JobStatus, StepKind, StepSnapshot};
use context::{subscriber_view, BatchContext, NotificationFacts};
use message::{MessageUpdate, NewMessage};

pub use delivery::CallStarts;
pub use digest::{key_value as digest_key_value, step_context, DigestArrival};

/// The outcome of a provider call attempt, for its `provider_deliveries` row.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryUpdate {
    pub delivery_id: Uuid,
    pub status: &'static str,
    pub provider_message_id: Option<String>,
    pub error: Option<String>,
    pub raw: Option<String>,
}

/// What running a job decided.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub job: Job,
    /// The job's new status (`queued` with `run_at` for a retry).
    pub status: JobStatus,
    pub run_at: Option<DateTime<Utc>>,
    pub provider_id: Option<String>,
    pub details: Vec<Detail>,
    pub new_message: Option<NewMessage>,
    pub message_update: Option<MessageUpdate>,
    pub delivery_update: Option<DeliveryUpdate>,
    /// What later steps (a custom step) see of this one.
    pub result: Option<Value>,
    pub error: Option<String>,
    /// Cancel the notification's remaining jobs (a failed step with `shouldStopOnFail`).
    pub stop_following: bool,
    /// The job's digest metadata (the API's `DigestMetadata` JSON).
    pub digest: Option<Value>,
    /// The digest step's key value (see `digest::key_value`).
    pub digest_key: Option<String>,
    /// A digest job that wants its key's open window: the worker merges it into that window, or opens
    /// one (see `worker::digest`).
    pub digest_arrival: Option<DigestArrival>,
    /// The open digest window a `merged` job went into.
    pub digested_into: Option<Uuid>,
    /// The job's new `scheduleExtensionsCount`.
    pub schedule_extensions: Option<i32>,
    /// The job's new attempt count (0 when it fails over to another integration, whose tries count
    /// afresh).
    pub attempts: Option<i32>,
    /// Device tokens and webhooks the provider said are gone, to remove from the subscriber.
    pub dead_destinations: Vec<DeadDestination>,
}

impl Outcome {
    fn new(job: &Job, status: JobStatus) -> Self {
        Self {
            job: job.clone(),
            status,
            run_at: None,
            provider_id: None,
            details: Vec::new(),
            new_message: None,
            message_update: None,
            delivery_update: None,
            result: None,
            error: None,
            stop_following: false,
            digest: None,
            digest_key: None,
            digest_arrival: None,
            digested_into: None,
            schedule_extensions: None,
            attempts: None,
            dead_destinations: Vec::new(),
        }
    }

    pub fn completed(job: &Job) -> Self {
        Self::new(job, JobStatus::Completed)
    }

    /// A failed step; the rest of the notification is canceled when the step says `shouldStopOnFail`
    /// (see [`run_job`]).
    pub fn failed(job: &Job, error: impl Into<String>) -> Self {
        let mut outcome = Self::new(job, JobStatus::Failed);
        outcome.error = Some(error.into());
        outcome
    }

    /// A failed step whose execution detail gives the reason.
    pub fn failed_because(job: &Job, source: DetailSource, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self::failed(job, reason.clone()).detail(Detail::new(job, DetailStatus::Failed, source, reason))
    }

    /// Runs the job again at `at`.
    pub fn retry(job: &Job, at: DateTime<Utc>, error: impl Into<String>) -> Self {
        let mut outcome = Self::new(job, JobStatus::Queued);
        outcome.run_at = Some(at);
        outcome.error = Some(error.into());
        outcome
    }

    pub fn detail(mut self, detail: Detail) -> Self {
        self.details.push(detail);
        self
    }

    /// Waits until `until` (a delay, a digest window) with `status` (`delayed` or `queued`).
    pub fn park(job: &Job, status: JobStatus, until: DateTime<Utc>) -> Self {
        let mut outcome = Self::new(job, status);
        outcome.run_at = Some(until);
        outcome
    }

    /// Whether the job is done (not going to run again).
    pub fn is_final(&self) -> bool {
        !self.status.will_run()
    }

    /// Whether the notification moves on to its next job: the job is done, did not stop the workflow,
    /// and was not merged into a digest (the digest's own notification carries the event on).
    pub fn advances(&self) -> bool {
        self.is_final() && !self.stop_following && self.status != JobStatus::Merged
    }

    /// The job as this outcome leaves it, for a job run before it was stored: what the update of a
    /// claimed job's row writes (`worker::commit`), applied to the job as it would have been stored.
    pub fn finished_job(&self, now: DateTime<Utc>) -> Job {
        let job = &self.job;
        Job {
            status: self.status,
            run_at: self.run_at.unwrap_or(job.run_at),
            provider_id: self.provider_id.clone().unwrap_or_else(|| job.provider_id.clone()),
            error: self.error.clone(),
            result: self.result.clone().or_else(|| job.result.clone()),
            digest: self.digest.clone().or_else(|| job.digest.clone()),
            digest_key: self.digest_key.clone().or_else(|| job.digest_key.clone()),
            digested_into_job_id: self.digested_into,
            schedule_extensions_count: self.schedule_extensions.unwrap_or(job.schedule_extensions_count),
            attempts: self.attempts.unwrap_or(job.attempts),
            lease_owner: None,
            updated_at: now,
            ..job.clone()
        }
    }
}

/// The value at a dotted `path` (`a.b.c`) in a payload; `None` when absent or null.
pub fn payload_value<'a>(payload: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(payload, |value, key| value.get(key)).filter(|value| !value.is_null())
}

/// One job with what its batch loaded.
pub struct StepInput<'a> {
    pub job: &'a Job,
    pub batch: &'a BatchContext,
    /// Where the batch's steps record their outbound calls before making them.
    pub calls: &'a CallStarts,
    pub now: DateTime<Utc>,
}

impl<'a> StepInput<'a> {
    /// The snapshot of the job's step. [`run_job`] runs a step only when its batch has it.
    fn step(&self) -> &'a StepSnapshot {
        &self.batch.steps[&self.job.step_snapshot_id]
    }

    /// The job's notification; `None` once it is gone (the retention sweep deletes its jobs with it).
    fn notification(&self) -> Option<&'a NotificationFacts> {
        self.batch.notifications.get(&self.job.notification_id)
    }

    /// The trigger's payload (`null` when the notification is gone).
    fn payload(&self) -> &'a Value {
        self.notification().map_or(&Value::Null, |n| &n.payload)
    }

    /// The trigger's overrides (`null` when the notification is gone).
    fn overrides(&self) -> &'a Value {
        self.notification().map_or(&Value::Null, |n| &n.overrides)
    }

    fn subscriber(&self) -> Option<&'a Subscriber> {
        self.batch.subscribers.get(&self.job.subscriber_id)
    }

    fn workflow(&self) -> Option<&'a WorkflowRow> {
        self.batch.workflows.get(&self.job.workflow_id)
    }

    /// Critical notifications skip preferences and the subscriber's schedule.
    fn critical(&self) -> bool {
        self.notification().is_some_and(|n| n.critical) || self.workflow().is_some_and(|workflow| workflow.critical)
    }

    /// The subscriber's timezone; UTC when they have none (or an unknown one).
    fn timezone(&self) -> Tz {
        self.subscriber().and_then(|s| s.timezone.as_deref()).and_then(|tz| tz.parse().ok()).unwrap_or(Tz::UTC)
    }

    /// The workflow identifier and actor every message of this job carries.
    fn message_origin(&self) -> (Option<String>, Option<Value>) {
        let actor = Some(self.actor_view()).filter(|actor| !actor.is_null());
        (self.workflow().map(|workflow| workflow.identifier.clone()), actor)
    }

    fn actor_view(&self) -> Value {
        self.notification()
            .and_then(|n| n.actor_subscriber_id)
            .and_then(|id| self.batch.subscribers.get(&id))
            .map_or(Value::Null, subscriber_view)
    }

    fn render_context(&self) -> RenderContext {
        let tenant = self
            .notification()
            .and_then(|n| n.tenant_id)
            .and_then(|id| self.batch.tenants.get(&id))
            .cloned()
            .unwrap_or(Value::Null);
        RenderContext {
            payload: self.payload().clone(),
            subscriber: self.subscriber().map_or(Value::Null, subscriber_view),
            actor: self.actor_view(),
            tenant,
            step: step_context(self.batch.digests.get(&self.job.notification_id), self.job.position),
        }
    }

    /// The step's filters: `Err(outcome)` when they exclude the subscriber (job skipped).
    fn check_filters(&self) -> Result<(), Box<Outcome>> {
        let job = self.job;
        // Most steps have none: then there is no subscriber to build for them.
        if self.step().filters.is_empty() {
            return Ok(());
        }
        let subscriber = self.subscriber().map_or(Value::Null, subscriber_view);
        let context = FilterContext { subscriber: &subscriber, payload: self.payload() };
        let outcome = step_passes(&self.step().filters, &context);
        if outcome.passed {
            return Ok(());
        }
        let detail = format!("Step skipped: its filters did not match ({})", outcome.reason);
        Err(Box::new(Outcome::new(job, JobStatus::Skipped).detail(Detail::new(
            job,
            DetailStatus::Success,
            DetailSource::Payload,
            detail,
        ))))
    }

    /// The subscriber's and the workflow's preferences for this channel: `Err(outcome)` when they
    /// turn it off (job canceled). Critical workflows are exempt.
    fn check_preferences(&self, channel: &str) -> Result<(), Box<Outcome>> {
        let job = self.job;
        let Some(workflow) = self.workflow() else { return Ok(()) };
        let critical = self.critical();
        let defaults = WorkflowDefaults::from_preferences(&workflow.preferences);
        let preferences =
            self.batch.preferences.get(&(job.subscriber_id, job.workflow_id)).cloned().unwrap_or_default();
        let decision = resolve_channel(channel, &defaults, &preferences.global, &preferences.per_workflow, critical);
        let all_off = !critical
            && self.batch.preferences.contains_key(&(job.subscriber_id, job.workflow_id))
            && !preferences.enabled;
        let cause = if all_off {
            Some("the subscriber turned off notifications".to_string())
        } else if !decision.enabled {
            Some(match decision.source {
                PreferenceSource::Subscriber => format!("the subscriber's preferences turn off {channel}"),
                PreferenceSource::Template => format!("the workflow's default preferences turn off {channel}"),
            })
        } else {
            None
        };
        match cause {
            None => Ok(()),
            Some(cause) => {
                let detail = format!("Step canceled: {cause}");
                Err(Box::new(Outcome::new(job, JobStatus::Canceled).detail(Detail::internal(
                    job,
                    DetailStatus::Warning,
                    detail,
                ))))
            }
        }
    }
}

/// Runs one claimed job; `previous_status` is the status it was claimed from (`running`: its previous
/// run did not finish; `delayed`: its delay is over). A failed step stops the rest of its notification
/// when its step says `shouldStopOnFail`, whatever failed it.
pub async fn run_job(shared: &WorkerShared, input: StepInput<'_>, previous_status: JobStatus) -> Outcome {
    let job = input.job;
    let Some(step) = input.batch.steps.get(&job.step_snapshot_id) else {
        let detail = format!("The snapshot of the job's step ({}) is missing", job.step_snapshot_id);
        return Outcome::failed_because(job, DetailSource::Internal, detail);
    };
    let mut outcome = run_step(shared, input, previous_status).await;
    outcome.stop_following |= outcome.status == JobStatus::Failed && step.should_stop_on_fail;
    outcome
}

async fn run_step(shared: &WorkerShared, input: StepInput<'_>, previous_status: JobStatus) -> Outcome {
    let job = input.job;
    let resumed = previous_status == JobStatus::Running;
    if job.attempts > job.max_attempts {
        let detail = format!("Gave up after {} attempts", job.max_attempts);
        return Outcome::failed_because(job, DetailSource::Internal, detail);
    }
    let mut outcome = match job.kind {
        JobKind::Trigger => run_trigger(&input),
        JobKind::Step(StepKind::InApp) => in_app::run(&input),
        JobKind::Step(StepKind::Email) => channel::run(shared, &input, channel::Channel::Email).await,
        JobKind::Step(StepKind::Sms) => channel::run(shared, &input, channel::Channel::Sms).await,
        JobKind::Step(StepKind::Chat) => channel::run(shared, &input, channel::Channel::Chat).await,
        JobKind::Step(StepKind::Push) => channel::run(shared, &input, channel::Channel::Push).await,
        JobKind::Step(StepKind::Custom) => custom::run(shared, &input).await,
        JobKind::Step(StepKind::Delay) => delay::run(&input),
        JobKind::Step(StepKind::Digest) => digest::run(&input),
    };
    if resumed {
        let note = Detail::internal(
            job,
            DetailStatus::Pending,
            "Step resumed: its previous run did not finish (the worker stopped or failed)",
        );
        outcome.details.insert(0, note);
    }
    outcome
}

/// A trigger job queued by a build that stored trigger jobs before writing them completed at ingest:
/// it only records the trigger. Trigger jobs are no longer stored (`domain::activity` renders them).
fn run_trigger(input: &StepInput<'_>) -> Outcome {
    let job = input.job;
    let workflow = input.workflow().map(|workflow| workflow.identifier.as_str());
    let subscriber = input.subscriber().map(|subscriber| subscriber.subscriber_id.as_str());
    Outcome::completed(job).detail(Detail::internal(job, DetailStatus::Success, triggered_text(workflow, subscriber)))
}
