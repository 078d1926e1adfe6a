//! JSON request bodies, with the contract's errors: 400 naming the field for malformed JSON or a
//! wrong type, 413 over the body limit.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::AppError;

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
    serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            AppError::BadRequest(format!("Malformed JSON: {inner}"))
        } else if path == "." {
            AppError::BadRequest(format!("Invalid request body: {inner}"))
        } else {
            AppError::BadRequest(format!("Invalid value for field '{path}': {inner}"))
        }
    })
}
