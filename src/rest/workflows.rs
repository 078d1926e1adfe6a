//! REST routes of workflows (v2).

use axum::Router;

use crate::grpc::Services;

pub fn routes() -> Router<Services> {
    Router::new()
}
