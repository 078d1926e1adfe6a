//! tonic service implementations: thin adapters that read the tenant, convert proto ↔ domain and
//! call the domain functions.

/// Defines a tonic service type: a cheap clone of the [`AppState`] its methods use.
macro_rules! service_shell {
    ($name:ident) => {
        #[derive(Clone)]
        pub struct $name {
            state: $crate::app::AppState,
        }

        impl $name {
            pub fn new(state: $crate::app::AppState) -> Self {
                Self { state }
            }
        }
    };
}
pub(crate) use service_shell;

pub mod convert;
pub mod environments;
pub mod events;
pub mod events_convert;
pub mod events_stream;
pub mod inbox;
pub mod inbox_convert;
pub mod integrations;
pub mod messages;
pub mod messages_convert;
pub mod notifications;
pub mod notifications_convert;
pub mod subscribers;
pub mod subscribers_convert;
pub mod template_convert;
pub mod topics;
pub mod workflows;
pub mod workflows_convert;

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use axum::Router;
use http::Request;
use tonic::server::NamedService;
use tower::ServiceExt;

use crate::app::{AppState, MAX_REQUEST_BYTES};
use crate::auth::tenant_of;
use crate::domain::limits::check_bounds;
use crate::domain::tenancy::Tenant;
use crate::proto::herald::v1 as pb;

/// The tenant and message of a request whose every value is within the API's bounds: the first step
/// of every method, so no oversized value reaches the database, whichever transport it came by.
pub(crate) fn accept<T: serde::Serialize>(request: tonic::Request<T>) -> Result<(Tenant, T), tonic::Status> {
    let tenant = tenant_of(&request)?;
    let message = request.into_inner();
    check_bounds(&message)?;
    Ok((tenant, message))
}

/// One instance of every Herald gRPC service, shared by the gRPC router and the REST layer. The REST
/// layer's `State` is cloned for every request, so the services sit behind one `Arc`: cloned and dropped
/// field by field, their ten `AppState`s were about 2% of the server's CPU under triggers (`perf`).
#[derive(Clone)]
pub struct Services(Arc<ServiceSet>);

impl std::ops::Deref for Services {
    type Target = ServiceSet;

    fn deref(&self) -> &ServiceSet {
        &self.0
    }
}

/// The services of [`Services`].
pub struct ServiceSet {
    pub environments: environments::EnvironmentsGrpc,
    pub subscribers: subscribers::SubscribersGrpc,
    pub integrations: integrations::IntegrationsGrpc,
    pub workflows: workflows::WorkflowsGrpc,
    pub events: events::EventsGrpc,
    pub notifications: notifications::NotificationsGrpc,
    pub messages: messages::MessagesGrpc,
    pub topics: topics::TopicsGrpc,
    pub inbox_session: inbox::InboxSessionGrpc,
    pub inbox: inbox::InboxGrpc,
}

impl Services {
    pub fn new(state: AppState) -> Self {
        Self(Arc::new(ServiceSet {
            environments: environments::EnvironmentsGrpc::new(state.clone()),
            subscribers: subscribers::SubscribersGrpc::new(state.clone()),
            integrations: integrations::IntegrationsGrpc::new(state.clone()),
            workflows: workflows::WorkflowsGrpc::new(state.clone()),
            events: events::EventsGrpc::new(state.clone()),
            notifications: notifications::NotificationsGrpc::new(state.clone()),
            messages: messages::MessagesGrpc::new(state.clone()),
            topics: topics::TopicsGrpc::new(state.clone()),
            inbox_session: inbox::InboxSessionGrpc::new(state.clone()),
            inbox: inbox::InboxGrpc::new(state),
        }))
    }
}

/// The inbox session service: open, its callers have no credential yet.
pub fn inbox_session_routes(services: &Services) -> Router {
    use pb::inbox_session_service_server::InboxSessionServiceServer;
    let server = InboxSessionServiceServer::new(services.inbox_session.clone());
    with_grpc_service(Router::new(), server.max_decoding_message_size(MAX_REQUEST_BYTES))
}

/// The inbox service (the server adds the session-token authentication).
pub fn inbox_routes(services: &Services) -> Router {
    use pb::inbox_service_server::InboxServiceServer;
    let server = InboxServiceServer::new(services.inbox.clone());
    with_grpc_service(Router::new(), server.max_decoding_message_size(MAX_REQUEST_BYTES))
}

/// Every Herald gRPC service authenticated by API key, mounted on one router (authentication is
/// added by the server).
pub fn routes(services: &Services) -> Router {
    use pb::environments_service_server::EnvironmentsServiceServer;
    use pb::events_service_server::EventsServiceServer;
    use pb::integrations_service_server::IntegrationsServiceServer;
    use pb::messages_service_server::MessagesServiceServer;
    use pb::notifications_service_server::NotificationsServiceServer;
    use pb::subscribers_service_server::SubscribersServiceServer;
    use pb::topics_service_server::TopicsServiceServer;
    use pb::workflows_service_server::WorkflowsServiceServer;

    /// Mounts each generated server around its service, with the message size limit.
    macro_rules! mount {
        ($($server:ident($service:expr)),+ $(,)?) => {{
            let router = Router::new();
            $(let router = with_grpc_service(
                router,
                $server::new($service.clone()).max_decoding_message_size(MAX_REQUEST_BYTES),
            );)+
            router
        }};
    }

    mount!(
        EnvironmentsServiceServer(services.environments),
        SubscribersServiceServer(services.subscribers),
        IntegrationsServiceServer(services.integrations),
        WorkflowsServiceServer(services.workflows),
        EventsServiceServer(services.events),
        NotificationsServiceServer(services.notifications),
        MessagesServiceServer(services.messages),
        TopicsServiceServer(services.topics),
    )
}

/// Mounts a generated tonic server on `router` at `/<package>.<Service>/{*method}`.
fn with_grpc_service<S>(router: Router, server: S) -> Router
where
    S: NamedService
        + tower::Service<
            Request<tonic::body::Body>,
            Response = Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let path = format!("/{}/{{*method}}", S::NAME);
    router.route_service(&path, server.map_request(|request: Request<Body>| request.map(tonic::body::Body::new)))
}
