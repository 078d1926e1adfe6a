//! `herald.v1.SubscribersService`: subscribers, their channel credentials and preferences.

use tonic::{Request, Response, Status};

use super::accept;
use crate::domain::{preferences, subscribers, topics};
use crate::error::AppError;
use crate::proto::herald::v1 as pb;

super::service_shell!(SubscribersGrpc);

#[tonic::async_trait]
impl pb::subscribers_service_server::SubscribersService for SubscribersGrpc {
    async fn create_subscriber(
        &self,
        request: Request<pb::CreateSubscriberRequest>,
    ) -> Result<Response<pb::CreateSubscriberResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let created = subscribers::create_subscriber(&mut conn, tenant, message.into()).await?;
        Ok(Response::new(pb::CreateSubscriberResponse { subscriber: Some(created.try_into()?) }))
    }

    async fn get_subscriber(
        &self,
        request: Request<pb::GetSubscriberRequest>,
    ) -> Result<Response<pb::GetSubscriberResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let found = subscribers::get_subscriber(&mut conn, tenant, &message.subscriber_id).await?;
        let subscriber = with_topics(&mut conn, vec![found.try_into()?]).await?.pop();
        Ok(Response::new(pb::GetSubscriberResponse { subscriber }))
    }

    async fn update_subscriber(
        &self,
        request: Request<pb::UpdateSubscriberRequest>,
    ) -> Result<Response<pb::UpdateSubscriberResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let subscriber_id = message.subscriber_id.clone();
        let mut conn = self.state.connection().await?;
        let updated = subscribers::update_subscriber(&mut conn, tenant, &subscriber_id, message.into()).await?;
        let subscriber = with_topics(&mut conn, vec![updated.try_into()?]).await?.pop();
        Ok(Response::new(pb::UpdateSubscriberResponse { subscriber }))
    }

    async fn delete_subscriber(
        &self,
        request: Request<pb::DeleteSubscriberRequest>,
    ) -> Result<Response<pb::DeleteSubscriberResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        subscribers::delete_subscriber(&mut conn, tenant, &message.subscriber_id).await?;
        Ok(Response::new(pb::DeleteSubscriberResponse { acknowledged: true, status: "deleted".into() }))
    }

    async fn search_subscribers(
        &self,
        request: Request<pb::SearchSubscribersRequest>,
    ) -> Result<Response<pb::SearchSubscribersResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let page = subscribers::search_subscribers(&mut conn, tenant, message.into()).await?;
        let mut response: pb::SearchSubscribersResponse = page.try_into()?;
        response.data = with_topics(&mut conn, response.data).await?;
        Ok(Response::new(response))
    }

    async fn upsert_subscriber_credentials(
        &self,
        request: Request<pb::UpsertSubscriberCredentialsRequest>,
    ) -> Result<Response<pb::UpsertSubscriberCredentialsResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let subscriber_id = message.subscriber_id.clone();
        let mut conn = self.state.connection().await?;
        let updated = subscribers::upsert_credentials(&mut conn, tenant, &subscriber_id, message.into()).await?;
        let subscriber = with_topics(&mut conn, vec![updated.try_into()?]).await?.pop();
        Ok(Response::new(pb::UpsertSubscriberCredentialsResponse { subscriber }))
    }

    async fn get_subscriber_preferences(
        &self,
        request: Request<pb::GetSubscriberPreferencesRequest>,
    ) -> Result<Response<pb::GetSubscriberPreferencesResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let mut conn = self.state.connection().await?;
        let found = preferences::get_preferences(&mut conn, tenant, &message.subscriber_id).await?;
        Ok(Response::new(pb::GetSubscriberPreferencesResponse { preferences: Some(found.try_into()?) }))
    }

    async fn update_subscriber_preferences(
        &self,
        request: Request<pb::UpdateSubscriberPreferencesRequest>,
    ) -> Result<Response<pb::UpdateSubscriberPreferencesResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let subscriber_id = message.subscriber_id.clone();
        let update = message.try_into()?;
        let mut conn = self.state.connection().await?;
        let updated = preferences::update_preferences(&mut conn, tenant, &subscriber_id, update).await?;
        Ok(Response::new(pb::UpdateSubscriberPreferencesResponse { preferences: Some(updated.try_into()?) }))
    }
}

/// `subscribers` with their `topics` field filled (one query for all of them).
async fn with_topics(
    conn: &mut diesel_async::AsyncPgConnection,
    mut subscribers: Vec<pb::Subscriber>,
) -> Result<Vec<pb::Subscriber>, AppError> {
    let ids = subscribers
        .iter()
        .map(|subscriber| subscriber.id.parse::<uuid::Uuid>().map_err(AppError::internal))
        .collect::<Result<Vec<_>, _>>()?;
    let mut keys = topics::topic_keys_of(conn, &ids).await?;
    for (subscriber, id) in subscribers.iter_mut().zip(&ids) {
        subscriber.topics = keys.remove(id).unwrap_or_default();
    }
    Ok(subscribers)
}
