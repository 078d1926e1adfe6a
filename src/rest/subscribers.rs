//! REST routes of subscribers, their channel credentials and preferences.

use axum::Router;

use crate::grpc::Services;

pub fn routes() -> Router<Services> {
    Router::new()
}
