//! REST routes of notification events (activity). Bodies are bare, as everywhere: the listing is
//! `{hasMore, data, pageSize, page}`, a retrieved event is the event itself (no `{data: …}` envelope).

use axum::extract::{Path, State};
use axum::Extension;
use http::StatusCode;
use serde_json::json;

use super::query::{OutOfRange, QueryParams};
use super::{grpc_request, json_response, RestResult};
use crate::domain::activity::{JOB_TYPES, MAX_LIMIT};
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::domain::workflows::SEVERITIES;
use crate::grpc::Services;
use crate::openapi::schemas::{limited_text, output, reference};
use crate::openapi::{ApiRoutes, Operation};
use crate::proto::herald::v1 as pb;
use pb::notifications_service_server::NotificationsService;

/// Workflow `_id`s (UUIDs) name the templates to list.
const UUID_PATTERN: &str = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

pub fn routes() -> ApiRoutes<Services> {
    const TAG: &str = "Notifications";
    let list = Operation::get("/v1/notifications", "listNotifications", TAG)
        .summary("Notification events, newest first, with their jobs and execution details")
        .query_list("channels", reference("StepType"))
        .query_list("templates", json!({"type": "string", "pattern": UUID_PATTERN}))
        .query_list("emails", limited_text("emails"))
        .query_text("search")
        .query_list("subscriberIds", limited_text("subscriberIds"))
        .query_list("severity", reference("Severity"))
        .query("page", json!({"type": "integer", "minimum": 0, "default": 0}))
        .query("limit", json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10}))
        .query_text("transactionId")
        .query_text("topicKey")
        .query("after", json!({"type": "string", "format": "date-time"}))
        .query("before", json!({"type": "string", "format": "date-time"}))
        .answers(200, output("ListNotificationsResponse"));
    let get = Operation::get("/v1/notifications/{notification_id}", "getNotification", TAG)
        .answers(200, output("NotificationEvent"))
        .errors(&[404]);
    ApiRoutes::new().add(list, list_notifications).add(get, get_notification)
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
