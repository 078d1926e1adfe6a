//! The public route providers post delivery status to. It carries no API key (the server mounts it
//! outside authentication): the provider's signature is checked below, in
//! `crate::engine::delivery_status`, which also records the events.

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, State};
use http::{HeaderMap, StatusCode, Uri};
use serde_json::json;

use super::{json_response, RestResult};
use crate::app::AppState;
use crate::engine::delivery_status::{receive_delivery_status, InboundWebhook};
use crate::openapi::{ApiRoutes, Operation};

/// Mounted without authentication: the body is whatever the provider posts (JSON, a form, SNS text).
pub fn routes() -> ApiRoutes<AppState> {
    let receive = Operation::post("/v1/webhooks/{environment_id}/{integration_id}", "receiveStatusWebhook", "Webhooks")
        .summary("Delivery status posted by a provider, verified by the provider's own signature")
        .answers(
            200,
            json!({
                "type": "object",
                "required": ["received", "recorded"],
                "additionalProperties": false,
                "properties": {
                    "received": {"type": "integer", "minimum": 0, "description": "Events the post carried."},
                    "recorded": {"type": "integer", "minimum": 0, "description": "Events that named a known message."},
                },
            }),
        )
        .errors(&[400, 401, 404, 413, 500, 503])
        .public();
    ApiRoutes::new().add(receive, receive_status_webhook)
}

/// 200 `{received, recorded}` once the post is verified and its events recorded (events for unknown
/// messages included: providers retry anything else).
async fn receive_status_webhook(
    State(state): State<AppState>,
    Path((environment_id, integration_id)): Path<(String, String)>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
) -> RestResult {
    let url = called_url(state.public_url.as_ref(), &headers, &uri);
    let webhook = InboundWebhook { url, headers, body: body.to_vec() };
    let mut conn = state.connection().await?;
    let now = state.engine.clock.now();
    let receipt = receive_delivery_status(
        &mut conn,
        &state.cipher,
        &state.sns_certificates,
        &environment_id,
        &integration_id,
        webhook,
        now,
    )
    .await?;
    Ok(json_response(StatusCode::OK, &json!({"received": receipt.events, "recorded": receipt.recorded})))
}

/// The URL the provider called: `HERALD_PUBLIC_URL` (which may carry a path prefix a proxy strips)
/// followed by the path and query; without it, `http://` and the request's `Host`, as Herald itself
/// serves plain HTTP.
fn called_url(public_url: Option<&url::Url>, headers: &HeaderMap, uri: &Uri) -> String {
    let path_and_query = uri.path_and_query().map_or("/", |path| path.as_str());
    match public_url {
        Some(base) => format!("{}{path_and_query}", base.as_str().trim_end_matches('/')),
        None => {
            let host = headers
                .get(http::header::HOST)
                .and_then(|host| host.to_str().ok())
                .or_else(|| uri.authority().map(|authority| authority.as_str()))
                .unwrap_or_default();
            format!("http://{host}{path_and_query}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_url_replaces_scheme_and_host_and_keeps_its_path_prefix() {
        let uri: Uri = "/v1/webhooks/e/i?source=twilio".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(http::header::HOST, "10.0.0.7:3000".parse().unwrap());
        assert_eq!(called_url(None, &headers, &uri), "http://10.0.0.7:3000/v1/webhooks/e/i?source=twilio");
        let public = url::Url::parse("https://notify.example.com/herald/").unwrap();
        assert_eq!(
            called_url(Some(&public), &headers, &uri),
            "https://notify.example.com/herald/v1/webhooks/e/i?source=twilio"
        );
        let bare = url::Url::parse("https://notify.example.com").unwrap();
        assert_eq!(called_url(Some(&bare), &headers, &uri), "https://notify.example.com/v1/webhooks/e/i?source=twilio");
    }
}
