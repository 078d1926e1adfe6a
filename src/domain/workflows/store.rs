//! Workflow storage: lookups by identifier, `_id` or slug; the listing; writes of rows and steps.
//! Partial-index predicates (`NOT deleted`) are SQL, never binds (see the migration's header).

use std::collections::HashMap;

use chrono::Utc;
use diesel::dsl::not;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use super::{refresh_issues, StepRow, StoredWorkflow, WorkflowRow};
use crate::db::schema::{workflow_steps, workflows};
use crate::domain::integrations::active_channels;
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::error::{violated_unique_constraint, AppError, AppResult};

const IDENTIFIER_INDEX: &str = "workflows_environment_identifier_key";

fn not_found(reference: &str) -> AppError {
    AppError::NotFound(format!("Workflow with id {reference} not found"))
}

/// The internal id a reference may name: the id itself, or the tail of a slug `<identifier>_wf_<id>`.
fn referenced_id(reference: &str) -> Option<Uuid> {
    Uuid::parse_str(reference)
        .ok()
        .or_else(|| reference.rsplit_once("_wf_").and_then(|(_, id)| Uuid::parse_str(id).ok()))
}

/// The live workflow of the environment named by identifier, `_id` or slug (an identifier match wins).
pub async fn find_row(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    reference: &str,
    for_update: bool,
) -> AppResult<WorkflowRow> {
    let query = workflows::table
        .filter(workflows::environment_id.eq(tenant.environment_id))
        .filter(not(workflows::deleted))
        .filter(workflows::identifier.eq(reference).or(workflows::id.nullable().eq(referenced_id(reference))))
        .select(WorkflowRow::as_select())
        .limit(2);
    let rows: Vec<WorkflowRow> =
        if for_update { query.for_update().load(conn).await? } else { query.load(conn).await? };
    let by_identifier = rows.iter().position(|row| row.identifier == reference).unwrap_or(0);
    rows.into_iter().nth(by_identifier).ok_or_else(|| not_found(reference))
}

/// The workflow named by identifier, `_id` or slug with its steps, issues as last saved
/// (`get_workflow` recomputes them).
pub async fn find_workflow(conn: &mut AsyncPgConnection, tenant: Tenant, reference: &str) -> AppResult<StoredWorkflow> {
    let workflow = find_row(conn, tenant, reference, false).await?;
    let steps = load_steps(conn, &[workflow.id]).await?;
    Ok(StoredWorkflow { workflow, steps })
}

/// The steps of several workflows in one query, by workflow then position.
pub(super) async fn load_steps(conn: &mut AsyncPgConnection, workflow_ids: &[Uuid]) -> AppResult<Vec<StepRow>> {
    Ok(workflow_steps::table
        .filter(workflow_steps::workflow_id.eq_any(workflow_ids))
        .order((workflow_steps::workflow_id, workflow_steps::position))
        .select(StepRow::as_select())
        .load(conn)
        .await?)
}

/// The workflows of the environment with these internal ids, deleted ones included (events and
/// messages keep pointing at them), each with its steps: two queries, whatever the number of ids.
pub async fn workflows_by_ids(
    conn: &mut AsyncPgConnection,
    environment_id: Uuid,
    ids: &[Uuid],
) -> AppResult<HashMap<Uuid, StoredWorkflow>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<WorkflowRow> = workflows::table
        .filter(workflows::environment_id.eq(environment_id))
        .filter(workflows::id.eq_any(ids))
        .select(WorkflowRow::as_select())
        .load(conn)
        .await?;
    let found: Vec<Uuid> = rows.iter().map(|row| row.id).collect();
    let mut steps_by_workflow: HashMap<Uuid, Vec<StepRow>> = HashMap::new();
    for step in load_steps(conn, &found).await? {
        steps_by_workflow.entry(step.workflow_id).or_default().push(step);
    }
    Ok(rows
        .into_iter()
        .map(|workflow| {
            let steps = steps_by_workflow.remove(&workflow.id).unwrap_or_default();
            (workflow.id, StoredWorkflow { workflow, steps })
        })
        .collect())
}

fn conflict_or(error: diesel::result::Error, identifier: &str) -> AppError {
    if violated_unique_constraint(&error).as_deref() == Some(IDENTIFIER_INDEX) {
        AppError::Conflict(format!("Workflow with workflowId {identifier} already exists"))
    } else {
        error.into()
    }
}

pub(super) async fn insert_workflow(conn: &mut AsyncPgConnection, row: &WorkflowRow) -> AppResult<()> {
    diesel::insert_into(workflows::table)
        .values(row)
        .execute(conn)
        .await
        .map_err(|error| conflict_or(error, &row.identifier))?;
    Ok(())
}

pub(super) async fn update_row(conn: &mut AsyncPgConnection, row: &WorkflowRow) -> AppResult<()> {
    diesel::update(workflows::table.find(row.id))
        .set(row)
        .execute(conn)
        .await
        .map_err(|error| conflict_or(error, &row.identifier))?;
    Ok(())
}

/// Replaces every step of a workflow with `steps` (kept steps reuse their ids): one delete, one
/// multi-row insert. Must run in the caller's transaction.
pub(super) async fn replace_steps(conn: &mut AsyncPgConnection, workflow_id: Uuid, steps: &[StepRow]) -> AppResult<()> {
    diesel::delete(workflow_steps::table.filter(workflow_steps::workflow_id.eq(workflow_id))).execute(conn).await?;
    if !steps.is_empty() {
        diesel::insert_into(workflow_steps::table).values(steps).execute(conn).await?;
    }
    Ok(())
}

/// Soft-deletes a workflow: its identifier is free again, its history (events, jobs) stays.
pub async fn delete_workflow(conn: &mut AsyncPgConnection, tenant: Tenant, reference: &str) -> AppResult<()> {
    let row = find_row(conn, tenant, reference, false).await?;
    let now = Utc::now();
    // Still live when the row lock is ours: of concurrent deletes, one succeeds and the rest see 404.
    let deleted = diesel::update(workflows::table.find(row.id).filter(not(workflows::deleted)))
        .set((
            workflows::deleted.eq(true),
            workflows::deleted_at.eq(now),
            workflows::deleted_by.eq(tenant.environment_id.to_string()),
            workflows::updated_at.eq(now),
        ))
        .execute(conn)
        .await?;
    if deleted == 0 {
        return Err(not_found(reference));
    }
    Ok(())
}

/// A page request of the listing.
#[derive(Debug, Clone, Default)]
pub struct WorkflowQuery {
    /// Rows to skip (default 0).
    pub offset: Option<i64>,
    /// Page size (default 10, 1..=100).
    pub limit: Option<i64>,
    /// Case-insensitive substring of the name or the identifier.
    pub query: Option<String>,
}

/// A page of workflows (newest first) and how many match in all.
#[derive(Debug, Clone)]
pub struct WorkflowPage {
    pub workflows: Vec<StoredWorkflow>,
    pub total_count: i64,
}

fn matching<'a>(tenant: Tenant, text: Option<&'a str>) -> workflows::BoxedQuery<'a, Pg> {
    let mut query = workflows::table
        .filter(workflows::environment_id.eq(tenant.environment_id))
        .filter(not(workflows::deleted))
        .into_boxed();
    if let Some(text) = text.filter(|text| !text.is_empty()) {
        let escaped = text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        let pattern = format!("%{escaped}%");
        query = query.filter(workflows::name.ilike(pattern.clone()).or(workflows::identifier.ilike(pattern)));
    }
    query
}

/// The environment's workflows, newest first, offset paging, with fresh issues and status.
pub async fn list_workflows(
    conn: &mut AsyncPgConnection,
    tenant: Tenant,
    query: WorkflowQuery,
) -> AppResult<WorkflowPage> {
    let offset = query.offset.unwrap_or(0);
    let limit = query.limit.unwrap_or(10);
    let mut validator = Validator::new();
    validator.check(offset >= 0, "offset", "offset must be 0 or more", offset);
    validator.check((1..=100).contains(&limit), "limit", "limit must be between 1 and 100", limit);
    validator.finish()?;
    let text = query.query.as_deref().map(str::trim);
    let total_count: i64 = matching(tenant, text).count().get_result(conn).await?;
    let rows: Vec<WorkflowRow> = matching(tenant, text)
        // Ids are UUIDv7: newest first by id alone, served by (environment_id, id).
        .order(workflows::id.desc())
        .offset(offset)
        .limit(limit)
        .select(WorkflowRow::as_select())
        .load(conn)
        .await?;
    let ids: Vec<Uuid> = rows.iter().map(|row| row.id).collect();
    let mut steps_by_workflow: HashMap<Uuid, Vec<StepRow>> = HashMap::new();
    for step in load_steps(conn, &ids).await? {
        steps_by_workflow.entry(step.workflow_id).or_default().push(step);
    }
    let channels = active_channels(conn, tenant.environment_id).await?;
    let workflows = rows
        .into_iter()
        .map(|workflow| {
            let steps = steps_by_workflow.remove(&workflow.id).unwrap_or_default();
            let mut stored = StoredWorkflow { workflow, steps };
            refresh_issues(&mut stored, &channels);
            stored
        })
        .collect();
    Ok(WorkflowPage { workflows, total_count })
}
