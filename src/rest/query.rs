//! Lenient query-string parsing, the way generated clients send parameters: `limit=2` and
//! `limit=2.0` are both 2; an array parameter may be one value, repeated keys (`a=1&a=2`) or
//! bracketed keys (`a[]=1&a[]=2`); booleans are `true`/`false`; unknown parameters are ignored.
//! A value that cannot be read is a 422 naming the parameter: the readers return a [`FieldError`],
//! which `?` turns into that 422, or a [`Validator`](crate::domain::validation::Validator) collects
//! with the failures of the other parameters.

use axum::extract::{FromRequestParts, RawQuery};
use http::request::Parts;
use serde_json::Value;

use crate::error::{AppError, FieldError};

/// What [`QueryParams::int32`] does with a whole number beyond the `i32` range.
#[derive(Debug, Clone, Copy)]
pub enum OutOfRange {
    /// Clamps it to the range, so that the range check downstream reports it.
    Clamp,
    /// Refuses it here with this message (naming the value as sent).
    Refuse(&'static str),
}

/// Every `key=value` pair of the query string, in order.
#[derive(Debug, Default, Clone)]
pub struct QueryParams {
    pairs: Vec<(String, String)>,
}

impl<S: Send + Sync> FromRequestParts<S> for QueryParams {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let RawQuery(raw) = RawQuery::from_request_parts(parts, state).await.unwrap_or(RawQuery(None));
        let query = Self::parse(raw.as_deref().unwrap_or(""));
        // Refused here for every parameter, as the database refuses it wherever a value reaches it.
        if query.pairs.iter().any(|(key, value)| key.contains('\0') || value.contains('\0')) {
            return Err(AppError::BadRequest("Text must not contain NUL (\\u0000) characters".into()));
        }
        Ok(query)
    }
}

impl QueryParams {
    /// Parses a raw query string (without the `?`).
    pub fn parse(raw: &str) -> Self {
        let pairs = form_urlencoded::parse(raw.as_bytes())
            .map(|(key, value)| {
                let key = key.strip_suffix("[]").unwrap_or(&key).to_string();
                (key, value.into_owned())
            })
            .collect();
        Self { pairs }
    }

    /// The last value of `key`, if present.
    pub fn string(&self, key: &str) -> Option<String> {
        self.pairs.iter().rev().find(|(name, _)| name == key).map(|(_, value)| value.clone())
    }

    /// Every value of `key`; a single comma-free value is a one-element list.
    pub fn list(&self, key: &str) -> Vec<String> {
        self.pairs.iter().filter(|(name, _)| name == key).map(|(_, value)| value.clone()).collect()
    }

    /// `key` as a whole number; `2.0` reads as 2, `2.5` or `two` is a 422.
    pub fn integer(&self, key: &str) -> Result<Option<i64>, FieldError> {
        let Some(text) = self.string(key) else { return Ok(None) };
        let parsed = text.trim().parse::<f64>().ok().filter(|number| number.fract() == 0.0 && number.is_finite());
        match parsed {
            Some(number) => Ok(Some(number as i64)),
            None => Err(FieldError::new(key, format!("{key} must be a whole number"), Value::String(text))),
        }
    }

    /// `key` as a whole number in `i32` range; `out_of_range` decides about values beyond it.
    pub fn int32(&self, key: &str, out_of_range: OutOfRange) -> Result<Option<i32>, FieldError> {
        let Some(number) = self.integer(key)? else { return Ok(None) };
        match (i32::try_from(number), out_of_range) {
            (Ok(number), _) => Ok(Some(number)),
            (Err(_), OutOfRange::Clamp) => Ok(Some(number.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)),
            (Err(_), OutOfRange::Refuse(message)) => Err(FieldError::new(key, message, number)),
        }
    }

    /// Every value of the array parameter `key` read by `parse` (a closed set of names); values
    /// outside the set are a 422 naming them and the `accepted` names.
    pub fn names<T>(
        &self,
        key: &str,
        accepted: &[&str],
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Vec<T>, FieldError> {
        let values = self.list(key);
        let unknown: Vec<&String> = values.iter().filter(|value| parse(value).is_none()).collect();
        if !unknown.is_empty() {
            let message = format!("{key} must be among {}", accepted.join(", "));
            return Err(FieldError::new(key, message, serde_json::json!(unknown)));
        }
        Ok(values.iter().filter_map(|value| parse(value)).collect())
    }

    /// `key` as a boolean (`true` or `false`).
    pub fn boolean(&self, key: &str) -> Result<Option<bool>, FieldError> {
        match self.string(key).as_deref() {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(FieldError::new(key, format!("{key} must be true or false"), other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::validation::Validator;

    #[test]
    fn numbers_may_carry_a_zero_fraction() {
        let query = QueryParams::parse("limit=2.0&page=3");
        assert_eq!(query.integer("limit").unwrap(), Some(2));
        assert_eq!(query.integer("page").unwrap(), Some(3));
        assert_eq!(query.integer("absent").unwrap(), None);
        assert!(QueryParams::parse("limit=2.5").integer("limit").is_err());
        assert!(QueryParams::parse("limit=ten").integer("limit").is_err());
    }

    #[test]
    fn arrays_accept_single_repeated_and_bracketed_keys() {
        assert_eq!(QueryParams::parse("a=1").list("a"), ["1"]);
        assert_eq!(QueryParams::parse("a=1&b=x&a=2").list("a"), ["1", "2"]);
        assert_eq!(QueryParams::parse("a%5B%5D=1&a[]=2").list("a"), ["1", "2"]);
        assert!(QueryParams::parse("").list("a").is_empty());
    }

    #[test]
    fn names_read_a_closed_set_and_a_validator_collects_every_failure() {
        let query = QueryParams::parse("c=a&c=b&c=x&c=y&limit=two&page=3");
        let parse = |name: &str| ["a", "b"].contains(&name).then(|| name.to_string());
        assert_eq!(QueryParams::parse("c=a&c=b").names("c", &["a", "b"], parse).unwrap(), ["a", "b"]);
        let mut validator = Validator::new();
        assert!(validator.take(query.names("c", &["a", "b"], parse)).is_empty());
        assert_eq!(validator.take(query.int32("limit", OutOfRange::Clamp)), None);
        assert_eq!(validator.take(query.int32("page", OutOfRange::Clamp)), Some(3));
        let Err(AppError::Validation(fields)) = validator.finish() else { panic!("expected a 422") };
        assert_eq!(fields.iter().map(|field| field.path.as_str()).collect::<Vec<_>>(), ["c", "limit"]);
        assert_eq!(fields[0].value, serde_json::json!(["x", "y"]));
    }

    #[test]
    fn int32_clamps_or_refuses_what_is_beyond_its_range() {
        let query = QueryParams::parse("limit=99999999999&page=-99999999999&small=7");
        assert_eq!(query.int32("limit", OutOfRange::Clamp).unwrap(), Some(i32::MAX));
        assert_eq!(query.int32("page", OutOfRange::Clamp).unwrap(), Some(i32::MIN));
        let refuse = OutOfRange::Refuse("limit must be between 1 and 100");
        assert_eq!(query.int32("small", refuse).unwrap(), Some(7));
        let refused = query.int32("limit", refuse).unwrap_err();
        assert_eq!(refused, FieldError::new("limit", "limit must be between 1 and 100", 99999999999_i64));
    }

    #[test]
    fn booleans_are_true_or_false_only() {
        assert_eq!(QueryParams::parse("x=true").boolean("x").unwrap(), Some(true));
        assert_eq!(QueryParams::parse("x=false").boolean("x").unwrap(), Some(false));
        assert!(QueryParams::parse("x=yes").boolean("x").is_err());
    }

    #[test]
    fn percent_encoding_is_decoded() {
        assert_eq!(QueryParams::parse("email=a%2Bb%40x.io").string("email").as_deref(), Some("a+b@x.io"));
    }
}
