//! Workflows between proto and domain: the definition a create or update sends, and the stored
//! workflow as the full `Workflow` and as a listing's `WorkflowSummary`.

use serde_json::Value;

use super::convert::enum_name;
use crate::domain::workflows::controls::{data_schema, ui_schema};
use crate::domain::workflows::issues::has_issues;
use crate::domain::workflows::variables::{payload_example, variables_schema};
use crate::domain::workflows::{
    step_slug, workflow_slug, PreferencesInput, StepDefinition, StepRow, StoredWorkflow, WorkflowDefinition,
};
use crate::error::{AppError, AppResult};
use crate::proto::herald::v1 as pb;
use crate::wire::{format_timestamp, json_to_struct, struct_to_json};

fn struct_json(value: Option<&pbjson_types::Struct>) -> Option<Value> {
    value.map(struct_to_json)
}

/// A proto message or model value as JSON. Serializing them cannot fail: their maps have string keys.
fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("proto messages and model values serialize")
}

/// Stored JSON (written by Herald from validated input) as a proto message; JSON that does not read
/// is a bug, answered as an internal error.
fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> AppResult<T> {
    serde_json::from_value(value).map_err(AppError::internal)
}

impl From<pb::WorkflowInput> for WorkflowDefinition {
    fn from(input: pb::WorkflowInput) -> Self {
        let steps = input
            .steps
            .into_iter()
            .map(|step| StepDefinition {
                // proto3 has no presence for `id` (see common.proto): empty names no existing step.
                id: Some(step.id).filter(|id| !id.is_empty()),
                step_id: step.step_id,
                name: step.name,
                kind: enum_name(
                    pb::step_type_enum::StepType::try_from(step.r#type).ok().map(|kind| kind.as_str_name()),
                ),
                control_values: struct_json(step.control_values.as_ref()),
                filters: to_json(&step.filters),
                should_stop_on_fail: step.should_stop_on_fail.unwrap_or(false),
            })
            .collect();
        WorkflowDefinition {
            name: input.name,
            description: input.description,
            tags: input.tags,
            active: input.active,
            validate_payload: input.validate_payload,
            payload_schema: struct_json(input.payload_schema.as_ref()),
            is_translation_enabled: input.is_translation_enabled,
            workflow_id: input.workflow_id,
            steps,
            preferences: input.preferences.map(|preferences| PreferencesInput {
                user: preferences.user.as_ref().map(to_json),
                workflow: preferences.workflow.as_ref().map(to_json),
            }),
            origin: input.origin,
            severity: input.severity.map(|severity| {
                enum_name(pb::severity_enum::Severity::try_from(severity).ok().map(|known| known.as_str_name()))
            }),
        }
    }
}

fn step_type(step: &StepRow) -> i32 {
    pb::step_type_enum::StepType::from_str_name(step.kind.as_str()).map_or(0, |kind| kind as i32)
}

fn step_issues(step: &StepRow) -> AppResult<Option<pb::StepIssues>> {
    if has_issues(&step.issues) {
        Ok(Some(from_json(step.issues.clone())?))
    } else {
        Ok(None)
    }
}

fn workflow_step(stored: &StoredWorkflow, step: &StepRow) -> AppResult<pb::WorkflowStep> {
    let workflow = &stored.workflow;
    let kind = step.kind;
    Ok(pb::WorkflowStep {
        controls: Some(pb::StepControls {
            data_schema: json_to_struct(data_schema(kind)),
            ui_schema: Some(from_json(ui_schema(kind))?),
            values: json_to_struct(step.control_values.clone()),
        }),
        control_values: json_to_struct(step.control_values.clone()),
        variables: json_to_struct(variables_schema(workflow.payload_schema.as_ref())),
        step_id: step.step_id.clone(),
        id: step.id.to_string(),
        name: step.name.clone(),
        slug: step_slug(step),
        r#type: step_type(step),
        origin: workflow.origin.clone(),
        workflow_id: workflow.identifier.clone(),
        workflow_database_id: workflow.id.to_string(),
        issues: step_issues(step)?,
        filters: from_json(to_json(&step.filters))?,
        should_stop_on_fail: step.should_stop_on_fail,
    })
}

fn workflow_status(stored: &StoredWorkflow) -> i32 {
    pb::workflow_status_enum::WorkflowStatus::from_str_name(&stored.workflow.status).map_or(0, |status| status as i32)
}

impl TryFrom<&StoredWorkflow> for pb::Workflow {
    type Error = AppError;

    /// `updatedBy` and `lastPublishedBy` stay absent: there are no user accounts.
    fn try_from(stored: &StoredWorkflow) -> AppResult<Self> {
        let workflow = &stored.workflow;
        let steps = stored.steps.iter().map(|step| workflow_step(stored, step)).collect::<AppResult<Vec<_>>>()?;
        Ok(pb::Workflow {
            name: workflow.name.clone(),
            description: workflow.description.clone(),
            tags: workflow.tags.clone(),
            active: workflow.active,
            validate_payload: Some(workflow.validate_payload),
            payload_schema: workflow.payload_schema.clone().and_then(json_to_struct),
            is_translation_enabled: workflow.is_translation_enabled,
            id: workflow.id.to_string(),
            workflow_id: workflow.identifier.clone(),
            slug: workflow_slug(workflow),
            updated_at: format_timestamp(workflow.updated_at),
            created_at: format_timestamp(workflow.created_at),
            updated_by: None,
            last_published_at: workflow.last_published_at.map(format_timestamp),
            last_published_by: None,
            steps,
            origin: workflow.origin.clone(),
            preferences: Some(from_json(workflow.preferences.clone())?),
            status: workflow_status(stored),
            issues: from_json(workflow.issues.clone())?,
            last_triggered_at: workflow.last_triggered_at.map(format_timestamp),
            payload_example: workflow.payload_schema.as_ref().map(payload_example).and_then(json_to_struct),
            severity: pb::severity_enum::Severity::from_str_name(&workflow.severity).map_or(0, |s| s as i32),
        })
    }
}

impl TryFrom<&StoredWorkflow> for pb::WorkflowSummary {
    type Error = AppError;

    fn try_from(stored: &StoredWorkflow) -> AppResult<Self> {
        let workflow = &stored.workflow;
        let steps = stored
            .steps
            .iter()
            .map(|step| {
                Ok(pb::WorkflowStepSummary {
                    slug: step_slug(step),
                    r#type: step_type(step),
                    issues: step_issues(step)?,
                })
            })
            .collect::<AppResult<Vec<_>>>()?;
        Ok(pb::WorkflowSummary {
            name: workflow.name.clone(),
            tags: workflow.tags.clone(),
            updated_at: format_timestamp(workflow.updated_at),
            created_at: format_timestamp(workflow.created_at),
            updated_by: None,
            last_published_at: workflow.last_published_at.map(format_timestamp),
            last_published_by: None,
            id: workflow.id.to_string(),
            workflow_id: workflow.identifier.clone(),
            slug: workflow_slug(workflow),
            status: workflow_status(stored),
            origin: workflow.origin.clone(),
            last_triggered_at: workflow.last_triggered_at.map(format_timestamp),
            step_type_overviews: stored.steps.iter().map(step_type).collect(),
            is_translation_enabled: Some(workflow.is_translation_enabled),
            steps,
        })
    }
}
