//! `herald.v1.InboxSessionService` (open: no credential) and `herald.v1.InboxService` (a session
//! token: the server puts [`authenticate_subscriber`](crate::auth::authenticate_subscriber) in front).

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use super::inbox_convert::{action_type, bulk_change, inbox_mark, list_response, saturating_count, with_position};
use crate::auth::subscriber_of;
use crate::domain::inbox::{self, InboxFilter, InboxSubscriber};
use crate::domain::limits::check_bounds;
use crate::domain::messages::MarkAs;
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
        let events = inbox::inbox_events(
            self.state.pool.clone(),
            &self.state.engine.inbox_feed,
            subscriber,
            message.last_event_id,
        )
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
        let mark = inbox_mark(&message, self.state.engine.clock.now())?;
        let mut conn = self.state.connection().await?;
        let now = self.state.engine.clock.now();
        let marked =
            inbox::mark_inbox_notification(&mut conn, &subscriber, &message.notification_id, mark, now).await?;
        let position = inbox::inbox_position(&mut conn, &subscriber).await?;
        Ok(with_position(pb::MarkInboxNotificationResponse { data: Some(marked.into()) }, position))
    }

    async fn delete_inbox_notification(
        &self,
        request: Request<pb::DeleteInboxNotificationRequest>,
    ) -> Result<Response<pb::DeleteInboxNotificationResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let mut conn = self.state.connection().await?;
        let now = self.state.engine.clock.now();
        inbox::mark_inbox_notification(&mut conn, &subscriber, &message.notification_id, MarkAs::Delete, now).await?;
        let position = inbox::inbox_position(&mut conn, &subscriber).await?;
        Ok(with_position(pb::DeleteInboxNotificationResponse {}, position))
    }

    async fn update_inbox_notification_action(
        &self,
        request: Request<pb::UpdateInboxNotificationActionRequest>,
    ) -> Result<Response<pb::UpdateInboxNotificationActionResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let action = action_type(message.action_type);
        let mut validator = Validator::new();
        validator.check(action.is_some(), "actionType", "actionType must be primary or secondary", message.action_type);
        validator.finish()?;
        let mut conn = self.state.connection().await?;
        let changed = inbox::update_inbox_action(
            &mut conn,
            &subscriber,
            &message.notification_id,
            action.expect("checked above"),
            message.completed,
        )
        .await?;
        let position = inbox::inbox_position(&mut conn, &subscriber).await?;
        Ok(with_position(pb::UpdateInboxNotificationActionResponse { data: Some(changed.into()) }, position))
    }

    async fn update_all_inbox_notifications(
        &self,
        request: Request<pb::UpdateAllInboxNotificationsRequest>,
    ) -> Result<Response<pb::UpdateAllInboxNotificationsResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let change = bulk_change(message.change);
        let mut validator = Validator::new();
        let names = "change must be one of archive, archive_read, seen, delete";
        validator.check(change.is_some(), "change", names, message.change);
        validator.finish()?;
        let mut conn = self.state.connection().await?;
        let updated = inbox::update_all_inbox_notifications(
            &mut conn,
            &subscriber,
            change.expect("checked above"),
            message.tags,
            &message.notification_ids,
            self.state.engine.clock.now(),
        )
        .await?;
        let position = inbox::inbox_position(&mut conn, &subscriber).await?;
        let response = pb::UpdateAllInboxNotificationsResponse { updated: saturating_count(updated as i64) };
        Ok(with_position(response, position))
    }

    async fn list_inbox_preferences(
        &self,
        request: Request<pb::ListInboxPreferencesRequest>,
    ) -> Result<Response<pb::ListInboxPreferencesResponse>, Status> {
        let (subscriber, _) = accept_inbox(request)?;
        let mut conn = self.state.connection().await?;
        let preferences = inbox::inbox_preferences(&mut conn, &subscriber).await?;
        Ok(Response::new(pb::ListInboxPreferencesResponse { data: preferences.into_iter().map(Into::into).collect() }))
    }

    async fn update_inbox_preference(
        &self,
        request: Request<pb::UpdateInboxPreferenceRequest>,
    ) -> Result<Response<pb::UpdateInboxPreferenceResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let channels = pb::ChannelFlags {
            email: message.email,
            sms: message.sms,
            in_app: message.in_app,
            chat: message.chat,
            push: message.push,
        };
        let mut conn = self.state.connection().await?;
        let preference =
            inbox::update_inbox_preference(&mut conn, &subscriber, message.workflow_id, channels.into()).await?;
        Ok(Response::new(pb::UpdateInboxPreferenceResponse { data: Some(preference.into()) }))
    }

    async fn read_all_inbox_notifications(
        &self,
        request: Request<pb::ReadAllInboxNotificationsRequest>,
    ) -> Result<Response<pb::ReadAllInboxNotificationsResponse>, Status> {
        let (subscriber, message) = accept_inbox(request)?;
        let mut conn = self.state.connection().await?;
        let updated =
            inbox::read_all_inbox_notifications(&mut conn, &subscriber, message.tags, self.state.engine.clock.now())
                .await?;
        let position = inbox::inbox_position(&mut conn, &subscriber).await?;
        let response = pb::ReadAllInboxNotificationsResponse { updated: saturating_count(updated as i64) };
        Ok(with_position(response, position))
    }
}
