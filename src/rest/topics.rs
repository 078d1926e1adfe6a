//! REST routes of topics, with the reference service's paths, shapes and status codes (an add answers
//! 200, a removal and a delete 204).

use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::Extension;
use http::StatusCode;
use serde_json::{json, Value};

use super::query::{OutOfRange, QueryParams};
use super::{grpc_request, json_response, JsonBody, RestResult};
use crate::domain::tenancy::Tenant;
use crate::domain::topics::{MAX_KEY_CHARS, MAX_NAME_CHARS, MAX_PAGE_SIZE, MAX_SUBSCRIBERS_PER_CALL};
use crate::domain::validation::Validator;
use crate::grpc::Services;
use crate::openapi::schemas::{array_of, input, limited_text, output};
use crate::openapi::{ApiRoutes, Operation, Reshape};
use crate::proto::herald::v1 as pb;
use pb::topics_service_server::TopicsService;

pub fn routes() -> ApiRoutes<Services> {
    const TOPICS: &str = "/v1/topics";
    const TOPIC: &str = "/v1/topics/{topic_key}";
    const TAG: &str = "Topics";
    let create = Operation::post(TOPICS, "createTopic", TAG)
        .body(input("CreateTopicRequest"))
        .answers(201, output("CreateTopicResponse"))
        .errors(&[409]);
    let list = Operation::get(TOPICS, "listTopics", TAG)
        .query("page", json!({"type": "integer", "minimum": 0, "maximum": i32::MAX, "default": 0}))
        .query("pageSize", json!({"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": 10}))
        .query_text("key")
        .answers(200, output("ListTopicsResponse"));
    let get = Operation::get(TOPIC, "getTopic", TAG).answers(200, output("Topic")).errors(&[404]);
    let rename = Operation::patch(TOPIC, "renameTopic", TAG)
        .body(input("RenameTopicRequest"))
        .answers(200, output("Topic"))
        .errors(&[404]);
    let delete = Operation::delete(TOPIC, "deleteTopic", TAG)
        .summary("Delete a topic without members (409 while it has some)")
        .answers_empty(204)
        .errors(&[404, 409]);
    let add = Operation::post("/v1/topics/{topic_key}/subscribers", "addTopicSubscribers", TAG)
        .summary("Add subscribers to a topic, creating it if missing")
        .body(input("AddTopicSubscribersRequest"))
        .answers(200, output("AddTopicSubscribersResponse"));
    let remove = Operation::post("/v1/topics/{topic_key}/subscribers/removal", "removeTopicSubscribers", TAG)
        .body(input("RemoveTopicSubscribersRequest"))
        .answers_empty(204)
        .errors(&[404]);
    let member = Operation::get("/v1/topics/{topic_key}/subscribers/{subscriber_id}", "getTopicSubscriber", TAG)
        .answers(200, output("TopicSubscriber"))
        .errors(&[404]);
    // Bounded as `check_bounds` bounds a list named `subscribers` (plain text, no identifier rule).
    let mut members = array_of(limited_text("subscribers"));
    members["minItems"] = json!(1);
    members["items"]["minLength"] = json!(1);
    members["maxItems"] = json!(MAX_SUBSCRIBERS_PER_CALL);
    let mut name = limited_text("name");
    name["minLength"] = json!(1);
    name["maxLength"] = json!(MAX_NAME_CHARS);
    let mut routes = ApiRoutes::new()
        .add(create, create_topic)
        .add(list, list_topics)
        .add(get, get_topic)
        .add(rename, rename_topic)
        .add(delete, delete_topic)
        .add(add, add_topic_subscribers)
        .add(remove, remove_topic_subscribers)
        .add(member, get_topic_subscriber)
        .reshape("CreateTopicRequest", Reshape::Property("key", key_schema()))
        .reshape("CreateTopicRequest", Reshape::Required(&["key", "name"]))
        .reshape("RenameTopicRequest", Reshape::Required(&["name"]))
        .reshape("AddTopicSubscribersRequest", Reshape::Required(&["subscribers"]))
        .reshape("RemoveTopicSubscribersRequest", Reshape::Required(&["subscribers"]))
        .reshape("CreateTopicRequest", Reshape::Property("name", name.clone()))
        .reshape("RenameTopicRequest", Reshape::Property("name", name))
        .reshape("AddTopicSubscribersRequest", Reshape::Property("subscribers", members.clone()))
        .reshape("RemoveTopicSubscribersRequest", Reshape::Property("subscribers", members));
    for operation in &mut routes.operations {
        operation.path_schemas.push(("topicKey", key_schema()));
    }
    routes
}

/// A topic key: 1 to 100 letters, digits and `-_:.@`.
pub fn key_schema() -> Value {
    json!({"type": "string", "pattern": format!("^[A-Za-z0-9_:.@-]{{1,{MAX_KEY_CHARS}}}$")})
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
