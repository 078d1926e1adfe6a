//! The template form of a workflow (the spec's "Workflow in a message"), derived from the stored
//! workflow so that messages and events embed exactly what was run.
//!
//! Where the spec is silent: there are no users or notification groups, so `_creatorId` is the
//! environment id and every workflow is in one group per environment (`_notificationGroupId` = the
//! environment id, named "General"); `draft` is `!active`; a step's `template` holds its type and
//! control values; digest/delay controls become the step `metadata`.

use serde_json::{json, Value};

use crate::domain::integrations::providers::CHANNELS;
use crate::domain::workflows::variables::{path_segments, referenced_variables};
use crate::domain::workflows::{StepRow, StoredWorkflow};
use crate::proto::herald::v1 as pb;
use crate::wire::{format_timestamp, json_to_struct};
use crate::workflow::{MetadataForm, StepControls, StepMetadata, TimeUnit};

/// The workflow in the template form embedded in messages and notification events.
pub fn template_form(stored: &StoredWorkflow) -> pb::NotificationTemplate {
    let workflow = &stored.workflow;
    let environment_id = workflow.environment_id.to_string();
    let organization_id = workflow.organization_id.to_string();
    pb::NotificationTemplate {
        id: workflow.id.to_string(),
        name: workflow.name.clone(),
        description: workflow.description.clone().unwrap_or_default(),
        active: workflow.active,
        draft: !workflow.active,
        preference_settings: Some(preference_settings(&workflow.preferences["default"])),
        critical: workflow.critical,
        tags: workflow.tags.clone(),
        steps: stored.steps.iter().map(notification_step).collect(),
        organization_id: organization_id.clone(),
        creator_id: environment_id.clone(),
        environment_id: environment_id.clone(),
        triggers: triggers(stored),
        notification_group_id: environment_id.clone(),
        parent_id: None,
        deleted: workflow.deleted,
        deleted_at: workflow.deleted_at.map(format_timestamp).unwrap_or_default(),
        deleted_by: workflow.deleted_by.clone().unwrap_or_default(),
        notification_group: Some(pb::NotificationGroup {
            id: environment_id.clone(),
            name: "General".into(),
            environment_id,
            organization_id,
            parent_id: None,
        }),
        data: None,
        workflow_integration_status: None,
    }
}

/// The triggers of a workflow: its one event trigger, with the payload and subscriber variables it uses.
pub fn triggers(stored: &StoredWorkflow) -> Vec<pb::NotificationTrigger> {
    vec![pb::NotificationTrigger {
        r#type: pb::trigger_type_enum::TriggerType::Event as i32,
        identifier: stored.workflow.identifier.clone(),
        variables: names(payload_variables(stored)),
        subscriber_variables: names(used_roots(stored, "subscriber")),
    }]
}

fn names(list: Vec<String>) -> Vec<pb::NotificationTriggerVariable> {
    list.into_iter().map(|name| pb::NotificationTriggerVariable { name }).collect()
}

/// The payload schema's top-level properties; without a schema, the payload keys the steps use.
fn payload_variables(stored: &StoredWorkflow) -> Vec<String> {
    let declared = stored.workflow.payload_schema.as_ref().and_then(|schema| schema.get("properties"));
    match declared.and_then(Value::as_object) {
        Some(properties) => properties.keys().cloned().collect(),
        None => used_roots(stored, "payload"),
    }
}

/// The distinct second segments of `root.*` variables used in any step's controls, in order of use.
fn used_roots(stored: &StoredWorkflow, root: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for step in &stored.steps {
        let mut texts = Vec::new();
        strings(&step.control_values, &mut texts);
        for variable in texts.into_iter().flat_map(referenced_variables) {
            let segments = path_segments(&variable);
            if segments.first() == Some(&root) {
                if let Some(key) = segments.get(1).map(|key| key.to_string()).filter(|key| !found.contains(key)) {
                    found.push(key);
                }
            }
        }
    }
    found
}

fn strings<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => found.push(text),
        Value::Array(items) => items.iter().for_each(|item| strings(item, found)),
        Value::Object(object) => {
            object.iter().filter(|(key, _)| *key != "skip").for_each(|(_, item)| strings(item, found))
        }
        _ => {}
    }
}

/// Channel flags of a preference level: a channel's own `enabled`, else `all.enabled`, else true.
fn preference_settings(level: &Value) -> pb::ChannelFlags {
    let all = level["all"]["enabled"].as_bool().unwrap_or(true);
    let flag = |channel: &str| Some(level["channels"][channel]["enabled"].as_bool().unwrap_or(all));
    debug_assert_eq!(CHANNELS.len(), 5);
    pb::ChannelFlags {
        email: flag("email"),
        sms: flag("sms"),
        in_app: flag("in_app"),
        chat: flag("chat"),
        push: flag("push"),
    }
}

fn notification_step(step: &StepRow) -> pb::NotificationStep {
    let template = json!({
        "type": step.kind.as_str(),
        "stepId": step.step_id,
        "name": step.name,
        "controls": step.control_values
    });
    pb::NotificationStep {
        id: step.id.to_string(),
        uuid: Some(step.step_id.clone()),
        name: Some(step.name.clone()),
        template_id: Some(step.id.to_string()),
        active: Some(step.active),
        should_stop_on_fail: Some(step.should_stop_on_fail),
        template: json_to_struct(template),
        filters: serde_json::to_value(&step.filters).and_then(serde_json::from_value).unwrap_or_default(),
        parent_id: None,
        metadata: StepMetadata::of(&StepControls::read(step.kind, &step.control_values)).map(pb::StepMetadata::from),
        reply_callback: None,
        variants: Vec::new(),
    }
}

fn time_unit(unit: TimeUnit) -> i32 {
    pb::time_unit_enum::TimeUnit::from_str_name(unit.as_str()).map_or(0, |unit| unit as i32)
}

fn amount(amount: Option<i64>) -> Option<i32> {
    amount.and_then(|amount| i32::try_from(amount).ok())
}

impl From<StepMetadata> for pb::StepMetadata {
    fn from(metadata: StepMetadata) -> Self {
        use pb::step_metadata_type_enum::StepMetadataType;
        let form = match metadata.form {
            MetadataForm::Regular => StepMetadataType::Regular,
            MetadataForm::Backoff => StepMetadataType::Backoff,
            MetadataForm::Timed => StepMetadataType::Timed,
            MetadataForm::Scheduled => StepMetadataType::Scheduled,
        };
        pb::StepMetadata {
            r#type: form as i32,
            amount: amount(metadata.amount),
            unit: metadata.unit.map(time_unit),
            digest_key: metadata.digest_key,
            backoff: metadata.backoff,
            backoff_amount: amount(metadata.backoff_amount),
            backoff_unit: metadata.backoff_unit.map(time_unit),
            update_mode: None,
            timed: metadata.timed.map(|_| pb::TimedConfig::default()),
            delay_path: metadata.delay_path,
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use uuid::Uuid;

    use super::*;
    use crate::domain::workflows::WorkflowRow;
    use crate::workflow::{StepFilters, StepKind};

    fn step(position: i32, kind: StepKind, step_id: &str, controls: Value) -> StepRow {
        StepRow {
            id: Uuid::now_v7(),
            workflow_id: Uuid::nil(),
            environment_id: Uuid::nil(),
            position,
            step_id: step_id.into(),
            name: step_id.into(),
            kind,
            control_values: controls,
            filters: StepFilters::default(),
            should_stop_on_fail: false,
            active: true,
            issues: json!({}),
            created_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    fn workflow(payload_schema: Option<Value>, preferences: Value) -> WorkflowRow {
        WorkflowRow {
            id: Uuid::now_v7(),
            environment_id: Uuid::now_v7(),
            organization_id: Uuid::now_v7(),
            identifier: "order-shipped".into(),
            name: "Order shipped".into(),
            description: None,
            tags: vec!["orders".into()],
            active: true,
            validate_payload: false,
            payload_schema,
            is_translation_enabled: false,
            critical: true,
            preferences,
            origin: "svc-cloud".into(),
            severity: "high".into(),
            status: "ACTIVE".into(),
            issues: json!({}),
            last_triggered_at: None,
            last_published_at: None,
            deleted: false,
            deleted_at: None,
            deleted_by: None,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    #[test]
    fn triggers_preferences_and_step_metadata_come_from_the_stored_workflow() {
        let schema =
            json!({"type": "object", "properties": {"orderId": {"type": "string"}, "total": {"type": "number"}}});
        let preferences = json!({"user": null, "default": {"all": {"enabled": true, "readOnly": true}, "channels": {"sms": {"enabled": false}}}});
        let stored = StoredWorkflow {
            workflow: workflow(Some(schema), preferences),
            steps: vec![
                step(
                    0,
                    StepKind::Digest,
                    "batch",
                    json!({"type": "backoff", "amount": 5, "unit": "minutes", "digestKey": "orderId",
                                                  "lookBackWindow": {"amount": 1, "unit": "hours"}}),
                ),
                step(1, StepKind::Delay, "wait", json!({"type": "scheduled", "delayPath": "deliverAt"})),
                step(2, StepKind::Delay, "pause", json!({"type": "regular", "amount": 2, "unit": "days"})),
                step(
                    3,
                    StepKind::Email,
                    "mail",
                    json!({"subject": "Hi {{ subscriber.firstName }}", "body": "{{ subscriber.email }}"}),
                ),
            ],
        };
        let template = template_form(&stored);
        assert_eq!(template.id, stored.workflow.id.to_string());
        assert!(template.critical && template.active && !template.draft);
        assert_eq!(template.tags, ["orders"]);
        let trigger = &template.triggers[0];
        assert_eq!(trigger.identifier, "order-shipped");
        assert_eq!(trigger.r#type, pb::trigger_type_enum::TriggerType::Event as i32);
        assert_eq!(trigger.variables.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["orderId", "total"]);
        assert_eq!(
            trigger.subscriber_variables.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
            ["email", "firstName"],
            "in order of the controls read"
        );
        let flags = template.preference_settings.unwrap();
        assert_eq!((flags.email, flags.sms, flags.in_app), (Some(true), Some(false), Some(true)));

        let digest = template.steps[0].metadata.clone().unwrap();
        assert_eq!(digest.r#type, pb::step_metadata_type_enum::StepMetadataType::Backoff as i32);
        assert_eq!((digest.amount, digest.backoff, digest.backoff_amount), (Some(5), Some(true), Some(1)));
        assert_eq!(digest.unit, Some(pb::time_unit_enum::TimeUnit::Minutes as i32));
        assert_eq!(digest.backoff_unit, Some(pb::time_unit_enum::TimeUnit::Hours as i32));
        assert_eq!(digest.digest_key.as_deref(), Some("orderId"));
        let scheduled = template.steps[1].metadata.clone().unwrap();
        assert_eq!(scheduled.delay_path.as_deref(), Some("deliverAt"));
        assert_eq!(scheduled.amount, None);
        let regular = template.steps[2].metadata.clone().unwrap();
        assert_eq!((regular.amount, regular.unit), (Some(2), Some(pb::time_unit_enum::TimeUnit::Days as i32)));
        assert!(template.steps[3].metadata.is_none());
        assert_eq!(template.steps[3].uuid.as_deref(), Some("mail"));
    }

    #[test]
    fn without_a_schema_the_payload_variables_are_the_ones_used() {
        let stored = StoredWorkflow {
            workflow: workflow(None, json!({"user": null, "default": {}})),
            steps: vec![step(
                0,
                StepKind::InApp,
                "inbox",
                json!({"body": "{{ payload.order.id }} {{payload.user}} {{ payload.order.total }}"}),
            )],
        };
        let template = template_form(&stored);
        assert_eq!(
            template.triggers[0].variables.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
            ["order", "user"]
        );
        let flags = template.preference_settings.unwrap();
        assert_eq!(flags.push, Some(true), "no preferences: every channel on");
        let json = serde_json::to_value(&template).unwrap();
        assert_eq!(json["triggers"][0]["type"], "event");
        assert_eq!(json["_notificationGroupId"], json["_environmentId"]);
    }
}
