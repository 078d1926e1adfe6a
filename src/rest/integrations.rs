//! REST routes of integrations (provider connections).

use axum::Router;

use crate::grpc::Services;

pub fn routes() -> Router<Services> {
    Router::new()
}
