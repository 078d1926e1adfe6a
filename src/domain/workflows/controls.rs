//! Per step kind, the JSON Schema of its controls (`dataSchema`) and its UI hints
//! (`uiSchema`). Control values are validated against the data schema for their types; required
//! controls left empty are not a 422 but a MISSING_VALUE issue (see `issues`), so drafts can be saved.

use serde_json::{json, Value};

use crate::workflow::{StepKind, TimeUnit};

/// Day names of a timed digest's `weekDays`.
const WEEK_DAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// What a timed digest's monthly `ordinal` counts.
const ORDINAL_VALUES: [&str; 10] =
    ["day", "weekday", "weekend", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

fn unit_schema() -> Value {
    let units: Vec<&str> = TimeUnit::ALL.iter().map(|unit| unit.as_str()).collect();
    json!({ "type": "string", "enum": units })
}

fn amount_schema() -> Value {
    json!({ "type": "integer", "minimum": 1 })
}

fn redirect_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "url": { "type": "string" },
            "target": { "type": "string", "enum": ["_self", "_blank", "_parent", "_top", "_unfencedTop"] }
        },
        "additionalProperties": false
    })
}

fn action_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "label": { "type": "string" }, "redirect": redirect_schema() },
        "additionalProperties": false
    })
}

/// The JSON Schema of a kind's control values. Every kind also accepts `skip`, a JSON Logic
/// object that skips the step when it evaluates to true.
pub fn data_schema(kind: StepKind) -> Value {
    let (properties, required) = match kind {
        StepKind::InApp => (
            json!({
                "subject": { "type": "string" },
                "body": { "type": "string" },
                "avatar": {
                    "type": "string",
                    "pattern": r"^(https?://\S+|/.*|.*\{\{.*\}\}.*)$",
                    "description": "A URL, a path starting with /, or a {{ variable }}"
                },
                "primaryAction": action_schema(),
                "secondaryAction": action_schema(),
                "redirect": redirect_schema(),
                "disableOutputSanitization": { "type": "boolean" },
                "data": { "type": "object" }
            }),
            json!([]),
        ),
        StepKind::Email => (
            json!({
                "subject": { "type": "string" },
                "body": { "type": "string" },
                "editorType": { "type": "string", "enum": ["block", "html"] },
                "disableOutputSanitization": { "type": "boolean" },
                "layoutId": { "type": ["string", "null"] }
            }),
            json!(["subject", "body"]),
        ),
        StepKind::Sms | StepKind::Chat => (json!({ "body": { "type": "string" } }), json!(["body"])),
        StepKind::Push => {
            (json!({ "subject": { "type": "string" }, "body": { "type": "string" } }), json!(["subject", "body"]))
        }
        StepKind::Delay => (
            json!({
                "type": { "type": "string", "enum": ["regular", "scheduled"] },
                "amount": amount_schema(),
                "unit": unit_schema(),
                "delayPath": { "type": "string" },
                "extendToSchedule": { "type": "boolean" }
            }),
            json!(["type"]),
        ),
        StepKind::Digest => (
            json!({
                "type": { "type": "string", "enum": ["regular", "backoff", "timed"], "default": "regular" },
                "amount": amount_schema(),
                "unit": unit_schema(),
                "digestKey": { "type": "string" },
                "lookBackWindow": {
                    "type": "object",
                    "properties": { "amount": amount_schema(), "unit": unit_schema() },
                    "required": ["amount", "unit"],
                    "additionalProperties": false
                },
                "cron": { "type": "string", "pattern": r"^\s*\S+(\s+\S+){4,5}\s*$" },
                "timed": {
                    "type": "object",
                    "properties": {
                        "atTime": { "type": "string" },
                        "weekDays": { "type": "array", "items": { "enum": WEEK_DAYS } },
                        "monthDays": { "type": "array", "items": { "type": ["string", "integer"] } },
                        "ordinal": { "enum": ["1", "2", "3", "4", "5", "last"] },
                        "ordinalValue": { "enum": ORDINAL_VALUES },
                        "monthlyType": { "enum": ["each", "on"] }
                    }
                },
                "extendToSchedule": { "type": "boolean" }
            }),
            json!([]),
        ),
        StepKind::Custom => (
            json!({
                "url": { "type": "string", "pattern": r"^(https?://\S+|.*\{\{.*\}\}.*)$" },
                "headers": { "type": "object", "additionalProperties": { "type": "string" } }
            }),
            json!(["url"]),
        ),
    };
    let mut properties = properties;
    properties["skip"] = json!({ "type": "object", "description": "JSON Logic: the step is skipped when it is true" });
    let mut schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": true
    });
    // What else is required depends on the delay or digest type.
    let conditional = match kind {
        StepKind::Delay => Some(("scheduled", json!(["delayPath"]), json!(["amount", "unit"]))),
        StepKind::Digest => Some(("timed", json!(["cron"]), json!(["amount", "unit"]))),
        _ => None,
    };
    if let Some((variant, then_required, else_required)) = conditional {
        schema["if"] = json!({ "properties": { "type": { "const": variant } }, "required": ["type"] });
        schema["then"] = json!({ "required": then_required });
        schema["else"] = json!({ "required": else_required });
    }
    schema
}

fn component(name: &str) -> Value {
    json!({ "component": name })
}

fn with_placeholder(name: &str, placeholder: Value) -> Value {
    json!({ "component": name, "placeholder": placeholder })
}

/// UI hints of a kind's controls, with the spec's component names.
pub fn ui_schema(kind: StepKind) -> Value {
    let (group, mut properties) = match kind {
        StepKind::InApp => (
            Some("IN_APP"),
            json!({
                "subject": component("IN_APP_PRIMARY_SUBJECT"),
                "body": component("IN_APP_BODY"),
                "avatar": component("IN_APP_AVATAR"),
                "primaryAction": component("IN_APP_BUTTON_DROPDOWN"),
                "secondaryAction": component("IN_APP_BUTTON_DROPDOWN"),
                "redirect": {
                    "component": "URL_TEXT_BOX",
                    "properties": {
                        "url": with_placeholder("URL_TEXT_BOX", json!("")),
                        "target": with_placeholder("URL_TEXT_BOX", json!("_self"))
                    }
                },
                "disableOutputSanitization": with_placeholder("IN_APP_DISABLE_SANITIZATION_SWITCH", json!(false)),
                "data": with_placeholder("DATA", json!({}))
            }),
        ),
        StepKind::Email => (
            Some("EMAIL"),
            json!({
                "subject": component("TEXT_INLINE_LABEL"),
                "body": component("EMAIL_BODY"),
                "editorType": with_placeholder("EMAIL_EDITOR_SELECT", json!("block")),
                "layoutId": component("LAYOUT_SELECT"),
                "disableOutputSanitization": with_placeholder("DISABLE_SANITIZATION_SWITCH", json!(false))
            }),
        ),
        StepKind::Sms => (Some("SMS"), json!({ "body": component("SMS_BODY") })),
        StepKind::Chat => (Some("CHAT"), json!({ "body": component("CHAT_BODY") })),
        StepKind::Push => {
            (Some("PUSH"), json!({ "subject": component("PUSH_SUBJECT"), "body": component("PUSH_BODY") }))
        }
        StepKind::Delay => (
            Some("DELAY"),
            json!({
                "type": with_placeholder("DELAY_TYPE", json!("regular")),
                "amount": with_placeholder("DELAY_AMOUNT", json!(30)),
                "unit": with_placeholder("DELAY_UNIT", json!("seconds")),
                "delayPath": component("TEXT_FULL_LINE"),
                "extendToSchedule": with_placeholder("EXTEND_TO_SCHEDULE", json!(false))
            }),
        ),
        StepKind::Digest => (
            Some("DIGEST"),
            json!({
                "type": with_placeholder("TEXT_INLINE_LABEL", json!("regular")),
                "amount": with_placeholder("DIGEST_AMOUNT", json!(30)),
                "unit": with_placeholder("DIGEST_UNIT", json!("seconds")),
                "digestKey": component("DIGEST_KEY"),
                "cron": component("DIGEST_CRON"),
                // The timed schedule in parts, the alternative to `cron`.
                "timed": component("DIGEST_CRON"),
                "lookBackWindow": {
                    "component": "DIGEST_AMOUNT",
                    "properties": {
                        "amount": with_placeholder("DIGEST_AMOUNT", json!(5)),
                        "unit": with_placeholder("DIGEST_UNIT", json!("minutes"))
                    }
                },
                "extendToSchedule": with_placeholder("EXTEND_TO_SCHEDULE", json!(false))
            }),
        ),
        StepKind::Custom => {
            (None, json!({ "url": component("URL_TEXT_BOX"), "headers": with_placeholder("DATA", json!({})) }))
        }
    };
    properties["skip"] = component("QUERY_EDITOR");
    let mut schema = json!({ "properties": properties });
    if let Some(group) = group {
        schema["group"] = json!(group);
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_valid_data_schema_and_hints_for_each_control() {
        for &kind in StepKind::ALL {
            let schema = data_schema(kind);
            assert!(jsonschema::meta::validate(&schema).is_ok(), "{kind:?}");
            let hinted = ui_schema(kind)["properties"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
            for control in schema["properties"].as_object().unwrap().keys() {
                assert!(hinted.contains(control), "{kind:?} has no hint for {control}");
            }
        }
    }

    #[test]
    fn data_schemas_reject_wrong_types() {
        let delay = jsonschema::validator_for(&data_schema(StepKind::Delay)).unwrap();
        assert!(delay.is_valid(&json!({"type": "regular", "amount": 5, "unit": "minutes"})));
        assert!(delay.is_valid(&json!({"type": "scheduled", "delayPath": "sendAt"})));
        assert!(!delay.is_valid(&json!({"type": "scheduled"})), "documents delayPath as required");
        assert!(!delay.is_valid(&json!({"amount": "abc"})));
        assert!(!delay.is_valid(&json!({"unit": "fortnights"})));
        let in_app = jsonschema::validator_for(&data_schema(StepKind::InApp)).unwrap();
        assert!(in_app.is_valid(&json!({"avatar": "{{ subscriber.avatar }}"})));
        assert!(in_app.is_valid(&json!({"avatar": "https://cdn.acme.io/a.png"})));
        assert!(!in_app.is_valid(&json!({"avatar": "not a url"})));
        let digest = jsonschema::validator_for(&data_schema(StepKind::Digest)).unwrap();
        assert!(digest.is_valid(&json!({"type": "timed", "cron": "0 9 * * 1"})));
        assert!(!digest.is_valid(&json!({"cron": "every monday"})));
    }
}
