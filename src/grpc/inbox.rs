//! `herald.v1.InboxSessionService` (open: no credential) and `herald.v1.InboxService` (a session
//! token: the server puts [`authenticate_subscriber`](crate::auth::authenticate_subscriber) in front).

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use super::inbox_convert::{inbox_mark, list_response, saturating_count};
use crate::auth::subscriber_of;
use crate::domain::inbox::{self, InboxFilter, InboxSubscriber};
use crate::domain::limits::check_bounds;
use crate::domain::validation::Validator;
use crate::proto::herald::v1 as pb;

super::service_shell!(InboxSessionGrpc);
super::service_shell!(InboxGrpc);

/// The subscriber and message of an inbox request within the API's bounds (as `super::accept`).
fn accept_inbox<T: serde::Serialize>(request: Request<T>) -> Result<(InboxSubscriber, T), Status> {
    let subscriber = subscriber_of(&request)?;
    let message = request.into_inner();
    check_bounds(&message)?;
    Ok((subscriber, message))
}

#[tonic::async_trait]
impl pb::inbox_session_service_server::InboxSessionService for InboxSessionGrpc {
    async fn create_inbox_session(
        &self,
        request: Request<pb::CreateInboxSessionRequest>,
    ) -> Result<Response<pb::CreateInboxSessionResponse>, Status> {
        let message = request.into_inner();
        check_bounds(&message)?;
        let mut conn = self.state.connection().await?;
        let session =
            inbox::create_session(&mut conn, &self.state.cipher, &self.state.inbox_tokens, message.into()).await?;
        Ok(Response::new(pb::CreateInboxSessionResponse { data: Some(session.into()) }))
    }
}

#[tonic::async_trait]
impl pb::inbox_service_server::InboxService for InboxGrpc {
    type StreamInboxEventsStream = Pin<Box<dyn Stream<Item = Result<pb::StreamInboxEventsResponse, Status>> + Send>>;

    async fn stream_inbox_events(
        &self,
        request: Request<pb::StreamInboxEventsRequest>,
    ) -> Result<Response<Self::StreamInboxEventsStream>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let events =
            inbox::inbox_events(self.state.pool.clone(), &self.state.inbox_feed, subscriber, message.last_event_id)
                .map(|event| {
                    event.map(|event| pb::StreamInboxEventsResponse { event: Some(event.into()) }).map_err(Status::from)
                });
        Ok(Response::new(Box::pin(events)))
    }

    async fn list_inbox_notifications(
        &self,
        request: Request<pb::ListInboxNotificationsRequest>,
    ) -> Result<Response<pb::ListInboxNotificationsResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let query: inbox::InboxQuery = message.into();
        let filter = query.filter.clone();
        let mut conn = self.state.connection().await?;
        let page = inbox::list_inbox_notifications(&mut conn, &subscriber, query).await?;
        Ok(Response::new(list_response(page, filter)))
    }

    async fn count_inbox_notifications(
        &self,
        request: Request<pb::CountInboxNotificationsRequest>,
    ) -> Result<Response<pb::CountInboxNotificationsResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let filters: Vec<InboxFilter> = message.filters.into_iter().map(InboxFilter::from).collect();
        let mut conn = self.state.connection().await?;
        let counts = inbox::count_inbox_notifications(&mut conn, &subscriber, &filters).await?;
        let data = filters
            .into_iter()
            .zip(counts)
            .map(|(filter, count)| pb::InboxCount { count: saturating_count(count), filter: Some(filter.into()) })
            .collect();
        Ok(Response::new(pb::CountInboxNotificationsResponse { data }))
    }

    async fn mark_inbox_notification(
        &self,
        request: Request<pb::MarkInboxNotificationRequest>,
    ) -> Result<Response<pb::MarkInboxNotificationResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let mark = inbox_mark(message.mark);
        let mut validator = Validator::new();
        validator.check(mark.is_some(), "mark", "mark must be one of read, unread, archive, unarchive", message.mark);
        validator.finish()?;
        let mut conn = self.state.connection().await?;
        let marked = inbox::mark_inbox_notification(
            &mut conn,
            &subscriber,
            &message.notification_id,
            mark.expect("checked above"),
        )
        .await?;
        Ok(Response::new(pb::MarkInboxNotificationResponse { data: Some(marked.into()) }))
    }

    async fn read_all_inbox_notifications(
        &self,
        request: Request<pb::ReadAllInboxNotificationsRequest>,
    ) -> Result<Response<pb::ReadAllInboxNotificationsResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let mut conn = self.state.connection().await?;
        let updated = inbox::read_all_inbox_notifications(&mut conn, &subscriber, message.tags).await?;
        Ok(Response::new(pb::ReadAllInboxNotificationsResponse { updated: saturating_count(updated as i64) }))
    }
}
