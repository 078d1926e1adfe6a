//! `herald.v1.WorkflowsService`: workflows (v2).

use crate::proto::herald::v1 as pb;
use crate::server::AppState;

#[derive(Clone)]
pub struct WorkflowsGrpc {
    state: AppState,
}

impl WorkflowsGrpc {
    pub fn new(state: AppState) -> Self {
        Self { state }
    }
}

#[tonic::async_trait]
impl pb::workflows_service_server::WorkflowsService for WorkflowsGrpc {}
