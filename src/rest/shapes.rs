//! REST-only touches to the proto JSON that several resources share: spec fields that are "string
//! or null" are written as `null` when unset, so strict generated clients always find them.

use serde_json::Value;

use crate::error::AppError;
use crate::proto::herald::v1 as pb;

/// Spec fields of a Subscriber that are "string or null" (or boolean/object or null).
pub const NULLABLE_SUBSCRIBER_FIELDS: [&str; 10] =
    ["firstName", "lastName", "email", "phone", "avatar", "locale", "isOnline", "lastOnlineAt", "data", "timezone"];

/// Writes `null` for each of `fields` missing from `json` (an object; anything else is left alone).
pub fn fill_nulls(json: &mut Value, fields: &[&str]) {
    if let Value::Object(object) = json {
        for field in fields {
            object.entry(*field).or_insert(Value::Null);
        }
    }
}

/// Fills the nullable fields of a subscriber already in JSON form.
pub fn fill_subscriber_nulls(json: &mut Value) {
    fill_nulls(json, &NULLABLE_SUBSCRIBER_FIELDS);
}

/// The REST shape of a subscriber: the proto's JSON with its nullable fields present.
pub fn subscriber_json(subscriber: Option<pb::Subscriber>) -> Result<Value, AppError> {
    let mut json = serde_json::to_value(subscriber).map_err(AppError::internal)?;
    fill_subscriber_nulls(&mut json);
    Ok(json)
}
