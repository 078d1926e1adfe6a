//! `herald.v1.SubscribersService`: subscribers, their channel credentials and preferences.

use crate::proto::herald::v1 as pb;
use crate::server::AppState;

#[derive(Clone)]
pub struct SubscribersGrpc {
    state: AppState,
}

impl SubscribersGrpc {
    pub fn new(state: AppState) -> Self {
        Self { state }
    }
}

#[tonic::async_trait]
impl pb::subscribers_service_server::SubscribersService for SubscribersGrpc {}
