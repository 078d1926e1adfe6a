//! The request middleware: one histogram observation per request, REST or gRPC, labelled by route
//! template (never the raw path, which holds ids) and by outcome.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{Method, StatusCode};
use tonic::Code;

use super::{Metrics, RequestLabels};

/// Observes every request's duration (to its response head) and outcome.
pub async fn record_request(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let grpc = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/grpc"));
    let method = method_label(request.method());
    let route = route_of(&request, grpc);
    let response = next.run(request).await;
    let labels = if grpc {
        let code = grpc_code(&response);
        // An unknown method of a known service is UNIMPLEMENTED: its path must not become a label.
        let route = route.filter(|_| code != Code::Unimplemented).unwrap_or_else(|| UNMATCHED.to_owned());
        RequestLabels { protocol: "grpc", method, route, status: code_label(code) }
    } else {
        let route = route.unwrap_or_else(|| UNMATCHED.to_owned());
        RequestLabels { protocol: "rest", method, route, status: status_class(response.status()) }
    };
    metrics.request(labels, started.elapsed());
    response
}

const UNMATCHED: &str = "unmatched";

/// The route template a REST request matched (`/v1/subscribers/{subscriber_id}`), or the full path of a
/// gRPC method; `None` for a path Herald does not serve. Never the raw REST path, which holds ids.
pub fn route_of<B>(request: &http::Request<B>, grpc: bool) -> Option<String> {
    request.extensions().get::<MatchedPath>().map(|template| match grpc {
        // A gRPC service is mounted at `/<service>/{*method}`: the full path names the method.
        true => request.uri().path().to_owned(),
        false => template.as_str().to_owned(),
    })
}

/// The standard methods by name; anything a client invents is `other`.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

fn status_class(status: StatusCode) -> &'static str {
    match status.as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// tonic answers an error with the status in the response head ("trailers only"); a success carries
/// it in the trailers, after the head this middleware sees.
fn grpc_code(response: &Response) -> Code {
    response
        .headers()
        .get("grpc-status")
        .and_then(|value| value.to_str().ok()?.parse::<i32>().ok())
        .map_or(Code::Ok, Code::from_i32)
}

fn code_label(code: Code) -> &'static str {
    match code {
        Code::Ok => "ok",
        Code::Cancelled => "cancelled",
        Code::Unknown => "unknown",
        Code::InvalidArgument => "invalid_argument",
        Code::DeadlineExceeded => "deadline_exceeded",
        Code::NotFound => "not_found",
        Code::AlreadyExists => "already_exists",
        Code::PermissionDenied => "permission_denied",
        Code::ResourceExhausted => "resource_exhausted",
        Code::FailedPrecondition => "failed_precondition",
        Code::Aborted => "aborted",
        Code::OutOfRange => "out_of_range",
        Code::Unimplemented => "unimplemented",
        Code::Internal => "internal",
        Code::Unavailable => "unavailable",
        Code::DataLoss => "data_loss",
        Code::Unauthenticated => "unauthenticated",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_closed_sets() {
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "other");
        assert_eq!(method_label(&Method::PATCH), "PATCH");
        assert_eq!(status_class(StatusCode::CREATED), "2xx");
        assert_eq!(status_class(StatusCode::UNPROCESSABLE_ENTITY), "4xx");
        assert_eq!(status_class(StatusCode::SERVICE_UNAVAILABLE), "5xx");
        assert_eq!(code_label(Code::from_i32(5)), "not_found");
        assert_eq!(code_label(Code::from_i32(999)), "unknown");
    }
}
