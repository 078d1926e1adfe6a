//! tonic service implementations: thin adapters that read the tenant, convert proto ↔ domain and
//! call the domain functions.

pub mod activity_convert;
pub mod convert;
pub mod environments;
pub mod events;
pub mod events_convert;
pub mod integrations;
pub mod message_convert;
pub mod messages;
pub mod notifications;
pub mod subscriber_convert;
pub mod subscribers;
pub mod template_convert;
pub mod workflows;
pub mod workflows_convert;

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
    pub events: events::EventsGrpc,
    pub notifications: notifications::NotificationsGrpc,
    pub messages: messages::MessagesGrpc,
}

impl Services {
    pub fn new(state: AppState) -> Self {
        Self {
            environments: environments::EnvironmentsGrpc::new(state.clone()),
            subscribers: subscribers::SubscribersGrpc::new(state.clone()),
            integrations: integrations::IntegrationsGrpc::new(state.clone()),
            workflows: workflows::WorkflowsGrpc::new(state.clone()),
            events: events::EventsGrpc::new(state.clone()),
            notifications: notifications::NotificationsGrpc::new(state.clone()),
            messages: messages::MessagesGrpc::new(state),
        }
    }
}

/// Every Herald gRPC service, mounted on one router (authentication is added by the server).
pub fn routes(services: &Services) -> Router {
    use pb::environments_service_server::EnvironmentsServiceServer;
    use pb::events_service_server::EventsServiceServer;
    use pb::integrations_service_server::IntegrationsServiceServer;
    use pb::messages_service_server::MessagesServiceServer;
    use pb::notifications_service_server::NotificationsServiceServer;
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
    let router = with_grpc_service(
        router,
        EventsServiceServer::new(services.events.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
    );
    let router = with_grpc_service(
        router,
        NotificationsServiceServer::new(services.notifications.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
    );
    with_grpc_service(
        router,
        MessagesServiceServer::new(services.messages.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
    )
}
