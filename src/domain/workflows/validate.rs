//! Validation of a workflow definition: every failing field in one 422, with the value sent.

use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::Value;

use super::controls::data_schema;
use super::{StepDefinition, WorkflowDefinition, MAX_STEPS, ORIGINS, SEVERITIES};
use crate::domain::validation::Validator;
use crate::error::AppResult;
use crate::workflow::controls::{read, DigestControls, DigestType};
use crate::workflow::filters::parse_filters;
use crate::workflow::{StepKind, WindowRule};

/// One compiled validator per step kind, in `StepKind::ALL` order.
static CONTROL_VALIDATORS: LazyLock<Vec<jsonschema::Validator>> = LazyLock::new(|| {
    StepKind::ALL
        .iter()
        .map(|kind| jsonschema::validator_for(&data_schema(*kind)).expect("the built-in control schemas compile"))
        .collect()
});

fn control_validator(kind: StepKind) -> &'static jsonschema::Validator {
    let index = StepKind::ALL.iter().position(|candidate| *candidate == kind).expect("every kind is listed");
    &CONTROL_VALIDATORS[index]
}

/// Whether `identifier` can name a workflow or a step (it appears in paths and slugs).
pub fn is_valid_identifier(identifier: &str) -> bool {
    !identifier.is_empty()
        && identifier.len() <= 100
        && identifier.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Checks a definition; `update` adds the fields a PUT requires (`preferences`, `origin`).
pub fn validate_definition(definition: &WorkflowDefinition, update: bool) -> AppResult<()> {
    let mut validator = Validator::new();
    validator.check(!definition.name.trim().is_empty(), "name", "name must not be empty", definition.name.as_str());
    if let Some(workflow_id) = &definition.workflow_id {
        let message = "workflowId may hold only letters, digits, '-', '_' and '.' (at most 100)";
        validator.check(is_valid_identifier(workflow_id), "workflowId", message, workflow_id.as_str());
    }
    match &definition.origin {
        Some(origin) => {
            let message = format!("origin must be one of {}", ORIGINS.join(", "));
            validator.check(ORIGINS.contains(&origin.as_str()), "origin", message, origin.as_str());
        }
        None if update => validator.reject("origin", "origin is required", Value::Null),
        None => {}
    }
    if update && definition.preferences.is_none() {
        validator.reject("preferences", "preferences is required", Value::Null);
    }
    if let Some(severity) = &definition.severity {
        let message = format!("severity must be one of {}", SEVERITIES.join(", "));
        validator.check(SEVERITIES.contains(&severity.as_str()), "severity", message, severity.as_str());
    }
    if let Some(schema) = &definition.payload_schema {
        if let Some(problem) = schema_problem(schema) {
            validator.reject(
                "payloadSchema",
                format!("payloadSchema is not a valid JSON Schema: {problem}"),
                schema.clone(),
            );
        }
    }
    if definition.steps.len() > MAX_STEPS {
        let message = format!("a workflow has at most {MAX_STEPS} steps, not {}", definition.steps.len());
        validator.reject("steps", message, definition.steps.len() as u64);
    }
    for (index, step) in definition.steps.iter().enumerate() {
        validate_step(&mut validator, index, step, &definition.steps[..index]);
    }
    validator.finish()
}

/// Why `schema` is not a usable JSON Schema, if it is not.
fn schema_problem(schema: &Value) -> Option<String> {
    if !schema.is_object() {
        return Some("it must be an object".into());
    }
    if let Err(error) = jsonschema::meta::validate(schema) {
        return Some(error.to_string());
    }
    jsonschema::validator_for(schema).err().map(|error| error.to_string())
}

fn validate_step(validator: &mut Validator, index: usize, step: &StepDefinition, earlier: &[StepDefinition]) {
    let path = format!("steps[{index}]");
    validator.check(
        !step.name.trim().is_empty(),
        &format!("{path}.name"),
        "name must not be empty",
        step.name.as_str(),
    );
    if let Some(step_id) = &step.step_id {
        let message = "stepId may hold only letters, digits, '-', '_' and '.' (at most 100)";
        validator.check(is_valid_identifier(step_id), &format!("{path}.stepId"), message, step_id.as_str());
        let repeated = earlier.iter().any(|other| other.step_id.as_deref() == Some(step_id));
        validator.check(!repeated, &format!("{path}.stepId"), "stepId is used by an earlier step", step_id.as_str());
    }
    if let Some(id) = &step.id {
        let repeated = earlier.iter().any(|other| other.id.as_deref() == Some(id));
        validator.check(!repeated, &format!("{path}._id"), "_id is used by an earlier step", id.as_str());
    }
    let Ok(kind) = step.kind.parse::<StepKind>() else {
        let message = "type must be one of in_app, email, sms, chat, push, digest, delay, custom";
        let value = if step.kind.is_empty() { Value::Null } else { Value::String(step.kind.clone()) };
        validator.reject(&format!("{path}.type"), message, value);
        return;
    };
    if let Err(error) = Some(&step.filters).filter(|filters| !filters.is_null()).map_or(Ok(Vec::new()), parse_filters) {
        validator.reject(&format!("{path}.filters"), format!("filters are invalid: {error}"), step.filters.clone());
    }
    let Some(controls) = &step.control_values else { return };
    // Required controls left empty are MISSING_VALUE issues, not a 422: a draft can be saved.
    for error in control_validator(kind).iter_errors(controls) {
        if matches!(error.kind(), ValidationErrorKind::Required { .. }) {
            continue;
        }
        let mut field = format!("{path}.controlValues");
        for segment in error.instance_path().iter() {
            match segment {
                LocationSegment::Property(name) => field.push_str(&format!(".{name}")),
                LocationSegment::Index(position) => field.push_str(&format!("[{position}]")),
            }
        }
        validator.reject(&field, error.to_string(), error.instance().clone().into_owned());
    }
    // A timed digest's schedule must be one Herald can compute (an empty one is a MISSING_VALUE issue).
    if kind != StepKind::Digest {
        return;
    }
    let digest: DigestControls = read(controls);
    if digest.digest_type == Some(DigestType::Timed) && (digest.cron().is_some() || digest.timed.is_some()) {
        if let Err(reason) = WindowRule::from_controls(&digest) {
            let (field, value) = match digest.cron() {
                Some(cron) => ("cron", Value::String(cron.into())),
                None => ("timed", controls["timed"].clone()),
            };
            validator.reject(&format!("{path}.controlValues.{field}"), reason, value);
        }
    }
}
