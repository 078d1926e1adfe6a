//! `herald.v1.MessagesService`: per-channel messages and their seen/read state.

use tonic::{Request, Response, Status};

use super::accept;
use super::messages_convert::{mark_as, messages_to_proto};
use crate::domain::messages;
use crate::proto::herald::v1 as pb;

super::service_shell!(MessagesGrpc);

#[tonic::async_trait]
impl pb::messages_service_server::MessagesService for MessagesGrpc {
    async fn list_messages(
        &self,
        request: Request<pb::ListMessagesRequest>,
    ) -> Result<Response<pb::ListMessagesResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let page = messages::list_messages(&mut conn, tenant, message.into()).await?;
        Ok(Response::new(page.try_into()?))
    }

    async fn mark_messages_as(
        &self,
        request: Request<pb::MarkMessagesAsRequest>,
    ) -> Result<Response<pb::MarkMessagesAsResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let updated = messages::mark_messages_as(
            &mut conn,
            tenant,
            &message.subscriber_id,
            &message.message_id,
            mark_as(message.mark_as),
            self.state.engine.clock.now(),
        )
        .await?;
        Ok(Response::new(pb::MarkMessagesAsResponse { messages: messages_to_proto(updated, true)? }))
    }
}
