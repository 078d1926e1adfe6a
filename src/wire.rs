//! The wire forms both transports and the stored JSON share: the contract's timestamps, and
//! free-form JSON objects as `google.protobuf.Struct` and back.

use chrono::{DateTime, SecondsFormat, Utc};

/// The contract's timestamp form: RFC 3339, UTC, milliseconds, `Z` (`2026-11-21T10:00:00.000Z`).
pub fn format_timestamp(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A `google.protobuf.Struct` as the JSON object it carries (stored as jsonb), whole numbers as integers.
pub fn struct_to_json(value: &pbjson_types::Struct) -> serde_json::Value {
    integral_numbers(serde_json::to_value(value).expect("a protobuf Struct is always valid JSON"))
}

/// `google.protobuf.Struct` keeps every number as a double, so a client's `3` would read back as
/// `3.0`; whole numbers become integers again, as the client sent them.
pub fn integral_numbers(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 9.0e15 => Value::from(float as i64),
            _ => Value::Number(number),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(integral_numbers).collect()),
        Value::Object(object) => Value::Object(object.into_iter().map(|(k, v)| (k, integral_numbers(v))).collect()),
        other => other,
    }
}

/// A JSON object as a `google.protobuf.Struct`; anything but an object yields `None`.
pub fn json_to_struct(value: serde_json::Value) -> Option<pbjson_types::Struct> {
    match value {
        serde_json::Value::Object(_) => serde_json::from_value(value).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn whole_doubles_become_integers_and_fractions_stay() {
        let value = super::integral_numbers(json!({ "a": 3.0, "b": [1.5, -2.0, { "c": 0.0 }], "d": "3.0", "e": 7 }));
        assert_eq!(value.to_string(), r#"{"a":3,"b":[1.5,-2,{"c":0}],"d":"3.0","e":7}"#);
    }
}
