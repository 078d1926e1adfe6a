//! Services of the API whose rpcs are not implemented yet. They are served anyway (and listed by
//! reflection) so that clients can be generated and called today; every rpc answers UNIMPLEMENTED
//! through tonic's generated default methods — never a fake success. Each later issue moves one
//! service out of this file into its own module.

use axum::Router;

use crate::proto::herald::v1 as pb;
use crate::server::with_grpc_service;

/// Stands in for every service not implemented yet.
#[derive(Clone, Copy)]
pub struct NotYetImplemented;

#[tonic::async_trait]
impl pb::messages_service_server::MessagesService for NotYetImplemented {}
#[tonic::async_trait]
impl pb::notifications_service_server::NotificationsService for NotYetImplemented {}
#[tonic::async_trait]
impl pb::events_service_server::EventsService for NotYetImplemented {}

/// Mounts the services above on `router`.
pub fn mount(router: Router) -> Router {
    use pb::events_service_server::EventsServiceServer;
    use pb::messages_service_server::MessagesServiceServer;
    use pb::notifications_service_server::NotificationsServiceServer;

    let router = with_grpc_service(router, MessagesServiceServer::new(NotYetImplemented));
    let router = with_grpc_service(router, NotificationsServiceServer::new(NotYetImplemented));
    with_grpc_service(router, EventsServiceServer::new(NotYetImplemented))
}
