//! Errors on the wire, rendered in one place for both transports: the contract's HTTP error body
//! for every REST failure (handler errors, authentication, unknown routes, wrong methods, oversized
//! bodies and panics), and the gRPC status of those a gRPC client meets before a tonic method runs.

use axum::extract::{OriginalUri, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{json, Map, Value};

use super::{AppError, FieldError};
use crate::wire::format_timestamp;

/// What an error response says, before the request path is known. Carried in the response
/// extensions from where the error arises to [`render_errors`], which writes the body.
#[derive(Debug, Clone)]
struct ErrorReport {
    message: String,
    errors: Option<Value>,
    /// `type` of the body, e.g. `PAYLOAD_VALIDATION_ERROR`.
    error_type: Option<&'static str>,
    error_id: Option<String>,
}

/// A response for `error`; its JSON body is written by [`render_errors`].
pub fn error_response(error: AppError) -> Response {
    let status = error.http_status();
    let report = ErrorReport {
        message: match &error {
            AppError::Internal { .. } => "Internal server error".to_string(),
            other => other.to_string(),
        },
        errors: match &error {
            AppError::Validation(fields) => Some(field_errors_body(fields)),
            AppError::PayloadValidation(errors) => Some(json!(errors)),
            _ => None,
        },
        error_type: matches!(error, AppError::PayloadValidation(_)).then_some("PAYLOAD_VALIDATION_ERROR"),
        error_id: error.error_id().map(str::to_string),
    };
    let mut response = status.into_response();
    response.extensions_mut().insert(report);
    response
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        error_response(self)
    }
}

/// Whether `request` is a gRPC call (its errors are statuses, not JSON bodies).
pub fn is_grpc<B>(request: &http::Request<B>) -> bool {
    request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/grpc"))
}

fn field_errors_body(fields: &[FieldError]) -> Value {
    let entries: Map<String, Value> = fields
        .iter()
        .map(|field| (field.path.clone(), json!({ "messages": field.messages, "value": field.value })))
        .collect();
    Value::Object(entries)
}

/// Middleware writing the contract's error body on every 4xx/5xx response of the REST routes.
/// Responses made outside our handlers (axum's 405, a body-limit 413) get a body from their status.
pub async fn render_errors(request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    let method = request.method().clone();
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let report = match response.extensions().get::<ErrorReport>() {
        Some(report) => report.clone(),
        None if status == StatusCode::METHOD_NOT_ALLOWED => plain_report(format!("Cannot {method} {path}")),
        None if status == StatusCode::PAYLOAD_TOO_LARGE => plain_report("Request body is too large".into()),
        None => plain_report(status.canonical_reason().unwrap_or("Error").to_string()),
    };
    let mut rendered = render(status, &report, &path);
    // Keep headers such as `Allow` on a 405.
    for (name, value) in response.headers() {
        if name != http::header::CONTENT_TYPE && name != http::header::CONTENT_LENGTH {
            rendered.headers_mut().insert(name.clone(), value.clone());
        }
    }
    rendered
}

fn plain_report(message: String) -> ErrorReport {
    ErrorReport { message, errors: None, error_type: None, error_id: None }
}

fn render(status: StatusCode, report: &ErrorReport, path: &str) -> Response {
    let mut body = json!({
        "statusCode": status.as_u16(),
        "timestamp": format_timestamp(chrono::Utc::now()),
        "path": path,
        "message": report.message,
        "error": status.canonical_reason().unwrap_or("Error"),
    });
    if let Some(error_type) = report.error_type {
        body["type"] = Value::String(error_type.to_string());
    }
    if let Some(errors) = &report.errors {
        body["errors"] = errors.clone();
    }
    if let Some(error_id) = &report.error_id {
        body["errorId"] = Value::String(error_id.clone());
    }
    (status, axum::Json(body)).into_response()
}

/// Unknown routes: a gRPC client gets UNIMPLEMENTED, everyone else the contract's 404.
pub async fn not_found_fallback(OriginalUri(uri): OriginalUri, request: Request) -> Response {
    if is_grpc(&request) {
        return tonic::Status::unimplemented(format!("Unknown method {}", uri.path())).into_http();
    }
    let report = plain_report(format!("Cannot {} {}", request.method(), uri.path()));
    render(StatusCode::NOT_FOUND, &report, uri.path())
}

/// Turns a REST handler panic into a logged 500 with an `errorId` instead of a dropped connection.
pub fn rest_panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    error_response(AppError::internal(panic_message(panic.as_ref())))
}

/// Turns a tonic method panic into a logged INTERNAL status with its error id.
pub fn grpc_panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response<String> {
    tonic::Status::from(AppError::internal(panic_message(panic.as_ref()))).into_http()
}

/// The text of a panic payload, for the log.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        format!("panic: {text}")
    } else if let Some(text) = panic.downcast_ref::<String>() {
        format!("panic: {text}")
    } else {
        "panic with a non-text payload".to_string()
    }
}

