//! Payload validation against a workflow's `payloadSchema` (when `validatePayload` is on): schema
//! defaults are filled in first, then every violation is reported at once as a 400
//! `PAYLOAD_VALIDATION_ERROR`.

use jsonschema::paths::LocationSegment;
use serde_json::Value;

use crate::error::{AppError, AppResult, PayloadError};

/// `payload` with the schema's defaults filled in, or every way it fails the schema.
pub fn validate_payload(schema: &Value, mut payload: Value) -> AppResult<Value> {
    fill_defaults(schema, &mut payload);
    // The schema was meta-validated when the workflow was saved; one that still fails to compile
    // (a remote $ref, say) is the workflow's fault, reported to the caller rather than a 500.
    let validator = jsonschema::validator_for(schema)
        .map_err(|error| AppError::BadRequest(format!("The workflow's payloadSchema cannot be used: {error}")))?;
    let errors: Vec<PayloadError> = validator
        .iter_errors(&payload)
        .map(|error| PayloadError {
            field: dotted_path(error.instance_path().iter()),
            message: error.to_string(),
            value: error.instance().clone().into_owned(),
        })
        .collect();
    if errors.is_empty() {
        Ok(payload)
    } else {
        Err(AppError::PayloadValidation(errors))
    }
}

fn dotted_path<'a>(segments: impl Iterator<Item = LocationSegment<'a>>) -> String {
    segments
        .map(|segment| match segment {
            LocationSegment::Property(name) => name.to_string(),
            LocationSegment::Index(index) => index.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Writes `default` of every absent property declared under `properties`, recursively into
/// objects that exist (or were just defaulted). Arrays and combinators (`allOf`, …) are left alone.
fn fill_defaults(schema: &Value, value: &mut Value) {
    let (Some(properties), Value::Object(fields)) = (schema.get("properties").and_then(Value::as_object), value) else {
        return;
    };
    for (name, property) in properties {
        if !fields.contains_key(name) {
            if let Some(default) = property.get("default") {
                fields.insert(name.clone(), default.clone());
            }
        }
        if let Some(nested) = fields.get_mut(name) {
            fill_defaults(property, nested);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "required": ["orderId"],
            "properties": {
                "orderId": {"type": "string"},
                "count": {"type": "integer", "default": 1},
                "shipping": {
                    "type": "object",
                    "default": {},
                    "properties": {"speed": {"type": "string", "default": "standard"}}
                },
                "items": {"type": "array", "items": {"type": "number"}}
            }
        })
    }

    #[test]
    fn defaults_are_filled_in_recursively_and_sent_values_kept() {
        let payload = validate_payload(&schema(), json!({"orderId": "o1", "count": 3})).unwrap();
        assert_eq!(payload, json!({"orderId": "o1", "count": 3, "shipping": {"speed": "standard"}}));
    }

    #[test]
    fn every_violation_is_reported_with_its_path_and_value() {
        let Err(AppError::PayloadValidation(errors)) =
            validate_payload(&schema(), json!({"count": "many", "items": [1, "x"]}))
        else {
            panic!("payload validation error expected")
        };
        let fields: Vec<(&str, &Value)> = errors.iter().map(|e| (e.field.as_str(), &e.value)).collect();
        assert_eq!(fields.len(), 3, "{errors:?}");
        assert!(fields.contains(&("count", &json!("many"))));
        assert!(fields.contains(&("items.1", &json!("x"))));
        assert!(errors.iter().any(|e| e.field.is_empty() && e.message.contains("orderId")));
    }
}
