//! `herald.v1.WorkflowsService`: workflows (v2).

use serde_json::Value;
use tonic::{Request, Response, Status};

use super::accept;
use crate::db::request::after_commit;
use crate::domain::workflows::{self as domain, WorkflowQuery};
use crate::error::{AppError, AppResult};
use crate::proto::herald::v1 as pb;

super::service_shell!(WorkflowsGrpc);

impl WorkflowsGrpc {
    /// Triggers read definitions from a cache: it forgets them once this write is visible (after the
    /// commit of a keyed request's transaction; a lookup before that reads the old definition again).
    async fn forget_cached_workflows(&self) {
        let workflows = self.state.engine.workflows.clone();
        after_commit(async move { workflows.invalidate() }).await;
    }
}

fn missing_workflow() -> AppError {
    AppError::invalid_field("workflow", "the workflow definition is required", Value::Null)
}

#[tonic::async_trait]
impl pb::workflows_service_server::WorkflowsService for WorkflowsGrpc {
    async fn create_workflow(
        &self,
        request: Request<pb::CreateWorkflowRequest>,
    ) -> Result<Response<pb::CreateWorkflowResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let input = message.workflow.ok_or_else(missing_workflow)?;
        let mut conn = self.state.connection().await?;
        let created = domain::create_workflow(&mut conn, tenant, input.into()).await?;
        self.forget_cached_workflows().await;
        Ok(Response::new(pb::CreateWorkflowResponse { workflow: Some((&created).try_into()?) }))
    }

    async fn get_workflow(
        &self,
        request: Request<pb::GetWorkflowRequest>,
    ) -> Result<Response<pb::GetWorkflowResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let found = domain::get_workflow(&mut conn, tenant, &message.workflow_id).await?;
        Ok(Response::new(pb::GetWorkflowResponse { workflow: Some((&found).try_into()?) }))
    }

    async fn list_workflows(
        &self,
        request: Request<pb::ListWorkflowsRequest>,
    ) -> Result<Response<pb::ListWorkflowsResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let query = WorkflowQuery {
            offset: message.offset.map(i64::from),
            limit: message.limit.map(i64::from),
            query: message.query,
        };
        let mut conn = self.state.connection().await?;
        let page = domain::list_workflows(&mut conn, tenant, query).await?;
        let workflows = page.workflows.iter().map(TryInto::try_into).collect::<AppResult<Vec<_>>>()?;
        let total_count = i32::try_from(page.total_count).unwrap_or(i32::MAX);
        Ok(Response::new(pb::ListWorkflowsResponse { workflows, total_count }))
    }

    async fn update_workflow(
        &self,
        request: Request<pb::UpdateWorkflowRequest>,
    ) -> Result<Response<pb::UpdateWorkflowResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let input = message.workflow.ok_or_else(missing_workflow)?;
        let mut conn = self.state.connection().await?;
        let updated = domain::update_workflow(&mut conn, tenant, &message.workflow_id, input.into()).await?;
        self.forget_cached_workflows().await;
        Ok(Response::new(pb::UpdateWorkflowResponse { workflow: Some((&updated).try_into()?) }))
    }

    async fn delete_workflow(
        &self,
        request: Request<pb::DeleteWorkflowRequest>,
    ) -> Result<Response<pb::DeleteWorkflowResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        domain::delete_workflow(&mut conn, tenant, &message.workflow_id).await?;
        self.forget_cached_workflows().await;
        Ok(Response::new(pb::DeleteWorkflowResponse {}))
    }
}
