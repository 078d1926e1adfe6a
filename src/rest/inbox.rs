//! REST routes of the subscriber inbox, with the reference service's paths and JSON shapes: every
//! answer is wrapped in `data` as its clients expect (`{data: …}`; the listing adds `hasMore`,
//! `filter` and Herald's `next` cursor). The session route is open; the others take the session
//! token (`Authorization: Bearer …`), checked by the server before they run.

use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::Extension;
use http::StatusCode;
use serde_json::{json, Value};

use super::body::from_value;
use super::query::{OutOfRange, QueryParams};
use super::{json_response, JsonBody, RestResult};
use crate::domain::inbox::{InboxSubscriber, MAX_FILTERS, MAX_LIMIT};
use crate::domain::validation::Validator;
use crate::error::AppError;
use crate::grpc::inbox_convert::POSITION_METADATA;
use crate::grpc::Services;
use crate::openapi::schemas::{input, limited_text, output, reference};
use crate::openapi::{ApiRoutes, Operation, Reshape};
use crate::proto::herald::v1 as pb;
use pb::inbox_mark_enum::InboxMark;
use pb::inbox_service_server::InboxService;
use pb::inbox_session_service_server::InboxSessionService;

pub(super) const TAG: &str = "Inbox";

/// `POST /v1/inbox/session`: open, its caller has no credential yet.
pub fn session_routes() -> ApiRoutes<Services> {
    let session = Operation::post("/v1/inbox/session", "createInboxSession", TAG)
        .summary("Open an inbox session for one subscriber (no API key: the application identifier)")
        .body(input("CreateInboxSessionRequest"))
        .answers(201, output("CreateInboxSessionResponse"))
        .errors(&[400, 401, 404, 422])
        .public();
    let subscriber = json!({"oneOf": [limited_text("subscriberId"), reference("InboxSessionSubscriber")]});
    ApiRoutes::new()
        .add(session, create_inbox_session)
        .reshape("CreateInboxSessionRequest", Reshape::Property("subscriber", subscriber))
        .reshape("CreateInboxSessionRequest", Reshape::Required(&["applicationIdentifier"]))
        .reshape("InboxSessionSubscriber", Reshape::Required(&["subscriberId"]))
}

/// The routes a session token opens.
pub fn routes() -> ApiRoutes<Services> {
    let flag = || json!({"type": "boolean"});
    let list = Operation::get("/v1/inbox/notifications", "listInboxNotifications", TAG)
        .summary("The subscriber's in-app notifications, newest first, by keyset cursor")
        .query_list("tags", limited_text("tags"))
        .query("read", flag())
        .query("archived", flag())
        .query("seen", flag())
        .query("snoozed", flag())
        .query("limit", json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10}))
        .query_text("after")
        .answers(200, output("ListInboxNotificationsResponse"))
        .subscriber_token();
    let count = Operation::get("/v1/inbox/notifications/count", "countInboxNotifications", TAG)
        .summary("Exact counts for up to 30 filters (a JSON array of {tags, read, archived, seen, snoozed})")
        .query("filters", json!({"type": "string", "contentMediaType": "application/json", "maxLength": 16384}))
        .answers(200, output("CountInboxNotificationsResponse"))
        .subscriber_token();
    let mark = |path: &'static str, id: &'static str, summary: &'static str| {
        Operation::patch(path, id, TAG)
            .summary(summary)
            .answers(200, output("MarkInboxNotificationResponse"))
            .errors(&[404])
            .subscriber_token()
    };
    let snooze = mark(
        "/v1/inbox/notifications/{notification_id}/snooze",
        "snoozeInboxNotification",
        "Snooze a notification until a time at least a minute ahead: it leaves lists and counts until then",
    )
    .body(json!({
        "type": "object",
        "required": ["snoozeUntil"],
        "properties": {"snoozeUntil": {"type": "string", "format": "date-time", "maxLength": 64}},
    }));
    let action = |path: &'static str, id: &'static str, summary: &'static str| {
        Operation::patch(path, id, TAG)
            .summary(summary)
            .body(json!({
                "type": "object",
                "required": ["actionType"],
                "properties": {"actionType": {"type": "string", "enum": ["primary", "secondary"]}},
            }))
            .answers(200, output("UpdateInboxNotificationActionResponse"))
            .errors(&[404])
            .subscriber_token()
    };
    let delete = Operation::delete("/v1/inbox/notifications/{notification_id}", "deleteInboxNotification", TAG)
        .summary("Delete a notification for the subscriber (gone from every list and count)")
        .answers_empty(204)
        .errors(&[404])
        .subscriber_token();
    let mut routes = ApiRoutes::new()
        .add(list, list_inbox_notifications)
        .add(count, count_inbox_notifications)
        .add(
            mark("/v1/inbox/notifications/{notification_id}/read", "readInboxNotification", "Mark a notification read"),
            read_inbox_notification,
        )
        .add(
            mark(
                "/v1/inbox/notifications/{notification_id}/unread",
                "unreadInboxNotification",
                "Mark a notification unread",
            ),
            unread_inbox_notification,
        )
        .add(
            mark(
                "/v1/inbox/notifications/{notification_id}/archive",
                "archiveInboxNotification",
                "Archive a notification",
            ),
            archive_inbox_notification,
        )
        .add(
            mark(
                "/v1/inbox/notifications/{notification_id}/unarchive",
                "unarchiveInboxNotification",
                "Unarchive a notification",
            ),
            unarchive_inbox_notification,
        )
        .add(snooze, snooze_inbox_notification)
        .add(
            mark(
                "/v1/inbox/notifications/{notification_id}/unsnooze",
                "unsnoozeInboxNotification",
                "Bring a snoozed notification back now",
            ),
            unsnooze_inbox_notification,
        )
        .add(
            action(
                "/v1/inbox/notifications/{notification_id}/complete",
                "completeInboxNotificationAction",
                "Complete the primary or secondary action of a notification",
            ),
            complete_inbox_notification_action,
        )
        .add(
            action(
                "/v1/inbox/notifications/{notification_id}/revert",
                "revertInboxNotificationAction",
                "Revert the completed primary or secondary action of a notification",
            ),
            revert_inbox_notification_action,
        )
        .add(delete, delete_inbox_notification)
        .merge(super::inbox_bulk::routes())
        .merge(super::inbox_preferences::routes());
    for operation in &mut routes.operations {
        if operation.path.contains("{notification_id}") {
            operation.path_schemas.push(("notificationId", json!({"type": "string", "format": "uuid"})));
        }
    }
    routes
}

/// The 200 of a change that answers the notification, with where the inbox stands after it as headers.
pub(super) fn changed_notification<T: serde::Serialize>(response: tonic::Response<T>) -> axum::response::Response {
    let headers = position_headers(response.metadata());
    (headers, json_response(StatusCode::OK, response.get_ref())).into_response()
}

/// The 204 of a change, with where the inbox stands after it as headers.
pub(super) fn changed_without_body<T>(response: tonic::Response<T>) -> axum::response::Response {
    (position_headers(response.metadata()), StatusCode::NO_CONTENT).into_response()
}

/// The position metadata of a change's gRPC answer ([`POSITION_METADATA`]), as REST headers.
fn position_headers(metadata: &tonic::metadata::MetadataMap) -> http::HeaderMap {
    POSITION_METADATA
        .into_iter()
        .filter_map(|name| {
            let value = metadata.get(name)?.to_str().ok()?.parse().ok()?;
            Some((http::HeaderName::from_static(name), value))
        })
        .collect()
}

/// Wraps an inbox call's message as a tonic request carrying the session's subscriber, as the
/// authentication middleware would have for a gRPC call.
pub(super) fn inbox_request<T>(subscriber: InboxSubscriber, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.extensions_mut().insert(subscriber);
    request
}

async fn create_inbox_session(State(services): State<Services>, JsonBody(mut body): JsonBody<Value>) -> RestResult {
    // The newer form names the subscriber by a bare string as well as by an object.
    if let Some(Value::String(subscriber_id)) = body.get("subscriber") {
        body["subscriber"] = json!({"subscriberId": subscriber_id});
    }
    let request: pb::CreateInboxSessionRequest = from_value(body)?;
    let response = services.inbox_session.create_inbox_session(tonic::Request::new(request)).await?;
    Ok(json_response(StatusCode::CREATED, &response.into_inner()))
}

async fn list_inbox_notifications(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    query: QueryParams,
) -> RestResult {
    let mut validator = Validator::new();
    let filter = pb::InboxFilter {
        tags: query.list("tags"),
        read: validator.take(query.boolean("read")),
        archived: validator.take(query.boolean("archived")),
        seen: validator.take(query.boolean("seen")),
        snoozed: validator.take(query.boolean("snoozed")),
    };
    let limit = validator.take(query.int32("limit", OutOfRange::Refuse("limit must be between 1 and 100")));
    validator.finish()?;
    let request = pb::ListInboxNotificationsRequest { filter: Some(filter), limit, after: query.string("after") };
    let response = services.inbox.list_inbox_notifications(inbox_request(subscriber, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner()))
}

async fn count_inbox_notifications(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    query: QueryParams,
) -> RestResult {
    let invalid = |value: Value| {
        let message = format!(
            "filters must be a JSON array of 1 to {MAX_FILTERS} {{tags, read, archived, seen, snoozed}} objects"
        );
        AppError::Validation(vec![crate::error::FieldError::new("filters", message, value)])
    };
    let text = query.string("filters").unwrap_or_default();
    let parsed: Value = serde_json::from_str(&text).map_err(|_| invalid(Value::String(text.clone())))?;
    let filters: Vec<pb::InboxFilter> = from_value(parsed).map_err(|_| invalid(Value::String(text.clone())))?;
    let request = pb::CountInboxNotificationsRequest { filters };
    let response = services.inbox.count_inbox_notifications(inbox_request(subscriber, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner()))
}

/// What the mark routes share; each names its change.
async fn mark_inbox_notification(
    services: Services,
    subscriber: InboxSubscriber,
    notification_id: String,
    mark: InboxMark,
) -> RestResult {
    let request = pb::MarkInboxNotificationRequest { notification_id, mark: mark.into(), snooze_until: None };
    let response = services.inbox.mark_inbox_notification(inbox_request(subscriber, request)).await?;
    Ok(changed_notification(response))
}

async fn read_inbox_notification(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(id): Path<String>,
) -> RestResult {
    mark_inbox_notification(services, subscriber, id, InboxMark::Read).await
}

async fn unread_inbox_notification(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(id): Path<String>,
) -> RestResult {
    mark_inbox_notification(services, subscriber, id, InboxMark::Unread).await
}

async fn archive_inbox_notification(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(id): Path<String>,
) -> RestResult {
    mark_inbox_notification(services, subscriber, id, InboxMark::Archive).await
}

async fn unarchive_inbox_notification(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(id): Path<String>,
) -> RestResult {
    mark_inbox_notification(services, subscriber, id, InboxMark::Unarchive).await
}

async fn snooze_inbox_notification(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(notification_id): Path<String>,
    JsonBody(body): JsonBody<pb::MarkInboxNotificationRequest>,
) -> RestResult {
    let request = pb::MarkInboxNotificationRequest {
        notification_id,
        mark: InboxMark::Snooze.into(),
        snooze_until: body.snooze_until,
    };
    let response = services.inbox.mark_inbox_notification(inbox_request(subscriber, request)).await?;
    Ok(changed_notification(response))
}

async fn unsnooze_inbox_notification(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(id): Path<String>,
) -> RestResult {
    mark_inbox_notification(services, subscriber, id, InboxMark::Unsnooze).await
}

/// What complete and revert share: the body names the action.
async fn update_inbox_notification_action(
    services: Services,
    subscriber: InboxSubscriber,
    notification_id: String,
    body: pb::UpdateInboxNotificationActionRequest,
    completed: bool,
) -> RestResult {
    let request =
        pb::UpdateInboxNotificationActionRequest { notification_id, action_type: body.action_type, completed };
    let response = services.inbox.update_inbox_notification_action(inbox_request(subscriber, request)).await?;
    Ok(changed_notification(response))
}

async fn complete_inbox_notification_action(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<pb::UpdateInboxNotificationActionRequest>,
) -> RestResult {
    update_inbox_notification_action(services, subscriber, id, body, true).await
}

async fn revert_inbox_notification_action(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<pb::UpdateInboxNotificationActionRequest>,
) -> RestResult {
    update_inbox_notification_action(services, subscriber, id, body, false).await
}

async fn delete_inbox_notification(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(notification_id): Path<String>,
) -> RestResult {
    let request = pb::DeleteInboxNotificationRequest { notification_id };
    let response = services.inbox.delete_inbox_notification(inbox_request(subscriber, request)).await?;
    Ok(changed_without_body(response))
}
