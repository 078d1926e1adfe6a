//! REST routes of the inbox's bulk changes: read all, archive all, archive the read ones, mark seen,
//! delete. Each answers 204 (the reference service's shape; gRPC answers how many changed) and leaves
//! alone the notifications that arrive while it runs.

use axum::extract::State;
use axum::Extension;
use serde_json::json;

use super::inbox::{changed_without_body, inbox_request, TAG};
use super::{JsonBody, RestResult};
use crate::domain::inbox::{InboxSubscriber, MAX_BULK_IDS};
use crate::grpc::Services;
use crate::openapi::schemas::{input, limited_text};
use crate::openapi::{ApiRoutes, Operation};
use crate::proto::herald::v1 as pb;
use pb::inbox_bulk_change_enum::InboxBulkChange;
use pb::inbox_service_server::InboxService;

pub fn routes() -> ApiRoutes<Services> {
    let bulk = |path: &'static str, id: &'static str, summary: &'static str, body: serde_json::Value| {
        Operation::post(path, id, TAG).summary(summary).body(body).answers_empty(204).subscriber_token()
    };
    // The route names the change: the body is the rest of UpdateAllInboxNotificationsRequest.
    let update_all = || {
        json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": limited_text("tags")},
                "notificationIds": {
                    "type": "array",
                    "maxItems": MAX_BULK_IDS,
                    "items": {"type": "string", "format": "uuid"},
                },
            },
        })
    };
    ApiRoutes::new()
        .add(
            bulk(
                "/v1/inbox/notifications/read",
                "readAllInboxNotifications",
                "Mark read every unread notification (of these tags) that exists when the call starts",
                input("ReadAllInboxNotificationsRequest"),
            ),
            read_all_inbox_notifications,
        )
        .add(
            bulk(
                "/v1/inbox/notifications/archive",
                "archiveAllInboxNotifications",
                "Archive every notification (of these tags, of these ids) that exists when the call starts",
                update_all(),
            ),
            archive_all_inbox_notifications,
        )
        .add(
            bulk(
                "/v1/inbox/notifications/read-archive",
                "archiveReadInboxNotifications",
                "Archive every read notification (of these tags, of these ids) that exists when the call starts",
                update_all(),
            ),
            archive_read_inbox_notifications,
        )
        .add(
            bulk(
                "/v1/inbox/notifications/seen",
                "seeInboxNotifications",
                "Mark seen the notifications (of these ids, of these tags) that exist when the call starts",
                update_all(),
            ),
            see_inbox_notifications,
        )
        .add(
            bulk(
                "/v1/inbox/notifications/delete",
                "deleteInboxNotifications",
                "Delete the notifications (of these ids, of these tags) that exist when the call starts",
                update_all(),
            ),
            delete_inbox_notifications,
        )
}

async fn read_all_inbox_notifications(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    JsonBody(request): JsonBody<pb::ReadAllInboxNotificationsRequest>,
) -> RestResult {
    let response = services.inbox.read_all_inbox_notifications(inbox_request(subscriber, request)).await?;
    Ok(changed_without_body(response))
}

/// What the bulk routes share; each names its change.
async fn update_all_inbox_notifications(
    services: Services,
    subscriber: InboxSubscriber,
    body: pb::UpdateAllInboxNotificationsRequest,
    change: InboxBulkChange,
) -> RestResult {
    let request = pb::UpdateAllInboxNotificationsRequest { change: change.into(), ..body };
    let response = services.inbox.update_all_inbox_notifications(inbox_request(subscriber, request)).await?;
    Ok(changed_without_body(response))
}

async fn archive_all_inbox_notifications(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    JsonBody(body): JsonBody<pb::UpdateAllInboxNotificationsRequest>,
) -> RestResult {
    update_all_inbox_notifications(services, subscriber, body, InboxBulkChange::Archive).await
}

async fn archive_read_inbox_notifications(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    JsonBody(body): JsonBody<pb::UpdateAllInboxNotificationsRequest>,
) -> RestResult {
    update_all_inbox_notifications(services, subscriber, body, InboxBulkChange::ArchiveRead).await
}

async fn see_inbox_notifications(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    JsonBody(body): JsonBody<pb::UpdateAllInboxNotificationsRequest>,
) -> RestResult {
    update_all_inbox_notifications(services, subscriber, body, InboxBulkChange::Seen).await
}

async fn delete_inbox_notifications(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    JsonBody(body): JsonBody<pb::UpdateAllInboxNotificationsRequest>,
) -> RestResult {
    update_all_inbox_notifications(services, subscriber, body, InboxBulkChange::Delete).await
}
