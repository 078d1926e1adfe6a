//! API key authentication, shared by REST and gRPC: one axum middleware resolves
//! `Authorization: ApiKey <key>` (gRPC: the `authorization` metadata, which is the same header)
//! into a [`Tenant`] stored in the request extensions, where REST handlers and tonic methods read it.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::app::AppState;
use crate::domain::tenancy::{self, Tenant};
use crate::error::render::is_grpc;
use crate::error::AppError;

const SCHEME: &str = "ApiKey";

/// Rejects the request with one of the contract's three 401s, or lets it on with its [`Tenant`].
pub async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let authorization = request.headers().get(http::header::AUTHORIZATION).cloned();
    match resolve_tenant(&state, authorization).await {
        Ok(tenant) => {
            request.extensions_mut().insert(tenant);
            next.run(request).await
        }
        Err(error) if is_grpc(&request) => tonic::Status::from(error).into_http(),
        Err(error) => error.into_response(),
    }
}

async fn resolve_tenant(state: &AppState, authorization: Option<http::HeaderValue>) -> Result<Tenant, AppError> {
    let header = authorization.ok_or_else(|| AppError::Unauthenticated("Missing authorization header".into()))?;
    let key = header
        .to_str()
        .ok()
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| *scheme == SCHEME)
        .map(|(_, key)| key.trim())
        .ok_or_else(|| AppError::Unauthenticated("Invalid authentication scheme".into()))?;
    let mut conn = state.pool.get().await?;
    tenancy::find_tenant_by_api_key(&mut conn, key)
        .await?
        .ok_or_else(|| AppError::Unauthenticated("API Key not found".into()))
}

/// The tenant the auth middleware resolved; every authenticated tonic method starts here.
pub fn tenant_of<T>(request: &tonic::Request<T>) -> Result<Tenant, tonic::Status> {
    request
        .extensions()
        .get::<Tenant>()
        .copied()
        .ok_or_else(|| AppError::Unauthenticated("Missing authorization header".into()).into())
}
