//! One router on one port: REST (HTTP/1.1 and h2) and gRPC (h2c), health (`/healthz`, `/readyz`,
//! gRPC health) and reflection, request ids, request metrics, tracing, and graceful shutdown.
//! [`listener`] serves connections opened for the inbox event stream without hyper's buffers.

mod listener;

pub use listener::ApiListener;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::Router;
use http::{HeaderName, Request};
use tonic_health::pb::health_server::{Health as GrpcHealth, HealthServer};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{Any, CorsLayer};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use tracing::field::Empty;
use tracing::Span;

use crate::app::MAX_REQUEST_BYTES;
use crate::error::render::{grpc_panic_response, is_grpc, not_found_fallback, render_errors, rest_panic_response};
use crate::grpc::Services;
use crate::health::Health;
use crate::metrics::requests::{record_request, route_of};
use crate::openapi::{Declarations, Document};
use crate::{auth, idempotency, openapi, rate_limit, rest, telemetry};

/// Re-exported for `src/grpc/workflows.rs`, which still imports it from here; the state lives in `app`.
use crate::app::AppState;

const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The whole HTTP surface, with `extra_rest_routes` served like Herald's own REST routes (same
/// authentication, error rendering and panic handling). Tests use it to provoke failures. `health`
/// answers `/healthz` and `/readyz`; `grpc_health` is the gRPC health service reporting the same.
pub fn router(
    state: AppState,
    extra_rest_routes: Router,
    health: Arc<Health>,
    grpc_health: HealthServer<impl GrpcHealth>,
) -> Router {
    let metrics = state.engine.metrics.clone();
    let services = Services::new(state.clone());
    let document = Document::new(&api_document());
    // Providers' delivery-status posts carry no API key: their signature is checked by the handler.
    let webhooks = rest_handling(rest::webhook_routes().with_state(state.clone()));
    // The document and its page are open, like the health routes.
    let documentation = rest_handling(openapi::routes().with_state(document));
    // So are the inbox web component and its demo page: they carry no secret.
    let inbox_web = subscriber_facing(rest_handling(rest::inbox_web_routes().with_state(state.clone())));
    let idempotency = from_fn_with_state(state.clone(), idempotency::guard);
    let rate_limit = from_fn_with_state(state.clone(), rate_limit::limit);
    let authenticate = from_fn_with_state(state.clone(), auth::authenticate);
    let authenticate_subscriber = from_fn_with_state(state, auth::authenticate_subscriber);

    // Inner to outer: the key's claim and answer wrap the method; the rate limit counts replays too
    // and never lets a refused request claim a key; both need the tenant.
    let herald_grpc = crate::grpc::routes(&services)
        .route_layer(idempotency.clone())
        .route_layer(rate_limit.clone())
        .route_layer(authenticate.clone())
        .layer(CatchPanicLayer::custom(grpc_panic_response));

    // The inbox: the session service is open (its callers have no credential yet); the others take
    // a session token, whose environment the rate limit and idempotency keys go by.
    let inbox_grpc = crate::grpc::inbox_routes(&services)
        .route_layer(idempotency.clone())
        .route_layer(rate_limit.clone())
        .route_layer(authenticate_subscriber.clone())
        .merge(crate::grpc::inbox_session_routes(&services))
        .layer(CatchPanicLayer::custom(grpc_panic_response));
    let inbox_session = subscriber_facing(rest_handling(
        rest::inbox_session_routes().with_state(services.clone()).route_layer(from_fn(rest::require_json_body)),
    ));
    let inbox = subscriber_facing(rest_handling(
        rest::inbox_routes()
            .with_state(services.clone())
            .route_layer(from_fn(rest::require_json_body))
            .route_layer(idempotency.clone())
            .route_layer(rate_limit.clone())
            .route_layer(authenticate_subscriber.clone()),
    ));
    // The event stream also takes its token from the query (EventSource cannot send headers).
    let inbox_events = rest_handling(
        rest::inbox_event_routes()
            .with_state(services.clone())
            .route_layer(rate_limit.clone())
            .route_layer(authenticate_subscriber)
            .route_layer(from_fn(rest::token_from_query)),
    )
    .layer(inbox_cors());

    let rest = rest_handling(
        rest::routes()
            .with_state(services)
            .merge(extra_rest_routes)
            .route_layer(from_fn(rest::require_json_body))
            .route_layer(idempotency)
            .route_layer(rate_limit)
            .route_layer(authenticate),
    );

    public_grpc_routes(grpc_health)
        .merge(health.routes())
        .merge(herald_grpc)
        .merge(inbox_grpc)
        .merge(rest)
        .merge(inbox_session)
        .merge(inbox)
        .merge(inbox_events)
        .merge(webhooks)
        .merge(documentation)
        .merge(inbox_web)
        .fallback(not_found_fallback)
        .layer(from_fn_with_state(metrics, record_request))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID_HEADER))
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(SetRequestIdLayer::new(REQUEST_ID_HEADER, MakeRequestUuid))
}

/// The subscriber-facing routes other than the event stream (the web component, its session and the
/// inbox API): cross-origin access, and each answer closes its connection (preflights' too). A browser
/// reuses an idle keep-alive connection for its `EventSource`, and hyper keeps 16 KiB of buffers per
/// connection for as long as the stream lasts; with no idle connection left, the stream opens one of its
/// own, which `listener` serves without them (5.5 KB a stream against 21 KB). An end user's inbox makes a
/// few calls a minute, so a new connection per call costs little; behind a proxy, only the proxy's
/// upstream connections are affected.
fn subscriber_facing(routes: Router) -> Router {
    let close_connection = |mut response: axum::response::Response| async {
        response.headers_mut().insert(http::header::CONNECTION, http::HeaderValue::from_static("close"));
        response
    };
    routes.layer(inbox_cors()).layer(axum::middleware::map_response(close_connection))
}

/// Cross-origin access to the subscriber-facing routes, so the `<herald-inbox>` component works on a
/// product's own pages. Any origin may call them: they take a bearer session token (or its query form
/// for the event stream), never a cookie, so a page can only act with a token its backend handed it.
/// The server API stays same-origin: its secret key belongs on servers, not in browsers.
fn inbox_cors() -> CorsLayer {
    use http::header::{AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER};
    use http::{HeaderName, Method};
    let named = HeaderName::from_static;
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::PATCH, Method::PUT, Method::DELETE])
        .allow_headers([AUTHORIZATION, CONTENT_TYPE, named("idempotency-key"), named("last-event-id")])
        .expose_headers([
            named("herald-inbox-unread-count"),
            named("herald-inbox-unseen-count"),
            named("herald-inbox-last-event-id"),
            named("idempotency-replay"),
            named("x-ratelimit-limit"),
            named("x-ratelimit-remaining"),
            named("x-ratelimit-reset"),
            named("x-request-id"),
            RETRY_AFTER,
        ])
        .max_age(std::time::Duration::from_secs(3600))
}

/// The span of one request, REST or gRPC: every log line of the request carries its fields, and with
/// traces on it is exported, a child of the caller's `traceparent`.
fn request_span(request: &Request<Body>) -> Span {
    let request_id = request.headers().get(&REQUEST_ID_HEADER).and_then(|value| value.to_str().ok()).unwrap_or("");
    // The authentication middleware fills in the environment once it knows it; the trace fields are
    // filled only when traces are on.
    let span = tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        request_id,
        environment_id = Empty,
        trace_id = Empty,
        span_id = Empty,
        otel.name = Empty,
        otel.kind = Empty,
    );
    if telemetry::enabled() {
        // Span names are low-cardinality: the route template (a REST path holds ids) or the gRPC method.
        let grpc = is_grpc(request);
        let name = match (route_of(request, grpc), grpc) {
            (Some(method), true) => method.trim_start_matches('/').to_owned(),
            (Some(route), false) => format!("{} {route}", request.method()),
            (None, _) => request.method().to_string(),
        };
        span.record("otel.name", name.as_str());
        span.record("otel.kind", "server");
        telemetry::continue_from_headers(&span, request.headers());
    }
    span
}

/// The OpenAPI document of every route the API port serves over REST: the same declarations the
/// routers above are built from.
pub fn api_document() -> serde_json::Value {
    let mut declarations = Declarations::default();
    declarations.add(&rest::routes());
    declarations.add(&rest::inbox_session_routes());
    declarations.add(&rest::inbox_routes());
    declarations.add(&rest::inbox_event_routes());
    declarations.add(&rest::webhook_routes());
    declarations.add(&Health::declared_routes());
    declarations.add(&openapi::routes());
    declarations.add(&rest::inbox_web_routes());
    declarations.document()
}

/// What every REST route gets, authenticated or not: the contract's error bodies, panics as 500s,
/// and the body limit.
fn rest_handling(routes: Router) -> Router {
    routes
        .layer(CatchPanicLayer::custom(rest_panic_response))
        .layer(from_fn(render_errors))
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
}

/// Health and reflection: open to everyone, so probes and `grpcurl list` need no key.
fn public_grpc_routes(grpc_health: HealthServer<impl GrpcHealth>) -> Router {
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("the embedded descriptor set is valid");
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .expect("the embedded descriptor set is valid");
    tonic::service::Routes::new(grpc_health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .into_axum_router()
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("installing the SIGTERM handler");
    tokio::select! {
        _ = interrupt => {}
        _ = terminate.recv() => {}
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
