//! A Microsoft Teams Workflows webhook (a Power Automate flow started by "When a Teams webhook request is
//! received"): `POST /workflows/{workflowId}/triggers/manual/paths/invoke` with the query
//! `api-version=2016-06-01&sp=…&sv=1.0&sig=…`, the `sig` being the URL's shared-access signature. It
//! answers `202 Accepted`, empty, before the flow runs, with the run's `x-ms-workflow-run-id`. Errors are
//! Logic Apps' `{"error": {"code", "message"}}`: `401` for a missing or wrong `sig`, `404` for a deleted
//! flow, `429` with `Retry-After`.
//!
//! A flow that posts a card fails later, inside its run, when the body has no Adaptive Card
//! (`'attachments' is of type 'Null'`), yet its trigger has already answered 202. This fake refuses such
//! a body at once, as a trigger with schema validation on does (`400 TriggerInputSchemaMismatch`), so
//! that a test sees the mistake. The error codes and messages follow Logic Apps' (unverified against a
//! live flow).

use serde_json::{json, Value};

use super::{FakeAnswer, FakeProvider, Recorded};

pub const WORKFLOW_ID: &str = "5b0e8c9f2d4a4c1e9f7a3b6d8e2c1a04";
pub const SIG: &str = "q1w2e3r4t5y6u7i8o9p0fakeSig";
pub const RUN_ID: &str = "08584620000000000000000000000CU00";

pub async fn start() -> FakeProvider {
    FakeProvider::start(check, |_| {
        FakeAnswer { status: 202, headers: Vec::new(), body: String::new() }
            .with_header("x-ms-workflow-run-id", RUN_ID)
            .with_header("x-ms-correlation-id", "0f6e3b1c-0000-4000-8000-000000000001")
            .with_header("x-ms-request-id", "westeurope:0f6e3b1c-0000-4000-8000-000000000001")
    })
    .await
}

/// The workflow's webhook URL at `fake`.
pub fn webhook_url(fake: &FakeProvider) -> String {
    let query = format!("api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={SIG}");
    format!("{}/workflows/{WORKFLOW_ID}/triggers/manual/paths/invoke?{query}", fake.base_url())
}

pub fn error(status: u16, code: &str, message: &str) -> FakeAnswer {
    FakeAnswer::json(status, json!({"error": {"code": code, "message": message}}))
}

/// The 429 a throttled flow answers.
pub fn throttled(retry_after: &str) -> FakeAnswer {
    error(
        429,
        "WorkflowRequestsThrottled",
        "Number of workflow requests exceeded the limit of '100' over time window of '00:05:00'.",
    )
    .with_header("retry-after", retry_after)
}

fn check(request: &Recorded) -> Option<FakeAnswer> {
    let Some(workflow) =
        request.path.strip_prefix("/workflows/").and_then(|rest| rest.strip_suffix("/triggers/manual/paths/invoke"))
    else {
        return Some(error(404, "NotFound", "The requested resource was not found."));
    };
    if request.method != "POST" {
        return Some(error(
            400,
            "TriggerRequestMethodNotValid",
            &format!("The HTTP method for this request is not valid: expected 'Post' and actual '{}'.", request.method),
        ));
    }
    let query: Vec<(String, String)> =
        form_urlencoded::parse(request.query.as_deref().unwrap_or_default().as_bytes()).into_owned().collect();
    match query.iter().find(|(name, _)| name == "sig") {
        None => {
            return Some(error(
                401,
                "DirectApiAuthorizationRequired",
                "The request must be authenticated only by Shared Access scheme.",
            ))
        }
        Some((_, sig)) if sig != SIG => {
            return Some(error(401, "DirectApiInvalidAuthorizationSignature", "The provided signature is not valid."))
        }
        Some(_) => {}
    }
    if workflow != WORKFLOW_ID {
        return Some(error(404, "WorkflowNotFound", &format!("The workflow '{workflow}' could not be found.")));
    }
    let body = if request.content_type_is("application/json") { request.json() } else { Value::Null };
    let missing = if body["type"] != "message" {
        Some("type")
    } else if !body["attachments"]
        .as_array()
        .is_some_and(|attachments| !attachments.is_empty() && attachments.iter().all(is_card))
    {
        Some("attachments")
    } else {
        None
    };
    missing.map(|property| {
        error(
            400,
            "TriggerInputSchemaMismatch",
            &format!(
                "The input body for trigger 'manual' of type 'Request' did not match its schema definition. \
                 Error details: 'Invalid or missing property: {property}.'."
            ),
        )
    })
}

/// An attachment Teams renders: an Adaptive Card.
fn is_card(attachment: &Value) -> bool {
    attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
        && attachment["content"]["type"] == "AdaptiveCard"
        && attachment["content"]["body"].is_array()
}
