//! REST routes of the subscriber's own preferences in the inbox, in the reference service's shape:
//! `{data: [{level, enabled, channels, workflow?}]}` and `{data: {…}}` for one.

use axum::extract::{Path, State};
use axum::Extension;
use http::StatusCode;

use super::inbox::{inbox_request, TAG};
use super::{json_response, JsonBody, RestResult};
use crate::domain::inbox::InboxSubscriber;
use crate::grpc::Services;
use crate::openapi::schemas::{input, output};
use crate::openapi::{ApiRoutes, Operation};
use crate::proto::herald::v1 as pb;
use pb::inbox_service_server::InboxService;

pub fn routes() -> ApiRoutes<Services> {
    let list = Operation::get("/v1/inbox/preferences", "listInboxPreferences", TAG)
        .summary("The subscriber's global preference and one per workflow (the server API's preferences)")
        .answers(200, output("ListInboxPreferencesResponse"))
        // A subscriber deleted after its token was issued.
        .errors(&[404])
        .subscriber_token();
    let update = |path: &'static str, id: &'static str, summary: &'static str| {
        Operation::patch(path, id, TAG)
            .summary(summary)
            .body(input("UpdateInboxPreferenceRequest"))
            .answers(200, output("UpdateInboxPreferenceResponse"))
            .errors(&[404])
            .subscriber_token()
    };
    ApiRoutes::new()
        .add(list, list_inbox_preferences)
        .add(
            update("/v1/inbox/preferences", "updateInboxGlobalPreference", "Turn channels on or off globally"),
            update_inbox_global_preference,
        )
        .add(
            update(
                "/v1/inbox/preferences/{workflow_id}",
                "updateInboxWorkflowPreference",
                "Turn channels on or off for one workflow (its _id, identifier or slug; not a critical one)",
            ),
            update_inbox_workflow_preference,
        )
}

async fn list_inbox_preferences(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
) -> RestResult {
    let request = pb::ListInboxPreferencesRequest {};
    let response = services.inbox.list_inbox_preferences(inbox_request(subscriber, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner()))
}

async fn update_inbox_preference(
    services: Services,
    subscriber: InboxSubscriber,
    request: pb::UpdateInboxPreferenceRequest,
) -> RestResult {
    let response = services.inbox.update_inbox_preference(inbox_request(subscriber, request)).await?;
    Ok(json_response(StatusCode::OK, &response.into_inner()))
}

async fn update_inbox_global_preference(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    JsonBody(body): JsonBody<pb::UpdateInboxPreferenceRequest>,
) -> RestResult {
    update_inbox_preference(services, subscriber, pb::UpdateInboxPreferenceRequest { workflow_id: None, ..body }).await
}

async fn update_inbox_workflow_preference(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    Path(workflow_id): Path<String>,
    JsonBody(body): JsonBody<pb::UpdateInboxPreferenceRequest>,
) -> RestResult {
    let request = pb::UpdateInboxPreferenceRequest { workflow_id: Some(workflow_id), ..body };
    update_inbox_preference(services, subscriber, request).await
}
