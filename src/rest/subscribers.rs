//! REST routes of subscribers, their channel credentials and preferences.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Extension;
use http::StatusCode;
use serde_json::{json, Value};

use super::query::{OutOfRange, QueryParams};
use super::shapes::{subscriber_json, NULLABLE_SUBSCRIBER_FIELDS};
use super::{grpc_request, json_response, mask_of_keys, parse_json, parse_json_with_mask, JsonBody, RestResult};
use crate::domain::tenancy::Tenant;
use crate::error::AppError;
use crate::grpc::Services;
use crate::openapi::schemas::{input, limited_text, output};
use crate::openapi::{ApiRoutes, Operation, Reshape};
use crate::proto::herald::v1 as pb;
use pb::subscribers_service_server::SubscribersService;

pub fn routes() -> ApiRoutes<Services> {
    const SUBSCRIBERS: &str = "/v2/subscribers";
    const SUBSCRIBER: &str = "/v2/subscribers/{subscriber_id}";
    const PREFERENCES: &str = "/v2/subscribers/{subscriber_id}/preferences";
    const TAG: &str = "Subscribers";
    let search = Operation::get(SUBSCRIBERS, "searchSubscribers", TAG)
        .summary("Search subscribers (cursor paging)")
        .query_text("after")
        .query_text("before")
        .query("limit", json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 10}))
        .query("orderDirection", json!({"type": "string", "enum": ["ASC", "DESC"], "default": "DESC"}))
        .query("orderBy", json!({"type": "string", "enum": ["_id", "createdAt", "updatedAt"], "default": "_id"}))
        .query("includeCursor", json!({"type": "boolean"}))
        .query_text("email")
        .query_text("name")
        .query_text("phone")
        .query_text("subscriberId")
        .answers(200, output("SearchSubscribersResponse"));
    let create = Operation::post(SUBSCRIBERS, "createSubscriber", TAG)
        .body(input("CreateSubscriberRequest"))
        .answers(201, output("Subscriber"));
    let get = Operation::get(SUBSCRIBER, "getSubscriber", TAG).answers(200, output("Subscriber")).errors(&[404]);
    let update = Operation::patch(SUBSCRIBER, "updateSubscriber", TAG)
        .summary("Update a subscriber: a field set to null is cleared, an absent one left alone")
        .body(input("UpdateSubscriberRequest"))
        .answers(200, output("Subscriber"))
        .errors(&[404]);
    let delete = Operation::delete(SUBSCRIBER, "deleteSubscriber", TAG)
        .answers(200, output("DeleteSubscriberResponse"))
        .errors(&[404]);
    let credentials =
        Operation::patch("/v1/subscribers/{subscriber_id}/credentials", "upsertSubscriberCredentials", TAG)
            .summary("Upsert a subscriber's channel credentials for a provider")
            .body(input("UpsertSubscriberCredentialsRequest"))
            .answers(200, output("Subscriber"))
            .errors(&[404]);
    let preferences = Operation::get(PREFERENCES, "getSubscriberPreferences", TAG)
        .answers(200, output("SubscriberPreferences"))
        .errors(&[404]);
    let update_preferences = Operation::patch(PREFERENCES, "updateSubscriberPreferences", TAG)
        .body(input("UpdateSubscriberPreferencesRequest"))
        .answers(200, output("SubscriberPreferences"))
        .errors(&[404]);
    let mut subscriber_id = limited_text("subscriberId");
    subscriber_id["minLength"] = json!(1);
    // The boundary row's `_id`, or null at either end.
    let cursor = json!({"type": ["string", "null"]});
    ApiRoutes::new()
        .add(search, search_subscribers)
        .add(create, create_subscriber)
        .add(get, get_subscriber)
        .add(update, update_subscriber)
        .add(delete, delete_subscriber)
        .add(credentials, upsert_subscriber_credentials)
        .add(preferences, get_subscriber_preferences)
        .add(update_preferences, update_subscriber_preferences)
        .reshape("Subscriber", Reshape::Nullable(&NULLABLE_SUBSCRIBER_FIELDS))
        .reshape("CreateSubscriberRequest", Reshape::Property("subscriberId", subscriber_id))
        .reshape("CreateSubscriberRequest", Reshape::Required(&["subscriberId"]))
        .reshape("UpsertSubscriberCredentialsRequest", Reshape::Required(&["providerId", "credentials"]))
        .reshape("SearchSubscribersResponse", Reshape::Property("next", cursor.clone()))
        .reshape("SearchSubscribersResponse", Reshape::Property("previous", cursor))
        .reshape("SearchSubscribersResponse", Reshape::Nullable(&["next", "previous"]))
}

async fn create_subscriber(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    JsonBody(request): JsonBody<pb::CreateSubscriberRequest>,
) -> RestResult {
    let response = services.subscribers.create_subscriber(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::CREATED, &subscriber_json(response.subscriber)?))
}

async fn get_subscriber(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(subscriber_id): Path<String>,
) -> RestResult {
    let request = pb::GetSubscriberRequest { subscriber_id };
    let response = services.subscribers.get_subscriber(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &subscriber_json(response.subscriber)?))
}

async fn update_subscriber(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(subscriber_id): Path<String>,
    body: Bytes,
) -> RestResult {
    let (mut request, mask) = parse_json_with_mask::<pb::UpdateSubscriberRequest>(&body)?;
    request.subscriber_id = subscriber_id;
    request.update_mask = Some(mask);
    let response = services.subscribers.update_subscriber(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &subscriber_json(response.subscriber)?))
}

async fn delete_subscriber(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(subscriber_id): Path<String>,
) -> RestResult {
    let request = pb::DeleteSubscriberRequest { subscriber_id };
    let response = services.subscribers.delete_subscriber(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response))
}

async fn search_subscribers(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    query: QueryParams,
) -> RestResult {
    use pb::order_direction_enum::OrderDirection;
    let order_direction = match query.string("orderDirection") {
        None => None,
        Some(text) => match OrderDirection::from_str_name(&text.to_ascii_uppercase()) {
            Some(direction @ (OrderDirection::Asc | OrderDirection::Desc)) => Some(direction as i32),
            _ => return Err(AppError::invalid_field("orderDirection", "orderDirection must be ASC or DESC", text)),
        },
    };
    let limit = query.int32("limit", OutOfRange::Refuse("limit must be between 1 and 100"))?;
    let request = pb::SearchSubscribersRequest {
        after: query.string("after"),
        before: query.string("before"),
        limit,
        order_direction,
        order_by: query.string("orderBy"),
        include_cursor: query.boolean("includeCursor")?,
        email: query.string("email"),
        name: query.string("name"),
        phone: query.string("phone"),
        subscriber_id: query.string("subscriberId"),
    };
    let response = services.subscribers.search_subscribers(grpc_request(tenant, request)).await?.into_inner();
    let data =
        response.data.into_iter().map(|subscriber| subscriber_json(Some(subscriber))).collect::<Result<Vec<_>, _>>()?;
    let mut body = serde_json::to_value(pb::SearchSubscribersResponse { data: Vec::new(), ..response })
        .map_err(AppError::internal)?;
    body["data"] = Value::Array(data);
    Ok(json_response(StatusCode::OK, &body))
}

async fn upsert_subscriber_credentials(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(subscriber_id): Path<String>,
    body: Bytes,
) -> RestResult {
    let mut request: pb::UpsertSubscriberCredentialsRequest = parse_json(&body)?;
    let raw: Value = parse_json(&body)?;
    request.subscriber_id = subscriber_id;
    // Which credential fields were sent, so that an empty deviceTokens list replaces the stored one.
    request.update_mask = Some(mask_of_keys(&raw["credentials"], "credentials."));
    let response =
        services.subscribers.upsert_subscriber_credentials(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &subscriber_json(response.subscriber)?))
}

async fn get_subscriber_preferences(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(subscriber_id): Path<String>,
) -> RestResult {
    let request = pb::GetSubscriberPreferencesRequest { subscriber_id };
    let response = services.subscribers.get_subscriber_preferences(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response.preferences))
}

async fn update_subscriber_preferences(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(subscriber_id): Path<String>,
    JsonBody(mut request): JsonBody<pb::UpdateSubscriberPreferencesRequest>,
) -> RestResult {
    request.subscriber_id = subscriber_id;
    let response =
        services.subscribers.update_subscriber_preferences(grpc_request(tenant, request)).await?.into_inner();
    Ok(json_response(StatusCode::OK, &response.preferences))
}
