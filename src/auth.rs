//! Authentication, shared by REST and gRPC: one axum middleware resolves
//! `Authorization: ApiKey <key>` (gRPC: the `authorization` metadata, which is the same header)
//! into a [`Tenant`] stored in the request extensions, where REST handlers and tonic methods read it.
//! The inbox routes use [`authenticate_subscriber`] instead: `Authorization: Bearer <session token>`
//! resolves to the token's [`InboxSubscriber`] and its tenant, so the rate limits and idempotency keys,
//! which go by the tenant, count an inbox call against the environment it acts in.
//! Keys are resolved through [`ApiKeyCache`], so an authenticated request costs no database round trip
//! in the steady state.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::db::DbPool;
use crate::domain::inbox::InboxSubscriber;
use crate::domain::tenancy::{self, Tenant};
use crate::error::render::is_grpc;
use crate::error::AppError;

const SCHEME: &str = "ApiKey";
const BEARER: &str = "Bearer";

/// Rejects the request with one of the contract's three 401s, or lets it on with its [`Tenant`].
pub async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let authorization = request.headers().get(http::header::AUTHORIZATION).cloned();
    match resolve_tenant(&state, authorization).await {
        Ok(tenant) => {
            tracing::Span::current().record("environment_id", tracing::field::display(tenant.environment_id));
            request.extensions_mut().insert(tenant);
            next.run(request).await
        }
        Err(error) if is_grpc(&request) => tonic::Status::from(error).into_http(),
        Err(error) => error.into_response(),
    }
}

/// The environment of an `Authorization: ApiKey <key>` header, or the contract's 401 (from the cache,
/// as every request's; a trigger stream checks its key again this way as it goes on).
pub(crate) async fn resolve_tenant(
    state: &AppState,
    authorization: Option<http::HeaderValue>,
) -> Result<Tenant, AppError> {
    let key = credential(authorization.as_ref(), SCHEME)?;
    state.api_keys.resolve(&state.pool, key).await?.ok_or_else(|| AppError::Unauthenticated("API Key not found".into()))
}

/// The credential of an `Authorization: <scheme> <credential>` header, or the contract's 401.
fn credential<'a>(authorization: Option<&'a http::HeaderValue>, scheme: &str) -> Result<&'a str, AppError> {
    let header = authorization.ok_or_else(|| AppError::Unauthenticated("Missing authorization header".into()))?;
    header
        .to_str()
        .ok()
        .and_then(|value| value.split_once(' '))
        .filter(|(given, _)| *given == scheme)
        .map(|(_, credential)| credential.trim())
        .ok_or_else(|| AppError::Unauthenticated("Invalid authentication scheme".into()))
}

/// The inbox routes' authentication: a valid session token lets the request on with its
/// [`InboxSubscriber`] and [`Tenant`]; anything else is a 401. Verifying costs no database round trip.
pub async fn authenticate_subscriber(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let authorization = request.headers().get(http::header::AUTHORIZATION);
    match credential(authorization, BEARER).and_then(|token| state.inbox_tokens.verify(token)) {
        Ok(subscriber) => {
            tracing::Span::current()
                .record("environment_id", tracing::field::display(subscriber.tenant.environment_id));
            request.extensions_mut().insert(subscriber.tenant);
            request.extensions_mut().insert(subscriber);
            next.run(request).await
        }
        Err(error) if is_grpc(&request) => tonic::Status::from(error).into_http(),
        Err(error) => error.into_response(),
    }
}

/// API keys (by their SHA-256) resolved to their environment, unknown keys included, for
/// [`ApiKeyCache::TIME_TO_LIVE`]. Concurrent requests with the same uncached key share one lookup.
///
/// Measured before the cache: an authenticated `GET /v1/environments/me` answered about 2,600 req/s
/// where a 401 that needs no database answered about 27,000 (`scripts/bench-trigger.sh`). No endpoint
/// revokes a key today, so the time to live only bounds how long a key removed from the database by
/// hand (or in another process's future revoke) keeps working.
#[derive(Clone)]
pub struct ApiKeyCache {
    tenants: moka::future::Cache<[u8; 32], Option<Tenant>>,
}

impl Default for ApiKeyCache {
    fn default() -> Self {
        let tenants =
            moka::future::Cache::builder().max_capacity(Self::CAPACITY).time_to_live(Self::TIME_TO_LIVE).build();
        Self { tenants }
    }
}

impl ApiKeyCache {
    /// How long a resolved key (or a refusal) is trusted.
    pub const TIME_TO_LIVE: Duration = Duration::from_secs(30);
    /// Most keys remembered: bounds the memory a flood of random keys can take.
    const CAPACITY: u64 = 10_000;

    /// The tenant of `key`, None when no environment has it.
    pub async fn resolve(&self, pool: &DbPool, key: &str) -> Result<Option<Tenant>, AppError> {
        let hash: [u8; 32] = tenancy::hash_api_key(key).try_into().expect("SHA-256 is 32 bytes");
        self.tenants
            .try_get_with(hash, async {
                let mut conn = pool.get().await?;
                tenancy::find_tenant_by_api_key(&mut conn, key).await
            })
            .await
            .map_err(AppError::from_shared)
    }
}

/// The subscriber the inbox authentication resolved; every inbox tonic method starts here.
pub fn subscriber_of<T>(request: &tonic::Request<T>) -> Result<InboxSubscriber, tonic::Status> {
    request
        .extensions()
        .get::<InboxSubscriber>()
        .cloned()
        .ok_or_else(|| AppError::Unauthenticated("Missing authorization header".into()).into())
}

/// The tenant the auth middleware resolved; every authenticated tonic method starts here.
pub fn tenant_of<T>(request: &tonic::Request<T>) -> Result<Tenant, tonic::Status> {
    request
        .extensions()
        .get::<Tenant>()
        .copied()
        .ok_or_else(|| AppError::Unauthenticated("Missing authorization header".into()).into())
}
