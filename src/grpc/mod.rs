//! tonic service implementations: thin adapters that read the tenant, convert proto ↔ domain and
//! call the domain functions. Services not implemented yet rely on the generated default methods,
//! which answer UNIMPLEMENTED.

pub mod convert;
pub mod environments;
pub mod integrations;
pub mod subscriber_convert;
pub mod subscribers;
pub mod unimplemented;
pub mod workflows;

use axum::Router;

use crate::proto::herald::v1 as pb;
use crate::server::{with_grpc_service, AppState, MAX_REQUEST_BYTES};

/// One instance of every Herald gRPC service, shared by the gRPC router and the REST layer.
#[derive(Clone)]
pub struct Services {
    pub environments: environments::EnvironmentsGrpc,
    pub subscribers: subscribers::SubscribersGrpc,
    pub integrations: integrations::IntegrationsGrpc,
    pub workflows: workflows::WorkflowsGrpc,
}

impl Services {
    pub fn new(state: AppState) -> Self {
        Self {
            environments: environments::EnvironmentsGrpc::new(state.clone()),
            subscribers: subscribers::SubscribersGrpc::new(state.clone()),
            integrations: integrations::IntegrationsGrpc::new(state.clone()),
            workflows: workflows::WorkflowsGrpc::new(state),
        }
    }
}

/// Every Herald gRPC service, mounted on one router (authentication is added by the server).
pub fn routes(services: &Services) -> Router {
    use pb::environments_service_server::EnvironmentsServiceServer;
    use pb::integrations_service_server::IntegrationsServiceServer;
    use pb::subscribers_service_server::SubscribersServiceServer;
    use pb::workflows_service_server::WorkflowsServiceServer;

    let router = Router::new();
    let router = with_grpc_service(
        router,
        EnvironmentsServiceServer::new(services.environments.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
    );
    let router = with_grpc_service(
        router,
        SubscribersServiceServer::new(services.subscribers.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
    );
    let router = with_grpc_service(
        router,
        IntegrationsServiceServer::new(services.integrations.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
    );
    let router = with_grpc_service(
        router,
        WorkflowsServiceServer::new(services.workflows.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
    );
    unimplemented::mount(router)
}
