//! tonic service implementations: thin adapters that read the tenant, convert proto ↔ domain and
//! call the domain functions. Services not implemented yet rely on the generated default methods,
//! which answer UNIMPLEMENTED.

pub mod convert;
pub mod environments;
pub mod unimplemented;

use axum::Router;

use crate::proto::herald::v1 as pb;
use crate::server::{with_grpc_service, AppState, MAX_REQUEST_BYTES};

/// One instance of every Herald gRPC service, shared by the gRPC router and the REST layer.
#[derive(Clone)]
pub struct Services {
    pub environments: environments::EnvironmentsGrpc,
}

impl Services {
    pub fn new(state: AppState) -> Self {
        Self { environments: environments::EnvironmentsGrpc::new(state) }
    }
}

/// Every Herald gRPC service, mounted on one router (authentication is added by the server).
pub fn routes(services: &Services) -> Router {
    let environments = pb::environments_service_server::EnvironmentsServiceServer::new(services.environments.clone())
        .max_decoding_message_size(MAX_REQUEST_BYTES);
    unimplemented::mount(with_grpc_service(Router::new(), environments))
}
