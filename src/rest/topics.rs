//! REST routes of topics, with the reference service's paths, shapes and status codes (an add answers
//! 200, a removal and a delete 204).

use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Extension, Router};
use http::StatusCode;

use super::query::{OutOfRange, QueryParams};
use super::{grpc_request, json_response, JsonBody, RestResult};
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::grpc::Services;
use crate::proto::herald::v1 as pb;
use pb::topics_service_server::TopicsService;

pub fn routes() -> Router<Services> {
    Router::new()
        .route("/v1/topics", get(list_topics).post(create_topic))
        .route("/v1/topics/{topic_key}", get(get_topic).patch(rename_topic).delete(delete_topic))
        .route("/v1/topics/{topic_key}/subscribers", post(add_topic_subscribers))
        .route("/v1/topics/{topic_key}/subscribers/removal", post(remove_topic_subscribers))
        .route("/v1/topics/{topic_key}/subscribers/{subscriber_id}", get(get_topic_subscriber))
}

async fn create_topic(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    JsonBody(request): JsonBody<pb::CreateTopicRequest>,
) -> RestResult {
    let response = services.topics.create_topic(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::CREATED, &response))
}

async fn list_topics(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    query: QueryParams,
) -> RestResult {
    let mut validator = Validator::new();
    let page = validator.take(query.int32("page", OutOfRange::Refuse("page must be 0 or more")));
    let page_size = validator.take(query.int32("pageSize", OutOfRange::Refuse("pageSize must be between 1 and 100")));
    validator.finish()?;
    let request = pb::ListTopicsRequest { page, page_size, key: query.string("key") };
    let response = services.topics.list_topics(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response))
}

async fn get_topic(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(topic_key): Path<String>,
) -> RestResult {
    let request = pb::GetTopicRequest { topic_key };
    let response = services.topics.get_topic(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response.topic))
}

async fn rename_topic(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(topic_key): Path<String>,
    JsonBody(mut request): JsonBody<pb::RenameTopicRequest>,
) -> RestResult {
    request.topic_key = topic_key;
    let response = services.topics.rename_topic(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response.topic))
}

async fn delete_topic(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(topic_key): Path<String>,
) -> RestResult {
    let request = pb::DeleteTopicRequest { topic_key };
    services.topics.delete_topic(grpc_request(tenant, request)).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn add_topic_subscribers(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(topic_key): Path<String>,
    JsonBody(mut request): JsonBody<pb::AddTopicSubscribersRequest>,
) -> RestResult {
    request.topic_key = topic_key;
    let response = services.topics.add_topic_subscribers(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response))
}

async fn remove_topic_subscribers(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(topic_key): Path<String>,
    JsonBody(mut request): JsonBody<pb::RemoveTopicSubscribersRequest>,
) -> RestResult {
    request.topic_key = topic_key;
    services.topics.remove_topic_subscribers(grpc_request(tenant, request)).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn get_topic_subscriber(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path((topic_key, subscriber_id)): Path<(String, String)>,
) -> RestResult {
    let request = pb::GetTopicSubscriberRequest { topic_key, subscriber_id };
    let response = services.topics.get_topic_subscriber(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response.topic_subscriber))
}
