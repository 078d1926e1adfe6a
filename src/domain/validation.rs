//! Collects every failing field of a request so that one 422 reports them all at once.

use serde_json::Value;

use crate::error::{AppError, AppResult, FieldError};

/// Accumulates field errors; [`finish`](Self::finish) turns them into one 422.
#[derive(Debug, Default)]
pub struct Validator {
    errors: Vec<FieldError>,
}

impl Validator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `message` for `path` (merged with earlier messages of the same field).
    pub fn reject(&mut self, path: &str, message: impl Into<String>, value: impl Into<Value>) {
        self.add(FieldError::new(path, message, value));
    }

    /// Records `error`; the messages of a field already rejected join the earlier ones.
    pub fn add(&mut self, error: FieldError) {
        match self.errors.iter_mut().find(|earlier| earlier.path == error.path) {
            Some(earlier) => earlier.messages.extend(error.messages),
            None => self.errors.push(error),
        }
    }

    /// The value of `result`, or `T::default()` with its failure recorded (several parameters read
    /// in a row, one 422 naming them all).
    pub fn take<T: Default>(&mut self, result: Result<T, FieldError>) -> T {
        result.unwrap_or_else(|error| {
            self.add(error);
            T::default()
        })
    }

    /// Records `message` for `path` unless `valid`.
    pub fn check(&mut self, valid: bool, path: &str, message: impl Into<String>, value: impl Into<Value>) {
        if !valid {
            self.reject(path, message, value);
        }
    }

    /// Ok when nothing was rejected, else a 422 listing every rejected field.
    pub fn finish(self) -> AppResult<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(AppError::Validation(self.errors))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_field_and_merges_messages_per_field() {
        let mut validator = Validator::new();
        validator.check(true, "email", "never reported", "a@b.c");
        validator.reject("email", "must be an email", "nope");
        validator.reject("timezone", "must be an IANA timezone", "Mars/Base");
        validator.reject("email", "must not contain spaces", "nope");
        let Err(AppError::Validation(errors)) = validator.finish() else { panic!("expected a 422") };
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].path, "email");
        assert_eq!(errors[0].messages, ["must be an email", "must not contain spaces"]);
        assert_eq!(errors[1].value, "Mars/Base");
    }

    #[test]
    fn take_keeps_values_and_records_failures() {
        let mut validator = Validator::new();
        assert_eq!(validator.take(Ok::<_, FieldError>(3)), 3);
        assert_eq!(
            validator.take::<Option<i32>>(Err(FieldError::new("limit", "limit must be a whole number", "x"))),
            None
        );
        let Err(AppError::Validation(errors)) = validator.finish() else { panic!("expected a 422") };
        assert_eq!(errors, [FieldError::new("limit", "limit must be a whole number", "x")]);
    }

    #[test]
    fn nothing_rejected_is_ok() {
        assert!(Validator::new().finish().is_ok());
    }
}
