//! What templates may use: the `variables` JSON Schema of a step (payload from `payloadSchema`,
//! subscriber fields, the step context, actor and tenant), the `{{ … }}` references found in control
//! values, and the `payloadExample` generated from `payloadSchema`.

use serde_json::{json, Map, Value};

/// Subscriber fields a template may read (`subscriber.data.*` is free-form).
pub const SUBSCRIBER_FIELDS: [&str; 9] =
    ["subscriberId", "firstName", "lastName", "email", "phone", "avatar", "locale", "timezone", "data"];

/// What a step sees of earlier digest steps: `step.digest`, `step.events`, `step.total_count`.
pub const STEP_FIELDS: [&str; 3] = ["digest", "events", "total_count"];

fn subscriber_schema() -> Value {
    let mut properties = Map::new();
    for field in SUBSCRIBER_FIELDS {
        let schema = if field == "data" {
            json!({"type": "object", "additionalProperties": true})
        } else {
            json!({"type": "string"})
        };
        properties.insert(field.to_string(), schema);
    }
    json!({ "type": "object", "properties": properties, "required": ["subscriberId"], "additionalProperties": false })
}

/// The `variables` schema of every step of a workflow with this payload schema.
pub fn variables_schema(payload_schema: Option<&Value>) -> Value {
    let payload = payload_schema.cloned().unwrap_or_else(|| json!({"type": "object", "additionalProperties": true}));
    json!({
        "type": "object",
        "properties": {
            "subscriber": subscriber_schema(),
            "payload": payload,
            "step": {
                "type": "object",
                "properties": {
                    "digest": {
                        "type": "object",
                        "properties": { "eventCount": { "type": "integer" }, "events": { "type": "array" } }
                    },
                    "events": { "type": "array", "items": { "type": "object" } },
                    "total_count": { "type": "integer" }
                },
                "additionalProperties": false
            },
            "actor": subscriber_schema(),
            "tenant": {
                "type": "object",
                "properties": {
                    "identifier": { "type": "string" },
                    "name": { "type": "string" },
                    "data": { "type": "object", "additionalProperties": true }
                }
            }
        },
        "additionalProperties": false
    })
}

/// Every `{{ expression }}` variable path in `text`, without filters (`payload.name | upcase` →
/// `payload.name`). Literals (`{{ 'text' }}`, `{{ 3 }}`) are not variables and are left out.
pub fn referenced_variables(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let expression = after[..end].split('|').next().unwrap_or_default().trim();
        let is_variable = expression.chars().next().is_some_and(|first| first.is_alphabetic() || first == '_');
        if is_variable {
            found.push(expression.to_string());
        }
        rest = &after[end + 2..];
    }
    found
}

/// The segments of a variable path: `payload.items[0].name` → `payload`, `items`, `name`.
pub fn path_segments(variable: &str) -> Vec<&str> {
    variable
        .split(['.', '['])
        .map(|segment| segment.trim_end_matches(']').trim())
        .filter(|segment| !segment.is_empty() && !segment.chars().all(|c| c.is_ascii_digit() || c == '\'' || c == '"'))
        .collect()
}

/// Whether a template may use `variable`, given the payload schema; `None` when it may, else why not.
pub fn illegal_variable_reason(variable: &str, payload_schema: Option<&Value>) -> Option<String> {
    let segments = path_segments(variable);
    let (root, key) = (segments.first().copied().unwrap_or_default(), segments.get(1).copied());
    match root {
        "payload" => {
            let declared = payload_schema.and_then(|schema| schema.get("properties")).and_then(Value::as_object);
            match (declared, key) {
                (Some(properties), Some(key)) if !properties.contains_key(key) => {
                    Some(format!("Variable {variable} is not declared in the payload schema"))
                }
                _ => None,
            }
        }
        "subscriber" | "actor" => match key {
            Some(key) if !SUBSCRIBER_FIELDS.contains(&key) => {
                Some(format!("Variable {variable} is not a {root} field ({})", SUBSCRIBER_FIELDS.join(", ")))
            }
            _ => None,
        },
        "step" => match key {
            Some(key) if !STEP_FIELDS.contains(&key) => {
                Some(format!("Variable {variable} is not in the step context ({})", STEP_FIELDS.join(", ")))
            }
            _ => None,
        },
        "tenant" => None,
        _ => Some(format!("Variable {variable} is not available: use payload, subscriber, step, actor or tenant")),
    }
}

/// An example payload for `schema`: `default`, `const`, `examples[0]` or the first `enum` value where the
/// schema gives one, otherwise a placeholder of the right type (a string names its property).
pub fn payload_example(schema: &Value) -> Value {
    example(schema, "value", 0)
}

fn example(schema: &Value, name: &str, depth: usize) -> Value {
    for given in ["default", "const"] {
        if let Some(value) = schema.get(given) {
            return value.clone();
        }
    }
    if let Some(first) = schema.get("examples").and_then(Value::as_array).and_then(|values| values.first()) {
        return first.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|values| values.first()) {
        return first.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" if depth < 8 => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let object: Map<String, Value> = properties
                .into_iter()
                .flatten()
                .map(|(key, property)| (key.clone(), example(property, key, depth + 1)))
                .collect();
            Value::Object(object)
        }
        "object" => json!({}),
        "array" if depth < 8 => match schema.get("items") {
            Some(items) if items.is_object() => json!([example(items, name, depth + 1)]),
            _ => json!([]),
        },
        "array" => json!([]),
        "integer" | "number" => json!(0),
        "boolean" => json!(false),
        "null" => Value::Null,
        _ => match schema.get("format").and_then(Value::as_str) {
            Some("email") => json!("user@example.com"),
            Some("date-time") => json!("2026-01-01T00:00:00.000Z"),
            Some("date") => json!("2026-01-01"),
            Some("uri" | "url") => json!("https://example.com"),
            _ => json!(name),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_variables_without_filters_or_literals() {
        let text = "Hi {{ subscriber.firstName | default: 'there' }}, {{payload.order.id}} {{ 'x' }} {{ 3 }} {{ broken";
        assert_eq!(referenced_variables(text), ["subscriber.firstName", "payload.order.id"]);
        assert_eq!(path_segments("payload.items[0].name"), ["payload", "items", "name"]);
    }

    #[test]
    fn decides_which_variables_are_legal() {
        let schema = json!({"type": "object", "properties": {"order": {"type": "object"}}});
        assert_eq!(illegal_variable_reason("payload.order.id", Some(&schema)), None);
        assert!(illegal_variable_reason("payload.invoice", Some(&schema)).is_some());
        assert_eq!(illegal_variable_reason("payload.anything", None), None);
        assert_eq!(illegal_variable_reason("subscriber.data.plan", None), None);
        assert!(illegal_variable_reason("subscriber.password", None).is_some());
        assert_eq!(illegal_variable_reason("step.events", None), None);
        assert!(illegal_variable_reason("step.secret", None).is_some());
        assert!(illegal_variable_reason("secrets.key", None).is_some());
        assert_eq!(illegal_variable_reason("tenant.name", None), None);
    }

    #[test]
    fn examples_follow_defaults_formats_and_types() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "email": {"type": "string", "format": "email"},
                "plan": {"type": "string", "enum": ["pro", "free"]},
                "count": {"type": "integer", "default": 3},
                "tags": {"type": "array", "items": {"type": "string"}},
                "paid": {"type": "boolean"},
                "address": {"properties": {"city": {"type": "string", "examples": ["Lyon"]}}}
            }
        });
        assert_eq!(
            payload_example(&schema),
            json!({"name": "name", "email": "user@example.com", "plan": "pro", "count": 3, "tags": ["tags"],
                   "paid": false, "address": {"city": "Lyon"}})
        );
    }
}
