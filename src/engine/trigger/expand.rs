//! The notifications and jobs of many recipients of a few triggers, built by the
//! database from each trigger's [`EventTemplate`]. A recipient's own values travel once per row (its
//! ids, its subscriber, its `to`); what every recipient of a trigger shares (payload, overrides, step
//! snapshot ids, tags…) travels once per trigger, and each row reads it by subscript,
//! `(shared array)[row's template]`. Bound on every row, the shared values were cloned and serialized
//! per row by Herald and parsed per row by PostgreSQL: a third of the time of storing a 1,000-recipient
//! trigger (92 ms before, 63 after) and half of a topic page's (docs/performance.md).
//!
//! A subscript walks a variable-length array from its start, so a row's read costs its template's
//! index: nothing for a fan-out page or a wide trigger (one template), a few microseconds for a batch
//! of single-recipient triggers (one template each, at most a batch's 2,000). The step snapshots
//! themselves travel once per statement, each distinct one once, into `step_snapshots`. The snapshots,
//! the notifications and their jobs are one statement: a trigger batch or a topic page stores them in
//! one round trip.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment};
use diesel::sql_types::{Array, Bool, Int4, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;
use uuid::Uuid;

use super::fanout::EventTemplate;
use crate::db::unnest::{bind_arrays, push_subscripted, static_query_id, TextLists};
use crate::engine::jobs::{self, Job};
use crate::error::AppResult;
use crate::workflow::{JobKind, JobStatus, StepSnapshot, INTERNAL_PROVIDER};

/// Tries of a step before it fails.
const MAX_ATTEMPTS: i32 = crate::providers::DEFAULT_MAX_ATTEMPTS as i32;
/// The position of a notification's first step; position 0 is its trigger job, which is not stored
/// (`domain::activity` renders it from the notification).
const FIRST_STEP_POSITION: i32 = 1;

/// Recipients of one or more triggers, each after its trigger's template.
pub struct Recipients<'a> {
    templates: Vec<&'a EventTemplate>,
    recipients: Vec<Recipient>,
}

struct Recipient {
    /// Its template's index, from 1 like SQL arrays'.
    template: i32,
    notification_id: Uuid,
    subscriber_id: Uuid,
    /// The `to` entry as the client sent it (the activity API's `to`).
    to_recipient: Value,
}

impl<'a> Recipients<'a> {
    pub fn with_capacity(recipients: usize) -> Self {
        Self { templates: Vec::new(), recipients: Vec::with_capacity(recipients) }
    }

    /// Starts the recipients of `template`'s trigger: those pushed next.
    pub fn start(&mut self, template: &'a EventTemplate) {
        self.templates.push(template);
    }

    /// A recipient of the trigger started last: its subscriber's internal id and its `to`.
    pub fn push(&mut self, subscriber_id: Uuid, to_recipient: Value) {
        let template = i32::try_from(self.templates.len()).expect("a batch holds far fewer than 2^31 triggers");
        assert!(template > 0, "a recipient is pushed after its trigger's template");
        self.recipients.push(Recipient { template, notification_id: Uuid::now_v7(), subscriber_id, to_recipient });
    }

    /// Inserts the notifications of a trigger batch and their jobs, in one statement. The batch's
    /// transaction claimed every transactionId of its triggers, so none of these notifications can
    /// exist already: one that did would fail the statement (a unique violation), never be skipped.
    pub async fn insert(&self, conn: &AsyncPgConnection) -> AppResult<()> {
        self.store(conn, FirstSteps::Stored, Existing::Impossible).await?;
        Ok(())
    }

    /// Inserts the notification of each recipient whose trigger (environment, transactionId) has none
    /// for its subscriber yet (a topic member also named directly, a page expanded again after a crash),
    /// and the jobs of each notification inserted, except the first job of each when its step runs in
    /// the database (in-app, delay: `JobKind::runs_in_database`): those are returned, as they would
    /// have been stored, for the caller to run in this transaction and insert finished
    /// (`worker::run_in_database`, `JobsAre::New`). Returns how many notifications were inserted.
    pub async fn insert_holding_first_steps(&self, conn: &mut AsyncPgConnection) -> AppResult<(usize, Vec<Job>)> {
        let inserted: HashSet<Uuid> =
            self.store(conn, FirstSteps::HeldWhenInDatabase, Existing::Skipped).await?.into_iter().collect();
        let held = self
            .recipients
            .iter()
            .filter(|recipient| inserted.contains(&recipient.notification_id))
            .filter_map(|recipient| self.held_first_job(recipient))
            .collect();
        Ok((inserted.len(), held))
    }

    /// The notifications and jobs in one statement; returns the ids of the notifications inserted.
    async fn store(
        &self,
        mut conn: &AsyncPgConnection,
        first_steps: FirstSteps,
        existing: Existing,
    ) -> AppResult<Vec<Uuid>> {
        if self.recipients.is_empty() {
            return Ok(Vec::new());
        }
        let rows = RecipientRows {
            notifications: NotificationRows::of(&self.templates, &self.recipients),
            jobs: JobRows::of(&self.templates, &self.recipients, first_steps),
        };
        Ok(match existing {
            Existing::Skipped => rows.load::<Uuid>(&mut conn).await?,
            Existing::Impossible => NewRecipientRows(rows).load::<Uuid>(&mut conn).await?,
        })
    }

    /// The job of `recipient`'s first step as the insert stores it (due at the trigger's acceptance),
    /// when that step runs in the database.
    fn held_first_job(&self, recipient: &Recipient) -> Option<Job> {
        let template = self.templates[recipient.template as usize - 1];
        let kind = first_step_in_database(template)?;
        let step = &template.jobs[0];
        Some(Job {
            id: Uuid::now_v7(),
            environment_id: template.environment_id,
            organization_id: template.organization_id,
            notification_id: recipient.notification_id,
            subscriber_id: recipient.subscriber_id,
            workflow_id: template.workflow_id,
            step_id: step.step_id,
            kind,
            position: FIRST_STEP_POSITION,
            status: JobStatus::Queued,
            run_at: template.accepted_at,
            lease_owner: None,
            attempts: 0,
            max_attempts: MAX_ATTEMPTS,
            provider_id: INTERNAL_PROVIDER.to_string(),
            digest: None,
            digest_key: step.digest_key.clone(),
            digested_into_job_id: None,
            schedule_extensions_count: 0,
            transaction_id: template.transaction_id.clone(),
            error: None,
            created_at: template.accepted_at,
            updated_at: template.accepted_at,
            result: None,
            traceparent: template.traceparent.clone(),
            step_snapshot_id: step.step.id,
        })
    }
}

/// Whether the statement stores every job, or leaves out the first steps that run in the database.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FirstSteps {
    Stored,
    HeldWhenInDatabase,
}

/// The kind of `template`'s first step when it runs in the database.
fn first_step_in_database(template: &EventTemplate) -> Option<JobKind> {
    let kind: JobKind = template.jobs.as_slice().first()?.kind.parse().ok()?;
    kind.runs_in_database().then_some(kind)
}

/// Whether a recipient's notification may already exist, and is then skipped with its jobs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Existing {
    Skipped,
    Impossible,
}

/// The notifications and their jobs, one statement (one round trip of the batch's transaction fewer
/// than a statement each): the jobs are inserted for the notifications the statement inserted, which
/// it returns. A notification that exists already is skipped.
struct RecipientRows<'a> {
    notifications: NotificationRows<'a>,
    jobs: JobRows<'a>,
}

static_query_id!(RecipientRows, SqlUuid);

impl RecipientRows<'_> {
    fn push_statement<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>, existing: Existing) -> QueryResult<()> {
        out.push_sql("WITH ");
        self.jobs.push_snapshots(out)?;
        out.push_sql(", notified AS (");
        self.notifications.push_insert(out)?;
        if existing == Existing::Skipped {
            out.push_sql(" ON CONFLICT (environment_id, transaction_id, subscriber_id) DO NOTHING");
        }
        out.push_sql(" RETURNING id), stored_jobs AS (");
        self.jobs.push_insert(out)?;
        if existing == Existing::Skipped {
            out.push_sql(" WHERE r.notification_id IN (SELECT id FROM notified)");
        }
        out.push_sql(") SELECT id FROM notified");
        Ok(())
    }
}

impl QueryFragment<Pg> for RecipientRows<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.push_statement(&mut out, Existing::Skipped)
    }
}

/// [`RecipientRows`] none of which can exist already (a type of its own, as its text differs: diesel
/// caches a prepared statement by type): the insert has no conflict clause, and every job is inserted.
/// PostgreSQL inserts a row under a conflict clause speculatively (a probe of the unique index first, a
/// lock, one more WAL record to confirm the row): 5% of its CPU samples a one-recipient trigger
/// (`perf`, docs/performance.md).
struct NewRecipientRows<'a>(RecipientRows<'a>);

static_query_id!(NewRecipientRows, SqlUuid);

impl QueryFragment<Pg> for NewRecipientRows<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.push_statement(&mut out, Existing::Impossible)
    }
}

/// What both a notification and its jobs copy from the template, in the order of [`Shared::COLUMNS`].
struct Shared<'a> {
    environment_id: Vec<Uuid>,
    organization_id: Vec<Uuid>,
    workflow_id: Vec<Uuid>,
    transaction_id: Vec<&'a str>,
    accepted_at: Vec<DateTime<Utc>>,
}

impl<'a> Shared<'a> {
    const COLUMNS: &'static str =
        "environment_id, organization_id, workflow_id, transaction_id, created_at, updated_at";

    fn of(templates: &[&'a EventTemplate]) -> Self {
        Self {
            environment_id: templates.iter().map(|template| template.environment_id).collect(),
            organization_id: templates.iter().map(|template| template.organization_id).collect(),
            workflow_id: templates.iter().map(|template| template.workflow_id).collect(),
            transaction_id: templates.iter().map(|template| template.transaction_id.as_str()).collect(),
            accepted_at: templates.iter().map(|template| template.accepted_at).collect(),
        }
    }

    /// The values of [`Self::COLUMNS`] for the row's template `at`.
    fn push_values<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>, at: &str) -> QueryResult<()> {
        push_subscripted::<Array<SqlUuid>, _>(out, &self.environment_id, at)?;
        out.push_sql(", ");
        push_subscripted::<Array<SqlUuid>, _>(out, &self.organization_id, at)?;
        out.push_sql(", ");
        push_subscripted::<Array<SqlUuid>, _>(out, &self.workflow_id, at)?;
        out.push_sql(", ");
        push_subscripted::<Array<Text>, _>(out, &self.transaction_id, at)?;
        out.push_sql(", ");
        push_subscripted::<Array<Timestamptz>, _>(out, &self.accepted_at, at)?;
        out.push_sql(", ");
        push_subscripted::<Array<Timestamptz>, _>(out, &self.accepted_at, at)
    }
}

/// The notifications: per row its ids and `to`, per template the rest.
struct NotificationRows<'a> {
    id: Vec<Uuid>,
    template: Vec<i32>,
    subscriber_id: Vec<Uuid>,
    to_recipient: Vec<&'a Value>,
    shared: Shared<'a>,
    payload: Vec<&'a Value>,
    overrides: Vec<&'a Value>,
    actor_subscriber_id: Vec<Option<Uuid>>,
    tenant_id: Vec<Option<Uuid>>,
    tags: TextLists<'a>,
    channels: TextLists<'a>,
    severity: Vec<&'a str>,
    critical: Vec<bool>,
}

impl<'a> NotificationRows<'a> {
    fn of(templates: &[&'a EventTemplate], recipients: &'a [Recipient]) -> Self {
        Self {
            id: recipients.iter().map(|recipient| recipient.notification_id).collect(),
            template: recipients.iter().map(|recipient| recipient.template).collect(),
            subscriber_id: recipients.iter().map(|recipient| recipient.subscriber_id).collect(),
            to_recipient: recipients.iter().map(|recipient| &recipient.to_recipient).collect(),
            shared: Shared::of(templates),
            payload: templates.iter().map(|template| &template.payload).collect(),
            overrides: templates.iter().map(|template| &template.overrides).collect(),
            actor_subscriber_id: templates.iter().map(|template| template.actor_subscriber_id).collect(),
            tenant_id: templates.iter().map(|template| template.tenant_id).collect(),
            tags: TextLists::of(templates.iter().map(|template| template.tags.as_slice())),
            channels: TextLists::of(templates.iter().map(|template| template.channels.as_slice())),
            severity: templates.iter().map(|template| template.severity.as_str()).collect(),
            critical: templates.iter().map(|template| template.critical).collect(),
        }
    }
}

impl NotificationRows<'_> {
    /// `INSERT … SELECT … FROM unnest(…) AS r(…)` of the notifications, to which the caller adds its
    /// conflict clause and `RETURNING`.
    fn push_insert<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        const AT: &str = "r.template";
        out.push_sql("INSERT INTO notifications (id, subscriber_id, to_recipient, ");
        out.push_sql(Shared::COLUMNS);
        out.push_sql(
            ", payload, overrides, actor_subscriber_id, tenant_id, tags, channels, severity, critical) \
             SELECT r.id, r.subscriber_id, r.to_recipient, ",
        );
        self.shared.push_values(out, AT)?;
        out.push_sql(", ");
        push_subscripted::<Array<Jsonb>, _>(out, &self.payload, AT)?;
        out.push_sql(", ");
        push_subscripted::<Array<Jsonb>, _>(out, &self.overrides, AT)?;
        out.push_sql(", ");
        push_subscripted::<Array<Nullable<SqlUuid>>, _>(out, &self.actor_subscriber_id, AT)?;
        out.push_sql(", ");
        push_subscripted::<Array<Nullable<SqlUuid>>, _>(out, &self.tenant_id, AT)?;
        out.push_sql(", ");
        self.tags.push_list(out, AT)?;
        out.push_sql(", ");
        self.channels.push_list(out, AT)?;
        out.push_sql(", ");
        push_subscripted::<Array<Text>, _>(out, &self.severity, AT)?;
        out.push_sql(", ");
        push_subscripted::<Array<Bool>, _>(out, &self.critical, AT)?;
        out.push_sql(" FROM unnest(");
        bind_arrays!(out;
            SqlUuid: self.id, Int4: self.template, SqlUuid: self.subscriber_id, Jsonb: self.to_recipient,
        );
        out.push_sql(") AS r(id, template, subscriber_id, to_recipient)");
        Ok(())
    }
}

/// The jobs: per row its ids and position, per template job its step (kind, ids, snapshot id), per
/// template the rest (a job reads the trigger's payload and overrides from its notification). The first
/// step (position 1: the trigger job, position 0, is not stored) is due at once; the later steps wait
/// for the one before.
struct JobRows<'a> {
    id: Vec<Uuid>,
    notification_id: Vec<Uuid>,
    subscriber_id: Vec<Uuid>,
    template: Vec<i32>,
    /// Index (from 1) into the templates' jobs, all templates' in a row.
    template_job: Vec<i32>,
    position: Vec<i32>,
    shared: Shared<'a>,
    traceparent: Vec<Option<&'a str>>,
    kind: Vec<&'a str>,
    step_id: Vec<Option<Uuid>>,
    step_snapshot_id: Vec<Uuid>,
    digest_key: Vec<Option<&'a str>>,
    waiting_run_at: DateTime<Utc>,
    /// The distinct snapshots of the templates' jobs, by id in ascending order (so that batches
    /// storing the same new snapshots wait for each other in one order, never in a cycle).
    snapshots: (Vec<Uuid>, Vec<&'a StepSnapshot>),
}

impl<'a> JobRows<'a> {
    fn of(templates: &[&'a EventTemplate], recipients: &[Recipient], first_steps: FirstSteps) -> Self {
        // Where each template's jobs start in the flattened list, from 1.
        let mut first_job = Vec::with_capacity(templates.len());
        let mut next = 1;
        for template in templates {
            first_job.push(next);
            next += template.jobs.len() as i32;
        }
        let jobs_each = templates.iter().map(|template| template.jobs.len()).max().unwrap_or(0);
        let mut rows = Self {
            id: Vec::with_capacity(recipients.len() * jobs_each),
            notification_id: Vec::with_capacity(recipients.len() * jobs_each),
            subscriber_id: Vec::with_capacity(recipients.len() * jobs_each),
            template: Vec::with_capacity(recipients.len() * jobs_each),
            template_job: Vec::with_capacity(recipients.len() * jobs_each),
            position: Vec::with_capacity(recipients.len() * jobs_each),
            shared: Shared::of(templates),
            traceparent: templates.iter().map(|template| template.traceparent.as_deref()).collect(),
            kind: templates.iter().flat_map(|template| &template.jobs).map(|job| job.kind.as_str()).collect(),
            step_id: templates.iter().flat_map(|template| &template.jobs).map(|job| job.step_id).collect(),
            step_snapshot_id: templates.iter().flat_map(|template| &template.jobs).map(|job| job.step.id).collect(),
            digest_key: templates
                .iter()
                .flat_map(|template| &template.jobs)
                .map(|job| job.digest_key.as_deref())
                .collect(),
            waiting_run_at: jobs::waiting_run_at(),
            snapshots: distinct_snapshots(templates),
        };
        for recipient in recipients {
            let index = recipient.template as usize - 1;
            let held =
                first_steps == FirstSteps::HeldWhenInDatabase && first_step_in_database(templates[index]).is_some();
            for job in i32::from(held)..templates[index].jobs.len() as i32 {
                rows.id.push(Uuid::now_v7());
                rows.notification_id.push(recipient.notification_id);
                rows.subscriber_id.push(recipient.subscriber_id);
                rows.template.push(recipient.template);
                rows.template_job.push(first_job[index] + job);
                rows.position.push(FIRST_STEP_POSITION + job);
            }
        }
        rows
    }
}

/// The snapshots of `templates`' jobs, each once, ordered by id.
fn distinct_snapshots<'a>(templates: &[&'a EventTemplate]) -> (Vec<Uuid>, Vec<&'a StepSnapshot>) {
    let by_id: BTreeMap<Uuid, &StepSnapshot> =
        templates.iter().flat_map(|template| &template.jobs).map(|job| (job.step.id, &*job.step.step)).collect();
    by_id.into_iter().unzip()
}

impl JobRows<'_> {
    /// The snapshots, as a statement's `snapshots` CTE: a row that is already there is left alone.
    fn push_snapshots<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("snapshots AS (INSERT INTO step_snapshots (id, step) SELECT * FROM unnest(");
        bind_arrays!(out; SqlUuid: self.snapshots.0, Jsonb: self.snapshots.1);
        out.push_sql(") ON CONFLICT (id) DO NOTHING)");
        Ok(())
    }

    /// `INSERT … SELECT … FROM unnest(…) AS r(…)` of the jobs, to which the caller adds which rows.
    fn push_insert<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        const AT: &str = "r.template";
        const STEP: &str = "r.template_job";
        out.push_sql("INSERT INTO jobs (id, notification_id, subscriber_id, position, ");
        out.push_sql(Shared::COLUMNS);
        out.push_sql(
            ", status, run_at, attempts, max_attempts, provider_id, schedule_extensions_count, traceparent, type, \
             step_id, step_snapshot_id, digest_key) SELECT r.id, r.notification_id, r.subscriber_id, r.position, ",
        );
        self.shared.push_values(out, AT)?;
        out.push_sql(", CASE r.position WHEN ");
        out.push_bind_param::<Int4, _>(&FIRST_STEP_POSITION)?;
        out.push_sql(" THEN ");
        out.push_bind_param::<Text, _>(JobStatus::Queued.as_str())?;
        out.push_sql(" ELSE ");
        out.push_bind_param::<Text, _>(JobStatus::Pending.as_str())?;
        out.push_sql(" END, CASE r.position WHEN ");
        out.push_bind_param::<Int4, _>(&FIRST_STEP_POSITION)?;
        out.push_sql(" THEN ");
        push_subscripted::<Array<Timestamptz>, _>(out, &self.shared.accepted_at, AT)?;
        out.push_sql(" ELSE ");
        out.push_bind_param::<Timestamptz, _>(&self.waiting_run_at)?;
        out.push_sql(" END, 0, ");
        out.push_bind_param::<Int4, _>(&MAX_ATTEMPTS)?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(INTERNAL_PROVIDER)?;
        out.push_sql(", 0, ");
        push_subscripted::<Array<Nullable<Text>>, _>(out, &self.traceparent, AT)?;
        out.push_sql(", ");
        push_subscripted::<Array<Text>, _>(out, &self.kind, STEP)?;
        out.push_sql(", ");
        push_subscripted::<Array<Nullable<SqlUuid>>, _>(out, &self.step_id, STEP)?;
        out.push_sql(", ");
        push_subscripted::<Array<SqlUuid>, _>(out, &self.step_snapshot_id, STEP)?;
        out.push_sql(", ");
        push_subscripted::<Array<Nullable<Text>>, _>(out, &self.digest_key, STEP)?;
        out.push_sql(" FROM unnest(");
        bind_arrays!(out;
            SqlUuid: self.id, SqlUuid: self.notification_id, SqlUuid: self.subscriber_id, Int4: self.template,
            Int4: self.template_job, Int4: self.position,
        );
        out.push_sql(") AS r(id, notification_id, subscriber_id, template, template_job, position)");
        Ok(())
    }
}
