//! `herald.v1.TopicsService`: topics and their members.

use tonic::{Request, Response, Status};

use super::accept;
use crate::domain::topics::{self, AddOutcome, Membership, TopicPage, TopicWithMembers};
use crate::proto::herald::v1 as pb;

super::service_shell!(TopicsGrpc);

impl From<TopicWithMembers> for pb::Topic {
    fn from(TopicWithMembers { topic, subscribers }: TopicWithMembers) -> Self {
        Self {
            id: topic.id.to_string(),
            organization_id: topic.organization_id.to_string(),
            environment_id: topic.environment_id.to_string(),
            key: topic.key,
            name: topic.name,
            subscribers,
        }
    }
}

impl From<TopicPage> for pb::ListTopicsResponse {
    fn from(page: TopicPage) -> Self {
        // The domain bounds the page size (at most 100); a count beyond an int32 saturates.
        Self {
            data: page.data.into_iter().map(pb::Topic::from).collect(),
            page: page.page.try_into().unwrap_or(i32::MAX),
            page_size: page.page_size.try_into().unwrap_or(i32::MAX),
            total_count: page.total_count.try_into().unwrap_or(i32::MAX),
        }
    }
}

impl From<AddOutcome> for pb::AddTopicSubscribersResponse {
    fn from(outcome: AddOutcome) -> Self {
        let failed =
            (!outcome.not_found.is_empty()).then_some(pb::TopicSubscribersFailure { not_found: outcome.not_found });
        Self { succeeded: outcome.succeeded, failed }
    }
}

impl From<Membership> for pb::TopicSubscriber {
    fn from(membership: Membership) -> Self {
        Self {
            organization_id: membership.topic.organization_id.to_string(),
            environment_id: membership.topic.environment_id.to_string(),
            subscriber_id: membership.subscriber_id.to_string(),
            topic_id: membership.topic.id.to_string(),
            topic_key: membership.topic.key,
            external_subscriber_id: membership.external_subscriber_id,
        }
    }
}

#[tonic::async_trait]
impl pb::topics_service_server::TopicsService for TopicsGrpc {
    async fn create_topic(
        &self,
        request: Request<pb::CreateTopicRequest>,
    ) -> Result<Response<pb::CreateTopicResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let topic = topics::create_topic(&mut conn, tenant, &message.key, &message.name).await?;
        Ok(Response::new(pb::CreateTopicResponse { id: topic.id.to_string(), key: topic.key }))
    }

    async fn list_topics(
        &self,
        request: Request<pb::ListTopicsRequest>,
    ) -> Result<Response<pb::ListTopicsResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let page = topics::list_topics(
            &mut conn,
            tenant,
            message.page.map(i64::from),
            message.page_size.map(i64::from),
            message.key.as_deref(),
        )
        .await?;
        Ok(Response::new(page.into()))
    }

    async fn get_topic(&self, request: Request<pb::GetTopicRequest>) -> Result<Response<pb::GetTopicResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let topic = topics::get_topic_with_members(&mut conn, tenant, &message.topic_key).await?;
        Ok(Response::new(pb::GetTopicResponse { topic: Some(topic.into()) }))
    }

    async fn rename_topic(
        &self,
        request: Request<pb::RenameTopicRequest>,
    ) -> Result<Response<pb::RenameTopicResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let topic = topics::rename_topic(&mut conn, tenant, &message.topic_key, &message.name).await?;
        Ok(Response::new(pb::RenameTopicResponse { topic: Some(topic.into()) }))
    }

    async fn delete_topic(
        &self,
        request: Request<pb::DeleteTopicRequest>,
    ) -> Result<Response<pb::DeleteTopicResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        topics::delete_topic(&mut conn, tenant, &message.topic_key).await?;
        Ok(Response::new(pb::DeleteTopicResponse {}))
    }

    async fn add_topic_subscribers(
        &self,
        request: Request<pb::AddTopicSubscribersRequest>,
    ) -> Result<Response<pb::AddTopicSubscribersResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let outcome = topics::add_subscribers(&mut conn, tenant, &message.topic_key, &message.subscribers).await?;
        Ok(Response::new(outcome.into()))
    }

    async fn remove_topic_subscribers(
        &self,
        request: Request<pb::RemoveTopicSubscribersRequest>,
    ) -> Result<Response<pb::RemoveTopicSubscribersResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        topics::remove_subscribers(&mut conn, tenant, &message.topic_key, &message.subscribers).await?;
        Ok(Response::new(pb::RemoveTopicSubscribersResponse {}))
    }

    async fn get_topic_subscriber(
        &self,
        request: Request<pb::GetTopicSubscriberRequest>,
    ) -> Result<Response<pb::GetTopicSubscriberResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let membership = topics::get_membership(&mut conn, tenant, &message.topic_key, &message.subscriber_id).await?;
        Ok(Response::new(pb::GetTopicSubscriberResponse { topic_subscriber: Some(membership.into()) }))
    }
}
