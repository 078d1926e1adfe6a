//! A delay or digest step's settings in the spec's four metadata forms: the `metadata` of a step in a
//! workflow's template form and in the activity API's job step.

use serde::{Deserialize, Serialize};

use super::columns::named_enum;
use super::controls::{DelayControls, DigestControls, DigestType, StepControls, TimeUnit};

named_enum! {
    /// Which of the four forms a step's metadata takes.
    pub enum MetadataForm ("metadata type") {
        /// A fixed-window digest or a fixed-duration delay.
        Regular = "regular",
        Backoff = "backoff",
        Timed = "timed",
        /// A delay until a date read from the payload.
        Scheduled = "scheduled",
    }
}

/// The settings of a delay or digest step; fields not of its form are absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepMetadata {
    #[serde(rename = "type")]
    pub form: MetadataForm,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<TimeUnit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_amount: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_unit: Option<TimeUnit>,
    /// A timed digest's schedule (shown empty: its parts are in the controls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed: Option<TimedSettings>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_path: Option<String>,
}

/// The `timed` object of a timed digest's metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TimedSettings {}

impl StepMetadata {
    /// The metadata of a step with these controls; `None` unless it is a delay or a digest.
    pub fn of(controls: &StepControls) -> Option<Self> {
        match controls {
            StepControls::Delay(delay) => Some(Self::of_delay(delay)),
            StepControls::Digest(digest) => Some(Self::of_digest(digest)),
            StepControls::Channel(_) | StepControls::Custom(_) => None,
        }
    }

    fn empty(form: MetadataForm) -> Self {
        Self {
            form,
            amount: None,
            unit: None,
            digest_key: None,
            backoff: None,
            backoff_amount: None,
            backoff_unit: None,
            timed: None,
            delay_path: None,
        }
    }

    fn of_delay(delay: &DelayControls) -> Self {
        if delay.is_scheduled() {
            return Self { delay_path: delay.delay_path.clone(), ..Self::empty(MetadataForm::Scheduled) };
        }
        Self { amount: delay.amount, unit: delay.unit, ..Self::empty(MetadataForm::Regular) }
    }

    fn of_digest(digest: &DigestControls) -> Self {
        let base = Self {
            amount: digest.amount,
            unit: digest.unit,
            digest_key: digest.digest_key.clone(),
            ..Self::empty(MetadataForm::Regular)
        };
        match digest.form() {
            DigestType::Timed => Self { timed: Some(TimedSettings {}), ..Self { form: MetadataForm::Timed, ..base } },
            DigestType::Regular => Self { backoff: Some(false), ..base },
            DigestType::Backoff => {
                let window = digest.look_back().unwrap_or_default();
                Self {
                    form: MetadataForm::Backoff,
                    backoff: Some(true),
                    backoff_amount: window.amount,
                    backoff_unit: window.unit,
                    ..base
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::workflow::StepKind;

    fn metadata(kind: StepKind, controls: serde_json::Value) -> serde_json::Value {
        serde_json::to_value(StepMetadata::of(&StepControls::read(kind, &controls))).unwrap()
    }

    #[test]
    fn each_form_shows_only_its_own_fields() {
        assert_eq!(
            metadata(
                StepKind::Delay,
                json!({"type": "regular", "amount": 5, "unit": "minutes", "extendToSchedule": true})
            ),
            json!({"type": "regular", "amount": 5, "unit": "minutes"})
        );
        assert_eq!(
            metadata(StepKind::Delay, json!({"type": "scheduled", "delayPath": "sendAt", "amount": 5})),
            json!({"type": "scheduled", "delayPath": "sendAt"})
        );
        assert_eq!(
            metadata(
                StepKind::Digest,
                json!({"type": "regular", "amount": 5, "unit": "minutes", "digestKey": "orderId"})
            ),
            json!({"type": "regular", "amount": 5, "unit": "minutes", "digestKey": "orderId", "backoff": false})
        );
        assert_eq!(
            metadata(
                StepKind::Digest,
                json!({"type": "backoff", "amount": 5, "unit": "minutes", "lookBackWindow": {"amount": 1, "unit": "hours"}})
            ),
            json!({"type": "backoff", "amount": 5, "unit": "minutes", "backoff": true, "backoffAmount": 1, "backoffUnit": "hours"})
        );
        assert_eq!(
            metadata(StepKind::Digest, json!({"type": "timed", "cron": "0 9 * * 1"})),
            json!({"type": "timed", "timed": {}})
        );
        assert_eq!(metadata(StepKind::Email, json!({"subject": "s", "body": "b"})), serde_json::Value::Null);
    }
}
