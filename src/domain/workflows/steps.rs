//! Step ids across saves: a step of a PUT that names an existing step by `_id` (or its slug) or by
//! `stepId` keeps that step's `_id` and `created_at`; a step without a `stepId` gets one from its name,
//! unique within the workflow, and keeps the ids of the existing step that already has it.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use uuid::Uuid;

use super::{StepDefinition, StepRow};
use crate::workflow::filters::parse_filters;
use crate::workflow::{StepFilters, StepKind};

/// The internal id named by a step `_id` given as the id itself or as the step slug (`<stepId>_st_<id>`).
pub fn parse_step_reference(reference: &str) -> Option<Uuid> {
    Uuid::parse_str(reference)
        .ok()
        .or_else(|| reference.rsplit_once("_st_").and_then(|(_, id)| Uuid::parse_str(id).ok()))
}

/// Turns validated step definitions into the rows to store, in order (issues are filled in later).
pub fn plan_steps(
    existing: &[StepRow],
    inputs: &[StepDefinition],
    workflow_id: Uuid,
    environment_id: Uuid,
    now: DateTime<Utc>,
) -> Vec<StepRow> {
    let mut claimed: HashSet<Uuid> = HashSet::new();
    let mut matches: Vec<Option<&StepRow>> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let by_id = input.id.as_deref().and_then(parse_step_reference);
        let found = existing.iter().find(|step| {
            !claimed.contains(&step.id)
                && (by_id == Some(step.id) || (by_id.is_none() && input.step_id.as_deref() == Some(&step.step_id)))
        });
        if let Some(step) = found {
            claimed.insert(step.id);
        }
        matches.push(found);
    }
    let mut used: HashSet<String> = inputs.iter().filter_map(|input| input.step_id.clone()).collect();
    let mut rows = Vec::with_capacity(inputs.len());
    for (position, (input, matched)) in inputs.iter().zip(matches).enumerate() {
        let kind: StepKind = input.kind.parse().expect("validated: the step type is known");
        let (step_id, matched) = match (&input.step_id, matched) {
            (Some(explicit), matched) => (explicit.clone(), matched),
            (None, Some(matched)) => (unique(&matched.step_id, &mut used), Some(matched)),
            (None, None) => {
                let base = slug::slugify(&input.name);
                let derived = unique(if base.is_empty() { kind.as_str() } else { &base }, &mut used);
                let adopted = existing.iter().find(|step| !claimed.contains(&step.id) && step.step_id == derived);
                if let Some(step) = adopted {
                    claimed.insert(step.id);
                }
                (derived, adopted)
            }
        };
        rows.push(StepRow {
            id: matched.map_or_else(Uuid::now_v7, |step| step.id),
            workflow_id,
            environment_id,
            position: position as i32,
            step_id,
            name: input.name.trim().to_string(),
            kind,
            control_values: input.control_values.clone().unwrap_or_else(|| json!({})),
            filters: StepFilters(parse_filters(&input.filters).unwrap_or_default()),
            should_stop_on_fail: input.should_stop_on_fail,
            active: matched.is_none_or(|step| step.active),
            issues: Value::Object(Default::default()),
            created_at: matched.map_or(now, |step| step.created_at),
            updated_at: now,
        });
    }
    rows
}

/// `base`, or `base-2`, `base-3`… when taken; the result is marked used.
fn unique(base: &str, used: &mut HashSet<String>) -> String {
    let mut candidate = base.to_string();
    let mut counter = 2;
    while used.contains(&candidate) {
        candidate = format!("{base}-{counter}");
        counter += 1;
    }
    used.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, kind: &str) -> StepDefinition {
        StepDefinition { name: name.into(), kind: kind.into(), ..Default::default() }
    }

    #[test]
    fn new_steps_get_unique_ids_from_their_names() {
        let (workflow, environment) = (Uuid::now_v7(), Uuid::now_v7());
        let inputs = [input("Send Email", "email"), input("Send Email", "email"), input("!!!", "delay")];
        let rows = plan_steps(&[], &inputs, workflow, environment, Utc::now());
        let step_ids: Vec<&str> = rows.iter().map(|row| row.step_id.as_str()).collect();
        assert_eq!(step_ids, ["send-email", "send-email-2", "delay"]);
        assert_eq!(rows.iter().map(|row| row.position).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(rows[0].control_values, json!({}));
    }

    #[test]
    fn existing_steps_keep_their_ids_by_id_slug_step_id_or_name() {
        let (workflow, environment) = (Uuid::now_v7(), Uuid::now_v7());
        let before = Utc::now() - chrono::Duration::hours(1);
        let existing = plan_steps(
            &[],
            &[input("Inbox", "in_app"), input("Mail", "email"), input("Wait", "delay"), input("Text", "sms")],
            workflow,
            environment,
            before,
        );
        let mut by_slug = input("Inbox renamed", "in_app");
        by_slug.id = Some(format!("{}_st_{}", existing[0].step_id, existing[0].id));
        let mut by_step_id = input("Mail", "email");
        by_step_id.step_id = Some("mail".into());
        let mut by_id = input("Wait longer", "delay");
        by_id.id = Some(existing[2].id.to_string());
        let inputs = [input("Brand new", "chat"), by_id, by_slug, by_step_id, input("Text", "sms")];
        let rows = plan_steps(&existing, &inputs, workflow, environment, Utc::now());
        assert_eq!(rows[1].id, existing[2].id);
        assert_eq!(rows[1].step_id, "wait");
        assert_eq!(rows[1].created_at, before);
        assert_eq!(rows[2].id, existing[0].id);
        assert_eq!(rows[2].name, "Inbox renamed");
        assert_eq!(rows[3].id, existing[1].id);
        assert_eq!(rows[4].id, existing[3].id, "the derived stepId matches the existing step");
        assert!(existing.iter().all(|step| step.id != rows[0].id));
        assert_eq!(parse_step_reference("nope"), None);
    }
}
