//! JSON request bodies, with the contract's errors: 415 for a body that is not declared JSON, 400
//! naming the field for malformed JSON or a wrong type, 413 over the body limit.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use crate::error::AppError;

/// Middleware on the API's REST routes: a request with a body must say it is JSON (`application/json`,
/// or a `+json` type), else 415 and nothing runs. A body-less call needs no content type (set-primary,
/// DELETE). Providers' status webhooks (forms, `text/plain`) are mounted without it.
pub async fn require_json_body(request: Request, next: Next) -> Response {
    if has_body(request.headers()) && !declares_json(request.headers()) {
        let declared = request.headers().get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok());
        let message = match declared {
            Some(declared) => format!("Unsupported content type '{declared}': send the body as application/json"),
            None => "The request body has no content type: send it as application/json".to_string(),
        };
        return AppError::UnsupportedMediaType(message).into_response();
    }
    next.run(request).await
}

fn has_body(headers: &HeaderMap) -> bool {
    let length = headers.get(header::CONTENT_LENGTH).and_then(|value| value.to_str().ok());
    match length {
        Some(length) => length.trim() != "0",
        None => headers.contains_key(header::TRANSFER_ENCODING),
    }
}

fn declares_json(headers: &HeaderMap) -> bool {
    let Some(declared) = headers.get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()) else {
        return false;
    };
    let essence = declared.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// A JSON body deserialized into `T` (usually a proto request message, through pbjson).
/// An empty body reads as `{}` so that optional-only bodies may be left out.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(request, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AppError::PayloadTooLarge("Request body is too large".into())
            } else {
                AppError::BadRequest(rejection.body_text())
            }
        })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// Parses `bytes` as `T`, naming the offending field in the error.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { bytes };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut deserializer).map_err(read_error)
}

/// Reads a JSON value the REST layer has rewritten as `T`, with the errors of [`parse_json`].
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, AppError> {
    serde_path_to_error::deserialize(value).map_err(read_error)
}

fn read_error(error: serde_path_to_error::Error<serde_json::Error>) -> AppError {
    let path = error.path().to_string();
    let inner = error.into_inner();
    if inner.is_syntax() || inner.is_eof() {
        AppError::BadRequest(format!("Malformed JSON: {inner}"))
    } else if let Some(error) = unknown_enum_value(&path, &inner.to_string()) {
        error
    } else if path == "." {
        AppError::BadRequest(format!("Invalid request body: {inner}"))
    } else {
        AppError::BadRequest(format!("Invalid value for field '{path}': {inner}"))
    }
}

/// A value outside a closed set (`"channel": "fax"`) is a field validation failure (422) naming the
/// field, the value sent and the accepted values, not a 400 listing proto enum names.
fn unknown_enum_value(path: &str, message: &str) -> Option<AppError> {
    let rest = message.strip_prefix("unknown variant `")?;
    let (sent, expected) = rest.split_once('`')?;
    let accepted: Vec<&str> =
        expected.split('`').skip(1).step_by(2).filter(|name| !name.ends_with("_UNSPECIFIED")).collect();
    Some(AppError::invalid_field(path, format!("{path} must be one of {}", accepted.join(", ")), sent))
}

/// Parses a JSON object body as `T` and also returns its top-level keys as proto field paths
/// (`firstName` → `first_name`), for the `update_mask` of PATCH-like rpcs: a key present with
/// `null` clears the field, an absent key leaves it alone.
pub fn parse_json_with_mask<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, pbjson_types::FieldMask), AppError> {
    let message = parse_json(bytes)?;
    let body: serde_json::Value = parse_json(bytes)?;
    if !body.is_object() {
        return Err(AppError::BadRequest("The request body must be a JSON object".into()));
    }
    Ok((message, mask_of_keys(&body, "")))
}

/// The keys of a JSON object as proto field paths under `prefix` (`credentials.` + `deviceTokens`
/// → `credentials.device_tokens`); anything but an object has no keys.
pub fn mask_of_keys(object: &serde_json::Value, prefix: &str) -> pbjson_types::FieldMask {
    let paths = match object {
        serde_json::Value::Object(object) => object.keys().map(|key| format!("{prefix}{}", snake_case(key))).collect(),
        _ => Vec::new(),
    };
    pbjson_types::FieldMask { paths }
}

/// `firstName` → `first_name`; `_id` → `id`.
fn snake_case(key: &str) -> String {
    let mut snake = String::with_capacity(key.len() + 4);
    for character in key.trim_start_matches('_').chars() {
        if character.is_ascii_uppercase() {
            snake.push('_');
            snake.push(character.to_ascii_lowercase());
        } else {
            snake.push(character);
        }
    }
    snake
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_lists_present_keys_including_nulls() {
        let (value, mask) =
            parse_json_with_mask::<serde_json::Value>(br#"{"firstName": "Ada", "lastName": null, "data": {}}"#)
                .unwrap();
        assert_eq!(value["firstName"], "Ada");
        let mut paths = mask.paths;
        paths.sort();
        assert_eq!(paths, ["data", "first_name", "last_name"]);
    }

    #[test]
    fn an_unknown_enum_value_is_a_422_naming_field_value_and_choices() {
        let error = unknown_enum_value(
            "steps[0].type",
            "unknown variant `fax`, expected one of `STEP_TYPE_UNSPECIFIED`, `in_app`, `email` at line 1 column 9",
        );
        let Some(AppError::Validation(fields)) = error else { panic!("expected a 422") };
        assert_eq!(fields[0].path, "steps[0].type");
        assert_eq!(fields[0].value, "fax");
        assert_eq!(fields[0].messages, ["steps[0].type must be one of in_app, email"]);
        assert!(unknown_enum_value("name", "invalid type: integer `5`, expected a string").is_none());
    }

    #[test]
    fn a_non_object_body_is_refused() {
        assert!(parse_json_with_mask::<serde_json::Value>(b"[1]").is_err());
    }

    #[test]
    fn empty_bodies_read_as_an_empty_object() {
        let value: serde_json::Value = parse_json(b"  ").unwrap();
        assert_eq!(value, serde_json::json!({}));
    }
}
