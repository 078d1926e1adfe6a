//! Business rules of workflows (v2): definitions with their steps, control validation, issues and
//! status. The template form embedded in messages and events is a gRPC conversion
//! (`grpc::template_convert`).
//!
//! Decisions where the spec is silent: a PUT replaces the whole definition (absent optional fields
//! take their create defaults); `lastPublishedAt` moves on every save (a v2 save publishes); there
//! are no user accounts, so `updatedBy`/`lastPublishedBy` are absent and `deletedBy` is the caller's
//! environment id; a workflow is `critical` when its default preferences are `all.readOnly`.

mod cache;
pub mod controls;
pub mod issues;
mod steps;
mod store;
mod validate;
pub mod variables;

pub use cache::{CachedWorkflow, WorkflowCache};
pub use store::{
    delete_workflow, find_row, find_workflow, list_workflows, workflows_by_ids, WorkflowPage, WorkflowQuery,
};
pub use validate::is_valid_identifier;

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection};
use serde_json::{json, Value};
use uuid::Uuid;

use super::integrations::{active_channels, providers::CHANNELS};
use super::tenancy::Tenant;
use crate::db::schema::{workflow_steps, workflows};
use crate::error::{AppError, AppResult};
use crate::workflow::{JobKind, StepControls, StepFilters, StepKind, StepMetadata, StepSnapshot};

/// At most this many steps per workflow.
pub const MAX_STEPS: usize = 20;
/// Where a workflow was made: the dashboard (`svc-cloud`), the v1 API, or code (`external`).
pub const ORIGINS: [&str; 3] = ["svc-cloud", "svc-cloud-v1", "external"];
pub const SEVERITIES: [&str; 4] = ["high", "medium", "low", "none"];

/// A workflow row as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = workflows, treat_none_as_null = true)]
pub struct WorkflowRow {
    pub id: Uuid,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub identifier: String,
    pub name: String,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub active: bool,
    pub validate_payload: bool,
    pub payload_schema: Option<Value>,
    pub is_translation_enabled: bool,
    pub critical: bool,
    /// `{"user": level or null, "default": level}`; a level is `{"all": {enabled, readOnly}, "channels": {…}}`.
    pub preferences: Value,
    pub origin: String,
    pub severity: String,
    pub status: String,
    pub issues: Value,
    pub last_triggered_at: Option<DateTime<Utc>>,
    pub last_published_at: Option<DateTime<Utc>>,
    pub deleted: bool,
    pub deleted_at: Option<DateTime<Utc>>,
    pub deleted_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A step row as stored. The engine reads `control_values` (validated against the kind's schema).
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable)]
#[diesel(table_name = workflow_steps)]
pub struct StepRow {
    pub id: Uuid,
    pub workflow_id: Uuid,
    pub environment_id: Uuid,
    pub position: i32,
    pub step_id: String,
    pub name: String,
    #[diesel(column_name = type_)]
    pub kind: StepKind,
    pub control_values: Value,
    pub filters: StepFilters,
    pub should_stop_on_fail: bool,
    pub active: bool,
    pub issues: Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&StepRow> for StepSnapshot {
    /// The snapshot a job of this step runs with.
    fn from(step: &StepRow) -> Self {
        Self {
            id: step.id,
            template_id: step.id,
            parent_id: None,
            active: step.active,
            name: step.name.clone(),
            step_id: Some(step.step_id.clone()),
            kind: JobKind::Step(step.kind),
            filters: step.filters.0.clone(),
            control_variables: Some(step.control_values.clone()),
            metadata: StepMetadata::of(&StepControls::read(step.kind, &step.control_values)),
            issues: Some(step.issues.clone()),
            should_stop_on_fail: step.should_stop_on_fail,
        }
    }
}

/// A workflow with its steps in order; issues and status as of the last computation.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredWorkflow {
    pub workflow: WorkflowRow,
    pub steps: Vec<StepRow>,
}

/// `<identifier>_wf_<id>`.
pub fn workflow_slug(workflow: &WorkflowRow) -> String {
    slug_of(&workflow.identifier, workflow.id)
}

/// The slug of the workflow `identifier` with internal id `id`: `<identifier>_wf_<id>`.
pub fn slug_of(identifier: &str, id: Uuid) -> String {
    format!("{identifier}_wf_{id}")
}

/// `<stepId>_st_<id>`.
pub fn step_slug(step: &StepRow) -> String {
    format!("{}_st_{}", step.step_id, step.id)
}

/// A workflow definition as a create or update sends it.
#[derive(Debug, Clone, Default)]
pub struct WorkflowDefinition {
    pub name: String,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub active: Option<bool>,
    pub validate_payload: Option<bool>,
    pub payload_schema: Option<Value>,
    pub is_translation_enabled: Option<bool>,
    pub workflow_id: Option<String>,
    pub steps: Vec<StepDefinition>,
    pub preferences: Option<PreferencesInput>,
    pub origin: Option<String>,
    pub severity: Option<String>,
}

/// A step as sent: `_id`/`stepId` name an existing step to keep.
#[derive(Debug, Clone, Default)]
pub struct StepDefinition {
    pub id: Option<String>,
    pub step_id: Option<String>,
    pub name: String,
    /// The step type (`in_app`, …); anything else, or empty, is a 422.
    pub kind: String,
    pub control_values: Option<Value>,
    /// Step filters (the API's JSON array); a PUT replaces them like everything else.
    pub filters: Value,
    pub should_stop_on_fail: bool,
}

/// Preferences as sent: `{user?, workflow?}` (each a preference level as JSON).
#[derive(Debug, Clone, Default)]
pub struct PreferencesInput {
    pub user: Option<Value>,
    pub workflow: Option<Value>,
}

/// Every channel enabled, nothing read-only: the default of a workflow without preferences.
pub fn default_preference_level() -> Value {
    let channels: serde_json::Map<String, Value> =
        CHANNELS.iter().map(|channel| (channel.to_string(), json!({"enabled": true}))).collect();
    json!({"all": {"enabled": true, "readOnly": false}, "channels": channels})
}

fn stored_preferences(input: Option<&PreferencesInput>) -> Value {
    let user = input.and_then(|preferences| preferences.user.clone()).unwrap_or(Value::Null);
    let default = input.and_then(|preferences| preferences.workflow.clone()).unwrap_or_else(default_preference_level);
    json!({"user": user, "default": default})
}

/// Creates a workflow; `workflowId` defaults to the slugified name. An identifier in use → 409.
pub async fn create_workflow(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    definition: WorkflowDefinition,
) -> AppResult<StoredWorkflow> {
    validate::validate_definition(&definition, false)?;
    let identifier = definition.workflow_id.clone().unwrap_or_else(|| {
        let derived = slug::slugify(&definition.name);
        if derived.is_empty() {
            "workflow".to_string()
        } else {
            derived
        }
    });
    let now = Utc::now();
    let row = workflow_row(&definition, identifier, tenant, Uuid::now_v7(), now, now);
    let steps = steps::plan_steps(&[], &definition.steps, row.id, tenant.environment_id, now);
    let mut stored = StoredWorkflow { workflow: row, steps };
    refresh_issues(&mut stored, &active_channels(conn, tenant.environment_id).await?);
    conn.transaction::<_, AppError, _>(async |conn| {
        store::insert_workflow(conn, &stored.workflow).await?;
        store::replace_steps(conn, stored.workflow.id, &stored.steps).await
    })
    .await?;
    Ok(stored)
}

/// Replaces a workflow's definition and steps (named by identifier, `_id` or slug) in one transaction.
/// `workflowId` may change only for code-first (`external`) workflows.
pub async fn update_workflow(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    reference: &str,
    definition: WorkflowDefinition,
) -> AppResult<StoredWorkflow> {
    validate::validate_definition(&definition, true)?;
    let channels = active_channels(conn, tenant.environment_id).await?;
    conn.transaction::<_, AppError, _>(async |conn| {
        let current = store::find_row(conn, tenant, reference, true).await?;
        let identifier = match &definition.workflow_id {
            Some(requested) if *requested != current.identifier => {
                if current.origin != "external" {
                    return Err(AppError::invalid_field(
                        "workflowId",
                        "workflowId can be changed only for code-first (external) workflows",
                        requested.as_str(),
                    ));
                }
                requested.clone()
            }
            _ => current.identifier.clone(),
        };
        let existing_steps = store::load_steps(conn, &[current.id]).await?;
        let now = Utc::now();
        let mut row = workflow_row(&definition, identifier, tenant, current.id, current.created_at, now);
        row.last_triggered_at = current.last_triggered_at;
        let steps = steps::plan_steps(&existing_steps, &definition.steps, row.id, tenant.environment_id, now);
        let mut stored = StoredWorkflow { workflow: row, steps };
        refresh_issues(&mut stored, &channels);
        store::update_row(conn, &stored.workflow).await?;
        store::replace_steps(conn, stored.workflow.id, &stored.steps).await?;
        Ok(stored)
    })
    .await
}

fn workflow_row(
    definition: &WorkflowDefinition,
    identifier: String,
    tenant: Tenant,
    id: Uuid,
    created_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> WorkflowRow {
    let preferences = stored_preferences(definition.preferences.as_ref());
    WorkflowRow {
        id,
        environment_id: tenant.environment_id,
        organization_id: tenant.organization_id,
        identifier,
        name: definition.name.trim().to_string(),
        description: definition.description.clone(),
        tags: definition.tags.clone(),
        active: definition.active.unwrap_or(false),
        validate_payload: definition.validate_payload.unwrap_or(false),
        payload_schema: definition.payload_schema.clone(),
        is_translation_enabled: definition.is_translation_enabled.unwrap_or(false),
        critical: preferences["default"]["all"]["readOnly"] == json!(true),
        preferences,
        origin: definition.origin.clone().unwrap_or_else(|| ORIGINS[0].to_string()),
        severity: definition.severity.clone().unwrap_or_else(|| "none".to_string()),
        status: "INACTIVE".to_string(),
        issues: json!({}),
        last_triggered_at: None,
        last_published_at: Some(now),
        deleted: false,
        deleted_at: None,
        deleted_by: None,
        created_at,
        updated_at: now,
    }
}

/// Recomputes every step's issues and the workflow status (integrations may have changed).
pub fn refresh_issues(stored: &mut StoredWorkflow, active_channels: &HashSet<String>) {
    let schema = stored.workflow.payload_schema.as_ref();
    for step in &mut stored.steps {
        step.issues = issues::step_issues(step.kind, &step.control_values, schema, active_channels);
    }
    stored.workflow.status =
        issues::workflow_status(stored.workflow.active, stored.steps.iter().map(|s| &s.issues)).into();
}

/// The workflow named by identifier, `_id` or slug, with fresh issues and status.
pub async fn get_workflow(conn: &mut AsyncPgConnection, tenant: Tenant, reference: &str) -> AppResult<StoredWorkflow> {
    let mut stored = find_workflow(conn, tenant, reference).await?;
    refresh_issues(&mut stored, &active_channels(conn, tenant.environment_id).await?);
    Ok(stored)
}
