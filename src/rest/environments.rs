//! REST routes of environments.

use axum::extract::State;
use axum::Extension;
use http::StatusCode;

use super::{grpc_request, json_response, RestResult};
use crate::domain::tenancy::Tenant;
use crate::grpc::Services;
use crate::openapi::schemas::output;
use crate::openapi::{ApiRoutes, Operation};
use crate::proto::herald::v1 as pb;
use pb::environments_service_server::EnvironmentsService;

pub fn routes() -> ApiRoutes<Services> {
    let me = Operation::get("/v1/environments/me", "getCurrentEnvironment", "Environments")
        .summary("The environment the API key belongs to")
        .answers(200, output("Environment"));
    ApiRoutes::new().add(me, get_current_environment)
}

async fn get_current_environment(State(services): State<Services>, Extension(tenant): Extension<Tenant>) -> RestResult {
    let response = services
        .environments
        .get_current_environment(grpc_request(tenant, pb::GetCurrentEnvironmentRequest {}))
        .await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().environment))
}
