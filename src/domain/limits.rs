//! Bounds on every value the API accepts, checked in one place before a request reaches the database:
//! every gRPC method (and so every REST route, which calls them in-process) hands its request message
//! to [`check_bounds`] first. Without them a 100,000-character identifier reached a unique index and
//! came back as PostgreSQL's "index row requires … bytes", and nothing limited what a client could store.
//!
//! The rules go by the field's JSON name, so a field added to a proto message is bounded the day it is
//! added (by the default for text when no rule names it). Free-form documents (`payload`, `data`, …)
//! belong to the client: they are bounded as a whole, by size and nesting, not key by key.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::validation::Validator;
use crate::error::{AppError, AppResult};

/// Identifiers and keys (`subscriberId`, `identifier`, `_id`, `transactionId`, every `…Id`).
pub const IDENTIFIER_CHARS: usize = 255;
/// Names and short contact fields (`name`, `firstName`, `email`, `phone`, `locale`, `timezone`).
pub const NAME_CHARS: usize = 255;
/// URLs (`url`, every `…Url`, `avatar`).
pub const URL_CHARS: usize = 2_048;
/// Any other text: subjects, titles, descriptions, filters, cursors, query parameters.
pub const TEXT_CHARS: usize = 1_024;
/// Message bodies written in step controls (`body`, `content`).
pub const CONTENT_CHARS: usize = 256 * 1024;
/// Provider secrets and headers: service-account JSON and private keys are a few KiB.
pub const SECRET_CHARS: usize = 16 * 1024;
/// Items of any list in a request (recipients, ids, steps …; narrower rules may apply below).
pub const MAX_ITEMS: usize = 1_000;
/// Encoded JSON size of one free-form document or a step's control values.
pub const DOCUMENT_BYTES: usize = 256 * 1024;
/// Nesting depth of one free-form document.
pub const DOCUMENT_DEPTH: usize = 32;

/// Documents whose keys are the client's own: bounded as a whole only.
const FREE_FORM: &[&str] = &["payload", "data", "overrides", "payloadSchema", "tlsOptions", "other"];
/// Documents bounded as a whole whose keys are ours (step controls), so the field rules apply inside.
const STRUCTURED_DOCUMENTS: &[&str] = &["controlValues"];
/// Objects whose text is secret material or header values (bearer tokens run long).
const SECRET_CONTEXTS: &[&str] = &["credentials", "headers"];
/// How much of an oversized value a 422 echoes back.
const PREVIEW_CHARS: usize = 64;

/// Ok when every value of `message` (a proto request, seen through its JSON form) is within bounds,
/// else a 422 naming each offending field and its limit.
pub fn check_bounds<T: Serialize>(message: &T) -> AppResult<()> {
    // Only an enum number outside its enum fails to serialize (a gRPC caller's `channels: [42]`).
    let value = serde_json::to_value(message).map_err(|error| {
        AppError::BadRequest(format!("Invalid request: an enum field holds an unknown value ({error})"))
    })?;
    let mut validator = Validator::new();
    // Every request of the API passes here, almost always within bounds: the walk allocates nothing
    // for a value that passes (one path buffer, messages and previews only for a value refused).
    walk(&mut validator, &value, &mut String::new(), "", false);
    validator.finish()
}

/// The bound `check_bounds` puts on text under the JSON key `key` (inside `credentials` or `headers`
/// when `secret`): at most so many characters, and, for identifiers, no control characters. The
/// OpenAPI document states the same bounds (`crate::openapi`).
pub fn text_bound(key: &str, secret: bool) -> (usize, bool) {
    let rule = TextRule::of(key, secret);
    (rule.max_chars(), rule == TextRule::Identifier)
}

/// Whether the field `key` is a free-form document (bounded as a whole, its keys the client's).
pub fn is_free_form(key: &str) -> bool {
    FREE_FORM.contains(&key)
}

/// Whether text under the field `key` is secret material or header values.
pub fn is_secret_context(key: &str) -> bool {
    SECRET_CONTEXTS.contains(&key)
}

/// Checks `value`, found at `path` under the JSON key `key` (the key of the nearest object field, so
/// the items of a list follow their list's rule). `path` is left as it was found.
fn walk(validator: &mut Validator, value: &Value, path: &mut String, key: &str, secret: bool) {
    match value {
        Value::String(text) => check_text(validator, text, path, key, secret),
        Value::Array(items) => {
            let count = items.len();
            if count > MAX_ITEMS {
                validator.reject(path, format!("{path} must have at most {MAX_ITEMS} items"), count);
            }
            for (index, item) in items.iter().enumerate().take(MAX_ITEMS) {
                let parent = push_segment(path, "");
                let _ = write!(path, "{index}"); // into the path itself: no string per item
                walk(validator, item, path, key, secret);
                path.truncate(parent);
            }
        }
        Value::Object(fields) => {
            for (name, field) in fields {
                let parent = push_segment(path, name);
                let inner_secret = secret || SECRET_CONTEXTS.contains(&name.as_str());
                if FREE_FORM.contains(&name.as_str()) {
                    check_document(validator, field, path);
                } else if STRUCTURED_DOCUMENTS.contains(&name.as_str()) {
                    if check_document(validator, field, path) {
                        walk(validator, field, path, name, inner_secret);
                    }
                } else {
                    walk(validator, field, path, name, inner_secret);
                }
                path.truncate(parent);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Appends `.segment` to `path` (`segment` alone at the top) and returns the length to truncate back to.
fn push_segment(path: &mut String, segment: &str) -> usize {
    let parent = path.len();
    if parent > 0 {
        path.push('.');
    }
    path.push_str(segment);
    parent
}

/// Bounds a document by encoded size and nesting; true when within both.
fn check_document(validator: &mut Validator, document: &Value, path: &str) -> bool {
    let mut size = EncodedSize::default();
    let bytes = serde_json::to_writer(&mut size, document).map_or(usize::MAX, |()| size.0);
    let small = bytes <= DOCUMENT_BYTES;
    if !small {
        validator.reject(path, format!("{path} must be at most {DOCUMENT_BYTES} bytes of JSON"), Value::Null);
    }
    let shallow = depth(document, DOCUMENT_DEPTH + 1) <= DOCUMENT_DEPTH;
    if !shallow {
        validator.reject(path, format!("{path} must be nested at most {DOCUMENT_DEPTH} levels deep"), Value::Null);
    }
    small && shallow
}

/// Counts the bytes written to it: a document's encoded size without encoding it into memory.
#[derive(Default)]
struct EncodedSize(usize);

impl std::io::Write for EncodedSize {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Nesting depth of `value` (a scalar is 0, `{}` is 1), counted no further than `cap`.
fn depth(value: &Value, cap: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    let children: Box<dyn Iterator<Item = &Value>> = match value {
        Value::Array(items) => Box::new(items.iter()),
        Value::Object(fields) => Box::new(fields.values()),
        _ => return 0,
    };
    1 + children.map(|child| depth(child, cap - 1)).max().unwrap_or(0)
}

/// The bound of a text field by its JSON key.
#[derive(Debug, Clone, Copy, PartialEq)]
enum TextRule {
    Identifier,
    Name,
    Url,
    Content,
    Secret,
    Text,
}

impl TextRule {
    fn of(key: &str, secret: bool) -> Self {
        let url = key == "url" || key == "avatar" || key.ends_with("Url");
        let identifier = matches!(key, "_id" | "id" | "identifier" | "slug" | "templates" | "tags")
            || key.ends_with("Id")
            || key.ends_with("Ids");
        let name = matches!(
            key,
            "name" | "firstName" | "lastName" | "senderName" | "email" | "emails" | "phone" | "locale" | "timezone"
        );
        if url {
            TextRule::Url
        } else if identifier {
            TextRule::Identifier
        } else if secret {
            TextRule::Secret
        } else if name {
            TextRule::Name
        } else if matches!(key, "body" | "content") {
            TextRule::Content
        } else {
            TextRule::Text
        }
    }

    fn max_chars(self) -> usize {
        match self {
            TextRule::Identifier => IDENTIFIER_CHARS,
            TextRule::Name => NAME_CHARS,
            TextRule::Url => URL_CHARS,
            TextRule::Content => CONTENT_CHARS,
            TextRule::Secret => SECRET_CHARS,
            TextRule::Text => TEXT_CHARS,
        }
    }
}

fn check_text(validator: &mut Validator, text: &str, path: &str, key: &str, secret: bool) {
    let rule = TextRule::of(key, secret);
    let max = rule.max_chars();
    // Counting stops past the limit: a huge value costs no more than a long one.
    if text.chars().nth(max).is_some() {
        validator.reject(path, format!("{path} must be at most {max} characters"), preview(text));
    }
    // Identifiers travel in URLs, logs and provider calls: no line breaks or other control characters.
    if rule == TextRule::Identifier && text.chars().any(char::is_control) {
        validator.reject(path, format!("{path} must not contain control characters"), preview(text));
    }
}

/// The start of `text`, marked when cut.
fn preview(text: &str) -> String {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn failures(value: Value) -> Vec<(String, Vec<String>)> {
        match check_bounds(&value) {
            Ok(()) => Vec::new(),
            Err(AppError::Validation(fields)) => fields.into_iter().map(|field| (field.path, field.messages)).collect(),
            Err(other) => panic!("expected a 422, got {other:?}"),
        }
    }

    #[test]
    fn each_rule_allows_its_limit_and_names_field_and_limit_above_it() {
        for (key, max) in [
            ("subscriberId", IDENTIFIER_CHARS),
            ("identifier", IDENTIFIER_CHARS),
            ("name", NAME_CHARS),
            ("webhookUrl", URL_CHARS),
            ("subject", TEXT_CHARS),
            ("body", CONTENT_CHARS),
        ] {
            assert!(failures(json!({ key: "é".repeat(max) })).is_empty(), "{key} at its limit");
            assert_eq!(
                failures(json!({ key: "é".repeat(max + 1) })),
                [(key.to_string(), vec![format!("{key} must be at most {max} characters")])]
            );
        }
    }

    #[test]
    fn nested_fields_and_list_items_are_named_by_path_and_follow_their_key() {
        let request = json!({
            "messageId": ["ok", "x".repeat(IDENTIFIER_CHARS + 1)],
            "workflow": { "steps": [{ "name": "n".repeat(NAME_CHARS + 1) }] },
        });
        let paths: Vec<String> = failures(request).into_iter().map(|(path, _)| path).collect();
        assert_eq!(paths, ["messageId.1", "workflow.steps.0.name"]);
    }

    #[test]
    fn secrets_and_headers_may_run_longer_than_plain_text() {
        let key = "k".repeat(TEXT_CHARS * 4);
        assert!(failures(json!({ "credentials": { "serviceAccount": key } })).is_empty());
        assert!(failures(json!({ "controlValues": { "headers": { "Authorization": key } } })).is_empty());
        assert_eq!(failures(json!({ "credentials": { "apiKey": "k".repeat(SECRET_CHARS + 1) } })).len(), 1);
        // A URL or an id inside credentials keeps its own rule.
        assert_eq!(failures(json!({ "credentials": { "webhookUrl": "u".repeat(URL_CHARS + 1) } })).len(), 1);
    }

    #[test]
    fn identifiers_refuse_control_characters() {
        assert_eq!(
            failures(json!({ "transactionId": "a\nb" })),
            [("transactionId".to_string(), vec!["transactionId must not contain control characters".to_string()])]
        );
        assert!(failures(json!({ "name": "tab\tted" })).is_empty());
    }

    #[test]
    fn lists_are_bounded() {
        let ids: Vec<String> = (0..=MAX_ITEMS).map(|index| index.to_string()).collect();
        assert_eq!(
            failures(json!({ "messageId": ids }))[0].1,
            [format!("messageId must have at most {MAX_ITEMS} items")]
        );
    }

    #[test]
    fn free_form_documents_are_bounded_by_size_and_depth_not_by_their_keys() {
        let long_key = "k".repeat(TEXT_CHARS * 2);
        assert!(failures(json!({ "payload": { long_key.clone(): "v".repeat(TEXT_CHARS * 2) } })).is_empty());
        let big = json!({ "payload": { "blob": "v".repeat(DOCUMENT_BYTES) } });
        assert_eq!(failures(big)[0].1, [format!("payload must be at most {DOCUMENT_BYTES} bytes of JSON")]);
        let mut deep = json!(1);
        for _ in 0..=DOCUMENT_DEPTH {
            deep = json!([deep]);
        }
        assert_eq!(
            failures(json!({ "data": deep }))[0].1,
            [format!("data must be nested at most {DOCUMENT_DEPTH} levels deep")]
        );
        let mut at_limit = json!(1);
        for _ in 0..DOCUMENT_DEPTH {
            at_limit = json!({ "a": at_limit });
        }
        assert!(failures(json!({ "data": at_limit })).is_empty());
    }

    #[test]
    fn step_controls_are_a_bounded_document_with_field_rules_inside() {
        let subject =
            json!({ "controlValues": { "subject": "s".repeat(TEXT_CHARS + 1), "body": "b".repeat(TEXT_CHARS * 8) } });
        let found = failures(subject);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "controlValues.subject");
    }

    #[test]
    fn the_echoed_value_is_cut_short() {
        let Err(AppError::Validation(fields)) = check_bounds(&json!({ "name": "x".repeat(100_000) })) else {
            panic!("expected a 422")
        };
        assert_eq!(fields[0].value, Value::String(format!("{}…", "x".repeat(PREVIEW_CHARS))));
    }
}
