//! The REST front: routes that parse the spec's JSON shapes, call the same tonic methods
//! in-process, and write the spec's JSON shapes back. No business rule lives here.

mod body;
mod environments;
mod events;
mod inbox;
mod inbox_bulk;
mod inbox_events;
mod inbox_preferences;
mod inbox_web;
mod integrations;
mod messages;
mod notifications;
pub mod query;
mod shapes;
mod subscribers;
mod topics;
mod webhooks;
mod workflows;

pub use body::{mask_of_keys, parse_json, parse_json_with_mask, require_json_body, JsonBody};
pub use inbox::{routes as inbox_routes, session_routes as inbox_session_routes};
pub use inbox_events::{routes as inbox_event_routes, token_from_query};
pub use inbox_web::routes as inbox_web_routes;
pub use webhooks::routes as webhook_routes;

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde::Serialize;

use crate::domain::tenancy::Tenant;
use crate::error::AppError;
use crate::grpc::Services;
use crate::openapi::ApiRoutes;
use crate::wire::to_json_with_integral_numbers;

/// Every authenticated REST route with its declaration, without authentication or error rendering
/// (the server adds both).
pub fn routes() -> ApiRoutes<Services> {
    ApiRoutes::new()
        .merge(environments::routes())
        .merge(subscribers::routes())
        .merge(integrations::routes())
        .merge(workflows::routes())
        .merge(events::routes())
        .merge(notifications::routes())
        .merge(messages::routes())
        .merge(topics::routes())
}

/// Wraps a REST call's message as a tonic request carrying the caller's tenant, as the auth
/// middleware would have for a gRPC call.
pub fn grpc_request<T>(tenant: Tenant, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.extensions_mut().insert(tenant);
    request
}

/// A JSON success body with the given status (the contract: 200 for reads and updates, 201 for
/// creation). Whole numbers print as integers (free-form objects travel as protobuf doubles).
pub fn json_response<T: Serialize>(status: StatusCode, body: &T) -> Response {
    match to_json_with_integral_numbers(body) {
        Ok(bytes) => (status, [(http::header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(error) => AppError::internal(error).into_response(),
    }
}

/// What REST handlers return; a `tonic::Status` from the in-process call converts with `?`.
pub type RestResult = Result<Response, AppError>;
