//! `herald.v1.IntegrationsService`: integrations (provider connections).

use crate::proto::herald::v1 as pb;
use crate::server::AppState;

#[derive(Clone)]
pub struct IntegrationsGrpc {
    state: AppState,
}

impl IntegrationsGrpc {
    pub fn new(state: AppState) -> Self {
        Self { state }
    }
}

#[tonic::async_trait]
impl pb::integrations_service_server::IntegrationsService for IntegrationsGrpc {}
