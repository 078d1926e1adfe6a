//! `herald.v1.EnvironmentsService`.

use tonic::{Request, Response, Status};

use super::accept;
use crate::domain::tenancy::Environment;
use crate::proto::herald::v1 as pb;
use crate::wire::format_timestamp;

super::service_shell!(EnvironmentsGrpc);

impl From<Environment> for pb::Environment {
    fn from(environment: Environment) -> Self {
        Self {
            id: environment.id.to_string(),
            name: environment.name,
            organization_id: environment.organization_id.to_string(),
            created_at: format_timestamp(environment.created_at),
            updated_at: format_timestamp(environment.updated_at),
            application_identifier: environment.application_identifier,
        }
    }
}

#[tonic::async_trait]
impl pb::environments_service_server::EnvironmentsService for EnvironmentsGrpc {
    async fn get_current_environment(
        &self,
        request: Request<pb::GetCurrentEnvironmentRequest>,
    ) -> Result<Response<pb::GetCurrentEnvironmentResponse>, Status> {
        let (tenant, _) = accept(request)?;
        let environment = self.state.environments.get(&self.state.pool, tenant.environment_id).await?;
        Ok(Response::new(pb::GetCurrentEnvironmentResponse { environment: Some(environment.into()) }))
    }
}
