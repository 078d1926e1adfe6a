//! What a running Herald shares: the state every handler holds ([`AppState`]) and the limits both
//! transports apply. `crate::startup` wires a whole process around it.

use std::sync::Arc;

use crate::auth::ApiKeyCache;
use crate::crypto::CredentialCipher;
use crate::db::request::Connection;
use crate::db::DbPool;
use crate::domain::inbox::SessionTokens;
use crate::domain::tenancy::EnvironmentCache;
use crate::engine::delivery_status::SnsCertificates;
use crate::engine::EngineContext;
use crate::error::AppError;
use crate::rate_limit::RateLimits;

/// Largest request body (REST) or message (gRPC) accepted: 512 KiB.
pub const MAX_REQUEST_BYTES: usize = 512 * 1024;

/// What every handler shares, behind one `Arc`: a request clones it many times (each layer with state,
/// each gRPC service its REST route reaches), so a clone must be one reference count, not a copy of
/// every cache handle and key in it (measured: an unauthenticated request's rate went from 6,100/s with
/// the fields cloned one by one to 10,500/s).
#[derive(Clone)]
pub struct AppState(Arc<SharedState>);

/// The fields of [`AppState`], reached through it.
pub struct SharedState {
    pub pool: DbPool,
    /// Encrypts integration credentials at rest.
    pub cipher: CredentialCipher,
    /// The engine's clock and wake-up channel.
    pub engine: EngineContext,
    /// `HERALD_PUBLIC_URL`: where providers reach this server (delivery-status webhooks).
    pub public_url: Option<url::Url>,
    /// Amazon SNS's signing certificates (SES delivery events), fetched once per process.
    pub sns_certificates: Arc<SnsCertificates>,
    /// API keys resolved to their environment (the authentication middleware's cache).
    pub api_keys: ApiKeyCache,
    /// Environments by id (`GET /v1/environments/me`).
    pub environments: EnvironmentCache,
    /// This process's token buckets.
    pub rate_limits: RateLimits,
    /// Issues and verifies inbox session tokens (keyed from the same secret as `cipher`).
    pub inbox_tokens: SessionTokens,
    /// The environment the inbox demo page names by default: the seeded one in the
    /// zero-configuration run, none on a shared database.
    pub inbox_demo_application: Option<String>,
    /// Becomes true when the server starts its drain: open trigger streams stop reading and end.
    pub draining: tokio::sync::watch::Receiver<bool>,
}

impl AppState {
    pub fn new(shared: SharedState) -> Self {
        Self(Arc::new(shared))
    }

    /// A connection: the request's own when it runs in a transaction of its own (a keyed write, see
    /// `crate::db::request`), else a pooled one; an unreachable database is a 503.
    pub async fn connection(&self) -> Result<Connection, AppError> {
        Connection::of_request_or(&self.pool).await
    }
}

impl std::ops::Deref for AppState {
    type Target = SharedState;

    fn deref(&self) -> &SharedState {
        &self.0
    }
}
