//! `GET /v1/inbox/events`: the inbox's events as Server-Sent Events, transcoded from the
//! `StreamInboxEvents` gRPC stream. Each event is `id:` its sequence number, `event:` its kind
//! (`received`, `changed`, `reset`, `counts`) and `data:` the `InboxEvent` message as JSON (the
//! notification in the inbox's shape, `unreadCount`, `unseenCount`).
//!
//! `EventSource` cannot send headers: the session token may come as `?token=` instead
//! ([`token_from_query`] moves it into the `Authorization` header and out of the URI before anything
//! else sees the request), and it resumes by itself with the `Last-Event-ID` header (or
//! `?lastEventId=`, for a client that reconnects by hand).

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use futures_util::StreamExt;
use http::HeaderMap;
use serde_json::json;

use super::inbox::inbox_request;
use super::query::QueryParams;
use super::RestResult;
use crate::domain::inbox::InboxSubscriber;
use crate::domain::validation::Validator;
use crate::error::FieldError;
use crate::grpc::Services;
use crate::openapi::{ApiRoutes, Operation};
use crate::proto::herald::v1 as pb;
use pb::inbox_service_server::InboxService;

const LAST_EVENT_ID: &str = "last-event-id";

/// The event stream route (authenticated by a session token, from the header or `?token=`).
pub fn routes() -> ApiRoutes<Services> {
    let events = Operation::get("/v1/inbox/events", "streamInboxEvents", "Inbox")
        .summary("The subscriber's inbox events as Server-Sent Events, resumable with Last-Event-ID")
        .query_text("token")
        .query("lastEventId", json!({"type": "integer", "minimum": 0}))
        .answers_event_stream(200)
        .subscriber_token();
    ApiRoutes::new().add(events, stream_inbox_events)
}

/// Moves a `token` query parameter into `Authorization: Bearer …` (when no such header is there)
/// and removes it from the URI, so no log line, error body or handler ever holds it.
pub async fn token_from_query(mut request: Request, next: Next) -> Response {
    let Some(query) = request.uri().query() else { return next.run(request).await };
    let (tokens, rest): (Vec<_>, Vec<_>) =
        url::form_urlencoded::parse(query.as_bytes()).into_owned().partition(|(name, _)| name == "token");
    let Some((_, token)) = tokens.into_iter().next() else { return next.run(request).await };
    let headers = request.headers_mut();
    if !headers.contains_key(http::header::AUTHORIZATION) {
        if let Ok(value) = http::HeaderValue::from_str(&format!("Bearer {token}")) {
            headers.insert(http::header::AUTHORIZATION, value);
        }
    }
    let rest = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(rest).finish();
    let path = request.uri().path();
    let path_and_query = if rest.is_empty() { path.to_owned() } else { format!("{path}?{rest}") };
    let mut parts = request.uri().clone().into_parts();
    parts.path_and_query = path_and_query.parse().ok();
    if let Ok(uri) = http::Uri::from_parts(parts) {
        *request.uri_mut() = uri;
    }
    next.run(request).await
}

async fn stream_inbox_events(
    State(services): State<Services>,
    Extension(subscriber): Extension<InboxSubscriber>,
    headers: HeaderMap,
    query: QueryParams,
) -> RestResult {
    let mut validator = Validator::new();
    let from_header = headers.get(LAST_EVENT_ID).map(|value| {
        let text = value.to_str().unwrap_or_default();
        text.trim()
            .parse::<i64>()
            .map_err(|_| FieldError::new("Last-Event-ID", "Last-Event-ID must be the id of an event", text.to_owned()))
    });
    let last_event_id = match from_header {
        Some(parsed) => validator.take(parsed.map(Some)),
        None => validator.take(query.integer("lastEventId")),
    };
    validator.finish()?;
    let request = pb::StreamInboxEventsRequest { last_event_id };
    let events = services.inbox.stream_inbox_events(inbox_request(subscriber, request)).await?.into_inner();
    let events = events.map(|event| event.map_err(axum::BoxError::from).and_then(sse_event));
    // Comments every 15 seconds keep proxies from closing an idle stream.
    Ok(Sse::new(events).keep_alive(KeepAlive::default()).into_response())
}

fn sse_event(response: pb::StreamInboxEventsResponse) -> Result<Event, axum::BoxError> {
    let event = response.event.unwrap_or_default();
    let kind = event.kind().as_str_name();
    Ok(Event::default().id(event.id.to_string()).event(kind).json_data(&event)?)
}
