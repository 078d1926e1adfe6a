//! REST routes of workflows (v2).

use axum::extract::{Path, State};
use axum::Extension;
use http::StatusCode;
use serde_json::{json, Value};

use super::body::from_value;
use super::query::{OutOfRange, QueryParams};
use super::{grpc_request, json_response, JsonBody, RestResult};
use crate::domain::limits::IDENTIFIER_CHARS;
use crate::domain::tenancy::Tenant;
use crate::domain::workflows::MAX_STEPS;
use crate::error::AppError;
use crate::grpc::Services;
use crate::openapi::schemas::{array_of, input, output};
use crate::openapi::{ApiRoutes, Operation, Reshape};
use crate::proto::herald::v1 as pb;
use pb::workflows_service_server::WorkflowsService;

pub fn routes() -> ApiRoutes<Services> {
    const WORKFLOWS: &str = "/v2/workflows";
    const WORKFLOW: &str = "/v2/workflows/{workflow_id}";
    const TAG: &str = "Workflows";
    let create = Operation::post(WORKFLOWS, "createWorkflow", TAG)
        .body(input("WorkflowInput"))
        .answers(201, output("Workflow"))
        .errors(&[409]);
    let list = Operation::get(WORKFLOWS, "listWorkflows", TAG)
        .query("offset", json!({"type": "integer", "minimum": 0}))
        .query("limit", json!({"type": "integer", "minimum": 1, "maximum": 100}))
        .query_text("query")
        .answers(200, output("ListWorkflowsResponse"));
    let get = Operation::get(WORKFLOW, "getWorkflow", TAG)
        .summary("A workflow by identifier, `_id` or slug")
        .answers(200, output("Workflow"))
        .errors(&[404]);
    let update = Operation::put(WORKFLOW, "updateWorkflow", TAG)
        .summary("Replace a workflow's definition")
        .body(input("WorkflowInput"))
        .answers(200, output("Workflow"))
        .errors(&[404]);
    let delete = Operation::delete(WORKFLOW, "deleteWorkflow", TAG)
        .answers(200, output("DeleteWorkflowResponse"))
        .errors(&[404]);
    // A step's `"_id": null` reads as a new step.
    let step_id = json!({"type": ["string", "null"], "maxLength": IDENTIFIER_CHARS});
    let mut steps = array_of(input("WorkflowStepInput"));
    steps["maxItems"] = json!(MAX_STEPS);
    ApiRoutes::new()
        .add(create, create_workflow)
        .add(list, list_workflows)
        .add(get, get_workflow)
        .add(update, update_workflow)
        .add(delete, delete_workflow)
        .reshape("WorkflowStepInput", Reshape::Property("_id", step_id))
        .reshape("WorkflowInput", Reshape::Property("steps", steps))
        .reshape("Workflow", Reshape::Required(&["preferences"]))
}

async fn create_workflow(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    JsonBody(body): JsonBody<Value>,
) -> RestResult {
    let request = pb::CreateWorkflowRequest { workflow: Some(workflow_input(body)?) };
    let response = services.workflows.create_workflow(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::CREATED, &response.into_inner().workflow))
}

async fn list_workflows(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    query: QueryParams,
) -> RestResult {
    let request = pb::ListWorkflowsRequest {
        offset: query.int32("offset", OutOfRange::Clamp)?,
        limit: query.int32("limit", OutOfRange::Clamp)?,
        query: query.string("query"),
    };
    let response = services.workflows.list_workflows(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner()))
}

async fn get_workflow(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(workflow_id): Path<String>,
) -> RestResult {
    let response =
        services.workflows.get_workflow(grpc_request(tenant, pb::GetWorkflowRequest { workflow_id })).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().workflow))
}

/// The body is the definition itself; the path names the workflow to replace.
async fn update_workflow(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(workflow_id): Path<String>,
    JsonBody(body): JsonBody<Value>,
) -> RestResult {
    let request = pb::UpdateWorkflowRequest { workflow_id, workflow: Some(workflow_input(body)?) };
    let response = services.workflows.update_workflow(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().workflow))
}

/// The definition in a create or update body. A step's `"_id": null` means a new step, as an absent
/// `_id` does; the proto field has no presence (see common.proto), so pbjson alone would refuse it.
fn workflow_input(mut body: Value) -> Result<pb::WorkflowInput, AppError> {
    if let Some(Value::Array(steps)) = body.get_mut("steps") {
        for step in steps.iter_mut().filter_map(Value::as_object_mut) {
            if step.get("_id").is_some_and(Value::is_null) {
                step.remove("_id");
            }
        }
    }
    from_value(body)
}

/// 200 with the (empty) response message as JSON, `{}`: every REST body is JSON.
async fn delete_workflow(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(workflow_id): Path<String>,
) -> RestResult {
    let request = pb::DeleteWorkflowRequest { workflow_id };
    let response = services.workflows.delete_workflow(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner()))
}
