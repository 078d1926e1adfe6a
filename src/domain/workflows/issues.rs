//! Issues of a step, computed on every save (and on every read, since integrations change):
//! MISSING_VALUE (a required control is empty), ILLEGAL_VARIABLE_IN_CONTROL_VALUE (a `{{ }}` names
//! something templates cannot see) and MISSING_INTEGRATION (no active integration for the channel),
//! and the workflow `status` they yield.

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Map, Value};

use super::variables::{illegal_variable_reason, referenced_variables};
use crate::workflow::controls::missing_controls;
use crate::workflow::StepKind;

/// The issues of one step, in the API's form: `{"controls": {name: [issue]}, "integration": {…}}`;
/// an empty object when the step has none.
pub fn step_issues(
    kind: StepKind,
    controls: &Value,
    payload_schema: Option<&Value>,
    active_channels: &HashSet<String>,
) -> Value {
    let mut by_control: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for control in missing_controls(kind, controls) {
        let issue = json!({"issueType": "MISSING_VALUE", "message": format!("{control} is required")});
        by_control.entry(control.to_string()).or_default().push(issue);
    }
    let mut strings = Vec::new();
    collect_strings(controls, String::new(), &mut strings);
    for (path, text) in strings {
        for variable in referenced_variables(text) {
            if let Some(reason) = illegal_variable_reason(&variable, payload_schema) {
                let issue = json!({"issueType": "ILLEGAL_VARIABLE_IN_CONTROL_VALUE", "variableName": variable, "message": reason});
                by_control.entry(path.clone()).or_default().push(issue);
            }
        }
    }
    let mut issues = Map::new();
    if !by_control.is_empty() {
        issues.insert("controls".into(), json!(by_control));
    }
    if let Some(channel) = kind.channel().filter(|channel| !active_channels.contains(*channel)) {
        let issue = json!({
            "issueType": "MISSING_INTEGRATION",
            "message": format!("No active {channel} integration in this environment")
        });
        issues.insert("integration".into(), json!({ channel: [issue] }));
    }
    Value::Object(issues)
}

/// Whether a step's issues (as made by [`step_issues`]) hold anything.
pub fn has_issues(issues: &Value) -> bool {
    issues.as_object().is_some_and(|issues| !issues.is_empty())
}

/// INACTIVE when not active, ERROR when active with any step issue, ACTIVE otherwise.
pub fn workflow_status<'a>(active: bool, mut step_issues: impl Iterator<Item = &'a Value>) -> &'static str {
    if !active {
        "INACTIVE"
    } else if step_issues.any(has_issues) {
        "ERROR"
    } else {
        "ACTIVE"
    }
}

/// Every string inside the control values with its dotted path, `skip` (JSON Logic, not a template) aside.
fn collect_strings<'a>(value: &'a Value, path: String, found: &mut Vec<(String, &'a str)>) {
    match value {
        Value::String(text) => found.push((path, text)),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                collect_strings(item, format!("{path}[{index}]"), found);
            }
        }
        Value::Object(object) => {
            for (key, item) in object {
                if path.is_empty() && key == "skip" {
                    continue;
                }
                let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                collect_strings(item, child, found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channels(list: &[&str]) -> HashSet<String> {
        list.iter().map(|channel| channel.to_string()).collect()
    }

    fn issue_types(issues: &Value, section: &str, name: &str) -> Vec<String> {
        issues[section][name]
            .as_array()
            .map(|list| list.iter().map(|issue| issue["issueType"].as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn required_controls_per_kind() {
        let all = channels(&["in_app", "email", "sms", "chat", "push"]);
        let in_app = step_issues(StepKind::InApp, &json!({"subject": "Hi"}), None, &all);
        assert_eq!(in_app, json!({}));
        let in_app = step_issues(StepKind::InApp, &json!({"body": " "}), None, &all);
        assert_eq!(issue_types(&in_app, "controls", "body"), ["MISSING_VALUE"]);
        assert_eq!(issue_types(&in_app, "controls", "subject"), ["MISSING_VALUE"]);
        let email = step_issues(StepKind::Email, &json!({"subject": "S"}), None, &all);
        assert_eq!(email["controls"].as_object().unwrap().keys().collect::<Vec<_>>(), ["body"]);
        let delay = step_issues(StepKind::Delay, &json!({"type": "scheduled"}), None, &all);
        assert_eq!(issue_types(&delay, "controls", "delayPath"), ["MISSING_VALUE"]);
        let delay = step_issues(StepKind::Delay, &json!({"type": "regular", "amount": 1, "unit": "days"}), None, &all);
        assert_eq!(delay, json!({}));
        let timed = step_issues(StepKind::Digest, &json!({"type": "timed", "cron": "0 9 * * *"}), None, &all);
        assert_eq!(timed, json!({}));
        let regular = step_issues(StepKind::Digest, &json!({"unit": "hours"}), None, &all);
        assert_eq!(regular["controls"].as_object().unwrap().keys().collect::<Vec<_>>(), ["amount"]);
        let backoff =
            step_issues(StepKind::Digest, &json!({"type": "backoff", "amount": 1, "unit": "hours"}), None, &all);
        assert_eq!(issue_types(&backoff, "controls", "lookBackWindow"), ["MISSING_VALUE"]);
        let custom = step_issues(StepKind::Custom, &json!({}), None, &all);
        assert_eq!(issue_types(&custom, "controls", "url"), ["MISSING_VALUE"]);
    }

    #[test]
    fn illegal_variables_and_missing_integrations() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let controls = json!({
            "body": "{{ payload.name }} {{ payload.secret }} {{ subscriber.firstName }}",
            "primaryAction": {"label": "{{ bogus.value }}"},
            "skip": {"==": [{"var": "{{ not.checked }}"}, 1]}
        });
        let issues = step_issues(StepKind::InApp, &controls, Some(&schema), &channels(&[]));
        assert_eq!(issue_types(&issues, "controls", "body"), ["ILLEGAL_VARIABLE_IN_CONTROL_VALUE"]);
        assert_eq!(issues["controls"]["body"][0]["variableName"], "payload.secret");
        assert_eq!(issue_types(&issues, "controls", "primaryAction.label"), ["ILLEGAL_VARIABLE_IN_CONTROL_VALUE"]);
        assert_eq!(issues["controls"].as_object().unwrap().len(), 2, "skip is not a template");
        assert_eq!(issue_types(&issues, "integration", "in_app"), ["MISSING_INTEGRATION"]);
        let delay = step_issues(
            StepKind::Delay,
            &json!({"type": "regular", "amount": 1, "unit": "days"}),
            None,
            &channels(&[]),
        );
        assert!(!has_issues(&delay), "internal steps need no integration");
    }

    #[test]
    fn status_follows_activity_and_issues() {
        let clean = json!({});
        let broken = json!({"controls": {"body": []}});
        assert_eq!(workflow_status(false, [&broken].into_iter()), "INACTIVE");
        assert_eq!(workflow_status(true, [&clean, &broken].into_iter()), "ERROR");
        assert_eq!(workflow_status(true, [&clean].into_iter()), "ACTIVE");
        assert_eq!(workflow_status(true, std::iter::empty()), "ACTIVE");
    }
}
