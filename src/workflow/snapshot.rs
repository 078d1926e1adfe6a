//! The snapshot of a workflow step a job runs with: the activity API's `JobStep` plus `type`, `stepId`
//! and `shouldStopOnFail` for the engine. It is taken when the trigger is accepted, so later edits of
//! the workflow do not change notifications already under way. A job row holds only its id
//! (`jobs.step_snapshot_id`): equal snapshots share one `step_snapshots` row ([`SharedSnapshot`]).

use std::sync::Arc;

use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::sql_types::Jsonb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use super::columns::jsonb_column;
use super::controls::StepControls;
use super::filters::StepFilter;
use super::kind::JobKind;
use super::metadata::StepMetadata;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, AsExpression, FromSqlRow)]
#[diesel(sql_type = Jsonb)]
#[serde(rename_all = "camelCase")]
pub struct StepSnapshot {
    /// The step's id (the workflow's for the trigger job).
    #[serde(rename = "_id")]
    pub id: Uuid,
    #[serde(rename = "_templateId")]
    pub template_id: Uuid,
    #[serde(rename = "_parentId", default)]
    pub parent_id: Option<Uuid>,
    pub active: bool,
    pub name: String,
    /// The step's `stepId` (none for the trigger job).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    #[serde(rename = "type")]
    pub kind: JobKind,
    #[serde(default)]
    pub filters: Vec<StepFilter>,
    /// The control values as saved (Liquid templates for channel and custom steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_variables: Option<Value>,
    /// Delay and digest steps: their settings in the spec's metadata form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<StepMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issues: Option<Value>,
    #[serde(default)]
    pub should_stop_on_fail: bool,
}
jsonb_column!(StepSnapshot);

impl StepSnapshot {
    /// The trigger job's step: the workflow itself.
    pub fn trigger(workflow_id: Uuid) -> Self {
        Self {
            id: workflow_id,
            template_id: workflow_id,
            parent_id: None,
            active: true,
            name: "trigger".into(),
            step_id: None,
            kind: JobKind::Trigger,
            filters: Vec::new(),
            control_variables: None,
            metadata: None,
            issues: None,
            should_stop_on_fail: false,
        }
    }

    /// The control values the step runs with (`null` for the trigger job).
    pub fn controls(&self) -> &Value {
        self.control_variables.as_ref().unwrap_or(&Value::Null)
    }

    /// The step's controls, typed by its kind; `None` for the trigger job.
    pub fn step_controls(&self) -> Option<StepControls> {
        self.kind.step().map(|kind| StepControls::read(kind, self.controls()))
    }

    /// Whether the step is a delay or digest that waits for the subscriber's schedule.
    pub fn extends_to_schedule(&self) -> bool {
        self.step_controls().is_some_and(|controls| controls.extends_to_schedule())
    }

    /// The step's `stepId`; empty for the trigger job.
    pub fn step_id(&self) -> &str {
        self.step_id.as_deref().unwrap_or_default()
    }
}

/// A snapshot and its id in `step_snapshots`: a UUID v5 of its JSON, so every trigger of one version
/// of a step, in any process, names the same row, and a row never changes (what reads it may cache it
/// for good). Serialized as the snapshot itself (the form topic fan-outs store their templates in).
#[derive(Debug, Clone, PartialEq)]
pub struct SharedSnapshot {
    pub id: Uuid,
    pub step: Arc<StepSnapshot>,
}

impl SharedSnapshot {
    /// The namespace of snapshot ids.
    const NAMESPACE: Uuid = Uuid::from_u128(0x5c1e_4d6e_9a8b_4f0e_8b3a_2d7c_1f6e_0a91);

    pub fn of(step: StepSnapshot) -> Self {
        let json = serde_json::to_vec(&step).expect("a step snapshot serializes");
        Self { id: Uuid::new_v5(&Self::NAMESPACE, &json), step: Arc::new(step) }
    }
}

impl Serialize for SharedSnapshot {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.step.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SharedSnapshot {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        StepSnapshot::deserialize(deserializer).map(Self::of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_snapshots_share_an_id_and_any_difference_makes_another() {
        let workflow_id = Uuid::now_v7();
        let step = StepSnapshot::trigger(workflow_id);
        let again = SharedSnapshot::of(step.clone());
        assert_eq!(SharedSnapshot::of(step.clone()).id, again.id);
        let renamed = StepSnapshot { name: "renamed".into(), ..step };
        assert_ne!(SharedSnapshot::of(renamed).id, again.id);
    }

    #[test]
    fn a_snapshot_read_back_from_its_json_keeps_its_id() {
        let step = StepSnapshot {
            control_variables: Some(serde_json::json!({"body": "Hi {{subscriber.firstName}}", "amount": 2.5})),
            ..StepSnapshot::trigger(Uuid::now_v7())
        };
        let shared = SharedSnapshot::of(step);
        let read: SharedSnapshot = serde_json::from_value(serde_json::to_value(&shared).unwrap()).unwrap();
        assert_eq!(read.id, shared.id);
        assert_eq!(read.step, shared.step);
    }
}
