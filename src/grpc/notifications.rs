//! `herald.v1.NotificationsService`: notification events (the activity of triggers).

use tonic::{Request, Response, Status};

use super::accept;
use crate::domain::activity;
use crate::proto::herald::v1 as pb;

super::service_shell!(NotificationsGrpc);

#[tonic::async_trait]
impl pb::notifications_service_server::NotificationsService for NotificationsGrpc {
    async fn list_notifications(
        &self,
        request: Request<pb::ListNotificationsRequest>,
    ) -> Result<Response<pb::ListNotificationsResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let page = activity::list_notifications(&mut conn, tenant, message.into()).await?;
        Ok(Response::new(page.into()))
    }

    async fn get_notification(
        &self,
        request: Request<pb::GetNotificationRequest>,
    ) -> Result<Response<pb::GetNotificationResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let notification_id = message.notification_id;
        let mut conn = self.state.connection().await?;
        let event = activity::get_notification(&mut conn, tenant, &notification_id).await?;
        Ok(Response::new(pb::GetNotificationResponse { notification: Some(event.into()) }))
    }
}
