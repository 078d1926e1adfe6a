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
    if matches!(error, AppError::Unavailable(_) | AppError::OutcomeUnknown(_)) {
        // The database is away for now: a client (the official SDKs retry 5xx) may come back shortly.
        response
            .headers_mut()
            .insert(http::header::RETRY_AFTER, http::HeaderValue::from_static(RETRY_UNAVAILABLE_SECS));
    }
    if let AppError::RateLimited { retry_after, .. } = &error {
        // Whole seconds (the header has no fractions), rounded up so the retry finds the tokens there.
        let seconds = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
        response.headers_mut().insert(http::header::RETRY_AFTER, http::HeaderValue::from(seconds.max(1)));
    }
    response.extensions_mut().insert(report);
    response
}

/// `Retry-After` of a 503: the pool waits this long for a connection before giving up, so a retry
/// after it meets a database that had the time to come back or a pool that reconnected.
const RETRY_UNAVAILABLE_SECS: &str = "1";

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
    render_error(next.run(request).await, &method, &path)
}

/// Marks a response whose error body is written already (rendered once, or replayed as stored).
#[derive(Debug, Clone, Copy)]
pub struct Rendered;

/// `response` with the contract's error body when it is a 4xx/5xx not rendered yet; the idempotency
/// layer renders before the outer [`render_errors`] does, to store the body the client gets.
pub fn render_error(response: Response, method: &http::Method, path: &str) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || response.extensions().get::<Rendered>().is_some() {
        return response;
    }
    let report = match response.extensions().get::<ErrorReport>() {
        Some(report) => report.clone(),
        None if status == StatusCode::METHOD_NOT_ALLOWED => plain_report(format!("Cannot {method} {path}")),
        None if status == StatusCode::PAYLOAD_TOO_LARGE => plain_report("Request body is too large".into()),
        None => plain_report(status.canonical_reason().unwrap_or("Error").to_string()),
    };
    let mut rendered = render(status, &report, path);
    // Keep headers such as `Allow` on a 405.
    for (name, value) in response.headers() {
        if name != http::header::CONTENT_TYPE && name != http::header::CONTENT_LENGTH {
            rendered.headers_mut().insert(name.clone(), value.clone());
        }
    }
    rendered.extensions_mut().insert(Rendered);
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use tonic::Code;
    use tonic_types::StatusExt;

    use super::*;
    use crate::error::PayloadError;

    /// The JSON body REST writes for `error` at `/path`, without its (checked) timestamp.
    async fn rest_body(error: AppError) -> (StatusCode, Value) {
        let response = error_response(error);
        let status = response.status();
        let report = response.extensions().get::<ErrorReport>().expect("a report for the middleware").clone();
        let rendered = render(status, &report, "/path");
        let bytes = axum::body::to_bytes(rendered.into_body(), usize::MAX).await.expect("a body");
        let mut body: Value = serde_json::from_slice(&bytes).expect("a JSON body");
        let timestamp = body.as_object_mut().and_then(|fields| fields.remove("timestamp")).expect("a timestamp");
        assert!(timestamp.as_str().is_some_and(|text| text.ends_with('Z')), "{timestamp}");
        (status, body)
    }

    fn every_variant() -> Vec<(AppError, u16, Code, Value)> {
        let internal = AppError::Internal { error_id: "e1".into(), cause: "disk on fire".into() };
        let field = FieldError { path: "email".into(), messages: vec!["must be an email".into()], value: json!("x") };
        let payload_error = PayloadError { field: "orderId".into(), message: "is required".into(), value: Value::Null };
        let body = |status: u16, error: &str, message: &str| json!({ "statusCode": status, "path": "/path", "message": message, "error": error });
        vec![
            (AppError::BadRequest("bad".into()), 400, Code::InvalidArgument, body(400, "Bad Request", "bad")),
            (AppError::Unauthenticated("who".into()), 401, Code::Unauthenticated, body(401, "Unauthorized", "who")),
            (AppError::NotFound("gone".into()), 404, Code::NotFound, body(404, "Not Found", "gone")),
            (AppError::Conflict("taken".into()), 409, Code::AlreadyExists, body(409, "Conflict", "taken")),
            (
                AppError::PayloadTooLarge("big".into()),
                413,
                Code::ResourceExhausted,
                body(413, "Payload Too Large", "big"),
            ),
            (
                AppError::UnsupportedMediaType("not json".into()),
                415,
                Code::InvalidArgument,
                body(415, "Unsupported Media Type", "not json"),
            ),
            (AppError::Validation(vec![field]), 422, Code::InvalidArgument, {
                let mut body = body(422, "Unprocessable Entity", "Validation failed: email");
                body["errors"] = json!({ "email": { "messages": ["must be an email"], "value": "x" } });
                body
            }),
            (
                AppError::Unprocessable("workflow_not_found".into()),
                422,
                Code::FailedPrecondition,
                body(422, "Unprocessable Entity", "workflow_not_found"),
            ),
            (AppError::PayloadValidation(vec![payload_error]), 400, Code::InvalidArgument, {
                let mut body = body(400, "Bad Request", "Payload validation failed");
                body["type"] = json!("PAYLOAD_VALIDATION_ERROR");
                body["errors"] = json!([{ "field": "orderId", "message": "is required", "value": null }]);
                body
            }),
            (
                AppError::RateLimited { message: "slow down".into(), retry_after: Duration::from_millis(250) },
                429,
                Code::ResourceExhausted,
                body(429, "Too Many Requests", "slow down"),
            ),
            (
                AppError::Unavailable("pool timed out".into()),
                503,
                Code::Unavailable,
                body(503, "Service Unavailable", "service unavailable"),
            ),
            (
                AppError::OutcomeUnknown("maybe stored".into()),
                503,
                Code::Unavailable,
                body(503, "Service Unavailable", "maybe stored"),
            ),
            (internal, 500, Code::Internal, {
                let mut body = body(500, "Internal Server Error", "Internal server error");
                body["errorId"] = json!("e1");
                body
            }),
        ]
    }

    #[tokio::test]
    async fn every_variant_has_its_http_status_grpc_code_and_body() {
        for (error, status, code, body) in every_variant() {
            let name = format!("{error:?}");
            assert_eq!(tonic::Status::from(error_copy(&error)).code(), code, "{name}");
            assert_eq!(rest_body(error).await, (StatusCode::from_u16(status).unwrap(), body), "{name}");
        }
    }

    #[test]
    fn only_a_503_or_a_429_tells_the_client_when_to_retry() {
        for (error, ..) in every_variant() {
            let unavailable =
                matches!(error, AppError::Unavailable(_) | AppError::OutcomeUnknown(_) | AppError::RateLimited { .. });
            let retry_after = error_response(error).headers().get(http::header::RETRY_AFTER).cloned();
            assert_eq!(retry_after.is_some(), unavailable, "{retry_after:?}");
        }
        let response = error_response(AppError::Unavailable("pool timed out".into()));
        assert_eq!(response.headers()[http::header::RETRY_AFTER], "1");
        let limited = AppError::RateLimited { message: "slow down".into(), retry_after: Duration::from_millis(1_200) };
        assert_eq!(error_response(limited).headers()[http::header::RETRY_AFTER], "2");
    }

    /// REST calls tonic methods in-process: the error it renders is the one the method returned.
    #[tokio::test]
    async fn an_error_survives_the_round_trip_through_a_status() {
        for (error, ..) in every_variant() {
            let expected = rest_body(error_copy(&error)).await;
            assert_eq!(rest_body(AppError::from(tonic::Status::from(error))).await, expected);
        }
    }

    #[test]
    fn grpc_statuses_carry_the_message_and_every_field_violation() {
        let error = AppError::Validation(vec![FieldError {
            path: "email".into(),
            messages: vec!["must be an email".into(), "must not contain spaces".into()],
            value: json!("a b"),
        }]);
        let status = tonic::Status::from(error);
        assert_eq!(status.message(), "Validation failed: email");
        let violations = status.get_details_bad_request().expect("BadRequest details").field_violations;
        let described: Vec<(&str, &str)> =
            violations.iter().map(|violation| (violation.field.as_str(), violation.description.as_str())).collect();
        assert_eq!(described, [("email", "must be an email"), ("email", "must not contain spaces")]);
        let internal = tonic::Status::from(AppError::Internal { error_id: "e1".into(), cause: "secret".into() });
        assert_eq!(internal.message(), "Internal server error (errorId e1)");
    }

    #[test]
    fn a_status_not_made_from_an_app_error_is_a_500() {
        let error = AppError::from(tonic::Status::unknown("from elsewhere"));
        assert_eq!(error.http_status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(error.error_id().is_some());
    }

    fn error_copy(error: &AppError) -> AppError {
        error.clone_for_response()
    }
}
