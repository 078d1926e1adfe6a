//! REST routes of notification events (activity). Bodies are bare, as everywhere: the listing is
//! `{hasMore, data, pageSize, page}`, a retrieved event is the event itself (no `{data: …}` envelope).

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Extension, Router};
use http::StatusCode;

use super::query::{OutOfRange, QueryParams};
use super::{grpc_request, json_response, RestResult};
use crate::domain::activity::JOB_TYPES;
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::domain::workflows::SEVERITIES;
use crate::grpc::Services;
use crate::proto::herald::v1 as pb;
use pb::notifications_service_server::NotificationsService;

pub fn routes() -> Router<Services> {
    Router::new()
        .route("/v1/notifications", get(list_notifications))
        .route("/v1/notifications/{notification_id}", get(get_notification))
}

async fn list_notifications(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    query: QueryParams,
) -> RestResult {
    use pb::severity_enum::Severity;
    use pb::step_type_enum::StepType;
    let mut validator = Validator::new();
    let channels = validator.take(query.names("channels", &JOB_TYPES, |name| {
        StepType::from_str_name(name).filter(|kind| *kind != StepType::Unspecified).map(|kind| kind as i32)
    }));
    let severity = validator.take(query.names("severity", &SEVERITIES, |name| {
        Severity::from_str_name(name).filter(|severity| *severity != Severity::Unspecified).map(|s| s as i32)
    }));
    let page = validator.take(query.int32("page", OutOfRange::Clamp));
    let limit = validator.take(query.int32("limit", OutOfRange::Clamp));
    validator.finish()?;
    let request = pb::ListNotificationsRequest {
        channels,
        templates: query.list("templates"),
        emails: query.list("emails"),
        search: query.string("search"),
        subscriber_ids: query.list("subscriberIds"),
        severity,
        page,
        limit,
        transaction_id: query.string("transactionId"),
        topic_key: query.string("topicKey"),
        after: query.string("after"),
        before: query.string("before"),
    };
    let response = services.notifications.list_notifications(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner()))
}

async fn get_notification(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(notification_id): Path<String>,
) -> RestResult {
    let request = pb::GetNotificationRequest { notification_id };
    let response = services.notifications.get_notification(grpc_request(tenant, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner().notification))
}
