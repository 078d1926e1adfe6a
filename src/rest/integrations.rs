//! REST routes of integrations (provider connections).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Extension;
use http::StatusCode;

use super::{grpc_request, json_response, parse_json_with_mask, JsonBody, RestResult};
use crate::domain::tenancy::Tenant;
use crate::grpc::Services;
use crate::openapi::schemas::{array_of, input, output};
use crate::openapi::{ApiRoutes, Operation, Reshape};
use crate::proto::herald::v1 as pb;
use pb::integrations_service_server::IntegrationsService;

pub fn routes() -> ApiRoutes<Services> {
    const INTEGRATIONS: &str = "/v1/integrations";
    const INTEGRATION: &str = "/v1/integrations/{integration_id}";
    const TAG: &str = "Integrations";
    let list = Operation::get(INTEGRATIONS, "listIntegrations", TAG)
        .summary("The environment's integrations")
        .answers(200, array_of(output("Integration")));
    let create = Operation::post(INTEGRATIONS, "createIntegration", TAG)
        .body(input("CreateIntegrationRequest"))
        .answers(201, output("Integration"));
    let active = Operation::get("/v1/integrations/active", "listActiveIntegrations", TAG)
        .summary("The organization's active integrations")
        .answers(200, array_of(output("Integration")));
    let get = Operation::get(INTEGRATION, "getIntegration", TAG).answers(200, output("Integration")).errors(&[404]);
    let update = Operation::put(INTEGRATION, "updateIntegration", TAG)
        .body(input("UpdateIntegrationRequest"))
        .answers(200, output("Integration"))
        .errors(&[404]);
    let delete = Operation::delete(INTEGRATION, "deleteIntegration", TAG)
        .summary("Soft-delete an integration; answers the remaining ones")
        .answers(200, array_of(output("Integration")))
        .errors(&[404]);
    let primary = Operation::post("/v1/integrations/{integration_id}/set-primary", "setIntegrationAsPrimary", TAG)
        .summary("Make an email or SMS integration its channel's primary (and active)")
        .answers(200, output("Integration"))
        .errors(&[404]);
    ApiRoutes::new()
        .add(list, list_integrations)
        .add(create, create_integration)
        .add(active, list_active_integrations)
        .add(get, get_integration)
        .add(update, update_integration)
        .add(delete, delete_integration)
        .add(primary, set_integration_as_primary)
        .reshape("CreateIntegrationRequest", Reshape::Required(&["providerId", "channel"]))
        .reshape("Integration", Reshape::Required(&["credentials"]))
}

async fn create_integration(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    JsonBody(request): JsonBody<pb::CreateIntegrationRequest>,
) -> RestResult {
    let response = services.integrations.create_integration(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::CREATED, &response.into_inner().integration))
}

async fn list_integrations(State(services): State<Services>, Extension(tenant): Extension<Tenant>) -> RestResult {
    let request = pb::ListIntegrationsRequest {};
    let response = services.integrations.list_integrations(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().integrations))
}

async fn list_active_integrations(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
) -> RestResult {
    let request = pb::ListActiveIntegrationsRequest {};
    let response = services.integrations.list_active_integrations(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().integrations))
}

async fn get_integration(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(integration_id): Path<String>,
) -> RestResult {
    let request = pb::GetIntegrationRequest { integration_id };
    let response = services.integrations.get_integration(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().integration))
}

/// The body's keys become the `update_mask`, so `"conditions": []` empties the conditions.
async fn update_integration(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(integration_id): Path<String>,
    body: Bytes,
) -> RestResult {
    let (mut request, mask) = parse_json_with_mask::<pb::UpdateIntegrationRequest>(&body)?;
    request.integration_id = integration_id;
    request.update_mask = Some(mask);
    let response = services.integrations.update_integration(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().integration))
}

/// 200 with the remaining integrations of the environment (a JSON array), never 204.
async fn delete_integration(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(integration_id): Path<String>,
) -> RestResult {
    let request = pb::DeleteIntegrationRequest { integration_id };
    let response = services.integrations.delete_integration(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().integrations))
}

/// No body is read: clients send none, often without a content type. The spec says OK: 200.
async fn set_integration_as_primary(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(integration_id): Path<String>,
) -> RestResult {
    let request = pb::SetIntegrationAsPrimaryRequest { integration_id };
    let response = services.integrations.set_integration_as_primary(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().integration))
}
