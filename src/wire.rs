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
        Value::Number(number) => match number.as_f64().filter(|_| number.is_f64()).and_then(whole_number) {
            Some(whole) => Value::from(whole),
            None => Value::Number(number),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(integral_numbers).collect()),
        Value::Object(object) => Value::Object(object.into_iter().map(|(k, v)| (k, integral_numbers(v))).collect()),
        other => other,
    }
}

/// The JSON of `value` as [`integral_numbers`] would leave it, written straight from `value`: a REST
/// answer of 1,000 messages was copied into a `Value` and rebuilt before it was written, three copies
/// of it alive at once.
pub fn to_json_with_integral_numbers<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(256);
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut bytes, IntegralNumbers))?;
    Ok(bytes)
}

/// serde_json's compact form, whole doubles written as integers.
struct IntegralNumbers;

impl serde_json::ser::Formatter for IntegralNumbers {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f64) -> std::io::Result<()> {
        match whole_number(value) {
            Some(whole) => self.write_i64(writer, whole),
            None => serde_json::ser::CompactFormatter.write_f64(writer, value),
        }
    }

    fn write_f32<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f32) -> std::io::Result<()> {
        match whole_number(value.into()) {
            Some(whole) => self.write_i64(writer, whole),
            None => serde_json::ser::CompactFormatter.write_f32(writer, value),
        }
    }
}

/// `value` as an integer when it is a whole number a double holds exactly.
fn whole_number(value: f64) -> Option<i64> {
    (value.fract() == 0.0 && value.abs() < 9.0e15).then_some(value as i64)
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

    #[test]
    fn written_straight_whole_doubles_become_integers_and_the_rest_stays() {
        #[derive(serde::Serialize)]
        struct Reading {
            whole: f64,
            fraction: f64,
            huge: f64,
            small: f32,
            count: u32,
        }
        let document = json!({ "a": 3.0, "b": [1.5, -2.0, { "c": 0.0 }], "d": "3.0", "e": 7, "f": null });
        let written = super::to_json_with_integral_numbers(&document).unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), r#"{"a":3,"b":[1.5,-2,{"c":0}],"d":"3.0","e":7,"f":null}"#);
        let reading = Reading { whole: 42.0, fraction: 0.25, huge: 1.0e16, small: 2.0, count: 5 };
        let written = super::to_json_with_integral_numbers(&reading).unwrap();
        assert_eq!(
            String::from_utf8(written).unwrap(),
            r#"{"whole":42,"fraction":0.25,"huge":1e+16,"small":2,"count":5}"#
        );
    }
}
