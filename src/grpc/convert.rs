//! Conversions shared by every service.

use chrono::{DateTime, SecondsFormat, Utc};

/// The contract's timestamp form: RFC 3339, UTC, milliseconds, `Z` (`2026-11-21T10:00:00.000Z`).
pub fn format_timestamp(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A `google.protobuf.Struct` as the JSON object it carries (stored as jsonb).
pub fn struct_to_json(value: &pbjson_types::Struct) -> serde_json::Value {
    serde_json::to_value(value).expect("a protobuf Struct is always valid JSON")
}

/// A JSON object as a `google.protobuf.Struct`; anything but an object yields `None`.
pub fn json_to_struct(value: serde_json::Value) -> Option<pbjson_types::Struct> {
    match value {
        serde_json::Value::Object(_) => serde_json::from_value(value).ok(),
        _ => None,
    }
}

/// Parses an internal `_id`. Ids that are not ours cannot name anything, so callers answer 404.
pub fn parse_id(text: &str) -> Option<uuid::Uuid> {
    uuid::Uuid::parse_str(text).ok()
}
