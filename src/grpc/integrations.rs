//! `herald.v1.IntegrationsService`: integrations (provider connections).

use serde_json::Value;
use tonic::{Request, Response, Status};

use super::accept;
use super::convert::enum_name;
use crate::domain::integrations::{self, Integration, IntegrationChanges, NewIntegration};
use crate::domain::validation::Validator;
use crate::error::{AppError, AppResult};
use crate::proto::herald::v1 as pb;
use crate::wire::format_timestamp;

super::service_shell!(IntegrationsGrpc);

fn channel_name(channel: i32) -> String {
    enum_name(pb::channel_type_enum::ChannelType::try_from(channel).ok().map(|channel| channel.as_str_name()))
}

fn credentials_json(credentials: Option<&pb::IntegrationCredentials>) -> Value {
    credentials.map_or_else(|| Value::Object(Default::default()), |c| serde_json::to_value(c).expect("serializable"))
}

/// Step filters as stored (their JSON form); unset enums are rejected, every one reported.
fn conditions_json(conditions: &[pb::StepFilter], validator: &mut Validator) -> Value {
    for (index, filter) in conditions.iter().enumerate() {
        let path = format!("conditions[{index}]");
        validator.check(filter.r#type != 0, &format!("{path}.type"), "type is required", Value::Null);
        validator.check(filter.value != 0, &format!("{path}.value"), "value must be AND or OR", Value::Null);
        for (child_index, child) in filter.children.iter().enumerate() {
            let child_path = format!("{path}.children[{child_index}]");
            validator.check(
                child.operator != 0,
                &format!("{child_path}.operator"),
                "operator is required",
                Value::Null,
            );
            validator.check(
                child.on != 0,
                &format!("{child_path}.on"),
                "on must be subscriber or payload",
                Value::Null,
            );
        }
    }
    serde_json::to_value(conditions).expect("serializable")
}

impl TryFrom<pb::CreateIntegrationRequest> for NewIntegration {
    type Error = AppError;

    fn try_from(request: pb::CreateIntegrationRequest) -> AppResult<Self> {
        let mut validator = Validator::new();
        let conditions = conditions_json(&request.conditions, &mut validator);
        validator.finish()?;
        Ok(NewIntegration {
            name: request.name,
            identifier: request.identifier,
            provider_id: request.provider_id,
            channel: channel_name(request.channel),
            credentials: credentials_json(request.credentials.as_ref()),
            active: request.active.unwrap_or(false),
            conditions,
            inbound_webhook_enabled: request
                .configurations
                .and_then(|configurations| configurations.inbound_webhook_enabled)
                .unwrap_or(false),
        })
    }
}

impl TryFrom<&pb::UpdateIntegrationRequest> for IntegrationChanges {
    type Error = AppError;

    /// With an `update_mask`, exactly the named fields are written (`credentials: null` clears
    /// them, `conditions: []` empties them); without one, every set field, and `conditions` only
    /// when non-empty.
    fn try_from(request: &pb::UpdateIntegrationRequest) -> AppResult<Self> {
        let paths = request.update_mask.as_ref().map(|mask| mask.paths.clone()).unwrap_or_default();
        let masked = !paths.is_empty();
        let wants = |field: &str| !masked || paths.iter().any(|path| path == field);
        let mut validator = Validator::new();
        let conditions = conditions_json(&request.conditions, &mut validator);
        validator.finish()?;
        let credentials = match &request.credentials {
            Some(credentials) if wants("credentials") => Some(credentials_json(Some(credentials))),
            None if masked && wants("credentials") => Some(credentials_json(None)),
            _ => None,
        };
        let write_conditions = if masked { wants("conditions") } else { !request.conditions.is_empty() };
        Ok(IntegrationChanges {
            name: request.name.clone().filter(|_| wants("name")),
            identifier: request.identifier.clone().filter(|_| wants("identifier")),
            active: request.active.filter(|_| wants("active")),
            credentials,
            conditions: write_conditions.then_some(conditions),
            inbound_webhook_enabled: request
                .configurations
                .as_ref()
                .and_then(|configurations| configurations.inbound_webhook_enabled)
                .filter(|_| wants("configurations")),
        })
    }
}

/// The API form of an integration; `with_configurations` only for the active listing.
fn to_proto(integration: Integration, with_configurations: bool) -> AppResult<pb::Integration> {
    let row = integration.row;
    let credentials: pb::IntegrationCredentials =
        serde_json::from_value(integration.credentials).map_err(AppError::internal)?;
    let conditions: Vec<pb::StepFilter> = serde_json::from_value(row.conditions).map_err(AppError::internal)?;
    let channel = pb::channel_type_enum::ChannelType::from_str_name(&row.channel)
        .ok_or_else(|| AppError::internal(format!("stored channel {} is unknown", row.channel)))?;
    Ok(pb::Integration {
        id: row.id.to_string(),
        environment_id: row.environment_id.to_string(),
        organization_id: row.organization_id.to_string(),
        name: row.name,
        identifier: row.identifier,
        provider_id: row.provider_id,
        channel: channel as i32,
        credentials: Some(credentials),
        configurations: with_configurations.then_some(pb::IntegrationConfigurations {
            inbound_webhook_enabled: Some(row.inbound_webhook_enabled),
            inbound_webhook_signing_key: Some(row.inbound_webhook_signing_key),
        }),
        active: row.active,
        deleted: row.deleted,
        deleted_at: row.deleted_at.map(format_timestamp),
        deleted_by: row.deleted_by,
        primary: row.is_primary,
        conditions,
    })
}

fn all_to_proto(integrations: Vec<Integration>, with_configurations: bool) -> AppResult<Vec<pb::Integration>> {
    integrations.into_iter().map(|integration| to_proto(integration, with_configurations)).collect()
}

#[tonic::async_trait]
impl pb::integrations_service_server::IntegrationsService for IntegrationsGrpc {
    async fn create_integration(
        &self,
        request: Request<pb::CreateIntegrationRequest>,
    ) -> Result<Response<pb::CreateIntegrationResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let new = NewIntegration::try_from(message)?;
        let mut conn = self.state.connection().await?;
        let created = integrations::create_integration(&mut conn, &self.state.cipher, tenant, new).await?;
        Ok(Response::new(pb::CreateIntegrationResponse { integration: Some(to_proto(created, false)?) }))
    }

    async fn get_integration(
        &self,
        request: Request<pb::GetIntegrationRequest>,
    ) -> Result<Response<pb::GetIntegrationResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let id = &message.integration_id;
        let found = integrations::get_integration(&mut conn, &self.state.cipher, tenant, id).await?;
        Ok(Response::new(pb::GetIntegrationResponse { integration: Some(to_proto(found, false)?) }))
    }

    async fn list_integrations(
        &self,
        request: Request<pb::ListIntegrationsRequest>,
    ) -> Result<Response<pb::ListIntegrationsResponse>, Status> {
        let (tenant, _) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let listed = integrations::list_integrations(&mut conn, &self.state.cipher, tenant).await?;
        Ok(Response::new(pb::ListIntegrationsResponse { integrations: all_to_proto(listed, false)? }))
    }

    async fn update_integration(
        &self,
        request: Request<pb::UpdateIntegrationRequest>,
    ) -> Result<Response<pb::UpdateIntegrationResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let changes = IntegrationChanges::try_from(&message)?;
        let mut conn = self.state.connection().await?;
        let id = &message.integration_id;
        let updated = integrations::update_integration(&mut conn, &self.state.cipher, tenant, id, changes).await?;
        Ok(Response::new(pb::UpdateIntegrationResponse { integration: Some(to_proto(updated, false)?) }))
    }

    async fn delete_integration(
        &self,
        request: Request<pb::DeleteIntegrationRequest>,
    ) -> Result<Response<pb::DeleteIntegrationResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let id = &message.integration_id;
        let remaining = integrations::delete_integration(&mut conn, &self.state.cipher, tenant, id).await?;
        Ok(Response::new(pb::DeleteIntegrationResponse { integrations: all_to_proto(remaining, false)? }))
    }

    async fn set_integration_as_primary(
        &self,
        request: Request<pb::SetIntegrationAsPrimaryRequest>,
    ) -> Result<Response<pb::SetIntegrationAsPrimaryResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let id = &message.integration_id;
        let primary = integrations::set_primary(&mut conn, &self.state.cipher, tenant, id).await?;
        Ok(Response::new(pb::SetIntegrationAsPrimaryResponse { integration: Some(to_proto(primary, false)?) }))
    }

    async fn list_active_integrations(
        &self,
        request: Request<pb::ListActiveIntegrationsRequest>,
    ) -> Result<Response<pb::ListActiveIntegrationsResponse>, Status> {
        let (tenant, _) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let active = integrations::list_active_integrations(&mut conn, &self.state.cipher, tenant).await?;
        Ok(Response::new(pb::ListActiveIntegrationsResponse { integrations: all_to_proto(active, true)? }))
    }
}
