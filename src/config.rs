//! Settings, read from the command line or the environment, with defaults that need nothing.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::providers::{OutboundPolicy, ProviderSettings};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (the default).
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Where the database is and how to reach it.
#[derive(Debug, Clone, clap::Args)]
pub struct DatabaseSettings {
    /// PostgreSQL URL. When unset, Herald starts (or reuses) a private cluster in the data directory.
    #[arg(long, env = "DATABASE_URL", global = true)]
    pub database_url: Option<String>,

    /// Directory for the private cluster and the generated API key when DATABASE_URL is unset.
    #[arg(long, env = "HERALD_DATA_DIR", default_value = ".herald", global = true)]
    pub data_dir: PathBuf,

    /// Maximum number of pooled database connections.
    #[arg(long, env = "HERALD_DB_POOL_SIZE", default_value_t = 16, global = true)]
    pub db_pool_size: usize,
}

/// Settings shared by every command.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalSettings {
    /// Log format: text or json.
    #[arg(long, env = "HERALD_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    /// Address serving REST (HTTP/1.1 and h2) and gRPC (h2c) on one port.
    #[arg(long, env = "HERALD_ADDR", default_value = "127.0.0.1:3000", global = true)]
    pub addr: SocketAddr,

    /// Address serving `/metrics` (Prometheus), `/healthz` and `/readyz` for the operator, in every
    /// role (the only HTTP port of a worker process). Unset: no such port. Keep it off the public
    /// network: it needs no key.
    #[arg(long, env = "HERALD_METRICS_ADDR", global = true)]
    pub metrics_addr: Option<SocketAddr>,

    /// Base64 of the 32-byte key encrypting integration credentials. When unset, the key is read
    /// from (or generated into) `secret-key` in the data directory.
    #[arg(long, env = "HERALD_SECRET_KEY", hide_env_values = true, global = true)]
    pub secret_key: Option<String>,

    /// The URL providers reach this server at (scheme, host and any path prefix a proxy adds), e.g.
    /// `https://herald.example.com`. Delivery-status webhooks signed over their URL (Twilio) are
    /// verified against it; when unset, the URL is rebuilt from the request's `Host` header.
    #[arg(long, env = "HERALD_PUBLIC_URL", global = true)]
    pub public_url: Option<url::Url>,

    #[command(flatten)]
    pub database: DatabaseSettings,

    #[command(flatten)]
    pub rate_limits: RateLimitSettings,
}

/// Requests per second each environment may make, per kind of request, across all API processes on
/// the database (each takes its share); the burst is one second's worth. `0` turns a limit off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::Args)]
pub struct RateLimitSettings {
    /// Triggers a second (a bulk trigger counts its events, in a bucket of its own).
    #[arg(long, env = "HERALD_RATE_LIMIT_TRIGGERS", default_value_t = 20_000, global = true)]
    pub triggers: u32,

    /// Other writes (POST, PUT, PATCH, DELETE) a second.
    #[arg(long, env = "HERALD_RATE_LIMIT_WRITES", default_value_t = 5_000, global = true)]
    pub writes: u32,

    /// Reads (GET, and the gRPC Get/List/Search methods) a second.
    #[arg(long, env = "HERALD_RATE_LIMIT_READS", default_value_t = 50_000, global = true)]
    pub reads: u32,
}

impl RateLimitSettings {
    /// Every limit off.
    pub const OFF: Self = Self { triggers: 0, writes: 0, reads: 0 };
}

impl Default for RateLimitSettings {
    /// The defaults of the command line: generous enough that the benchmarks never meet them.
    fn default() -> Self {
        Self { triggers: 20_000, writes: 5_000, reads: 50_000 }
    }
}

/// What a `serve` process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    /// REST and gRPC only: triggers are stored, other processes deliver them.
    Api,
    /// Workers only: delivers what API processes store (no port is opened).
    Worker,
    /// Both (the default).
    All,
}

impl Role {
    pub fn serves_api(self) -> bool {
        matches!(self, Role::Api | Role::All)
    }

    pub fn runs_workers(self) -> bool {
        matches!(self, Role::Worker | Role::All)
    }
}

/// How `serve` runs the engine's workers.
#[derive(Debug, Clone, clap::Args)]
pub struct EngineSettings {
    #[arg(long, env = "HERALD_ROLE", value_enum, default_value_t = Role::All, global = true)]
    pub role: Role,

    /// Worker loops per process; each claims and runs a batch at a time.
    #[arg(long, env = "HERALD_WORKER_CONCURRENCY", default_value_t = 4, global = true)]
    pub worker_concurrency: usize,

    /// Claiming transactions a process runs at once (each also runs its in-app and delay steps); the
    /// loops beyond them wait for a turn to claim, while their provider calls run regardless.
    #[arg(long, env = "HERALD_WORKER_CLAIMS", default_value_t = 2, global = true)]
    pub worker_claims: usize,

    /// Jobs one worker loop claims at once, and at most how many of a batch call out of the database
    /// (providers, webhooks, custom steps) at once.
    #[arg(long, env = "HERALD_WORKER_BATCH_SIZE", default_value_t = 100, global = true)]
    pub worker_batch_size: i64,

    /// Jobs a worker loop claims at once while it drains a backlog of in-app and delay steps (its last
    /// batch came back full of them): they run in the claiming transaction, where a larger batch costs
    /// the database less a job. Never below `HERALD_WORKER_BATCH_SIZE`.
    #[arg(long, env = "HERALD_WORKER_BACKLOG_BATCH_SIZE", default_value_t = 400, global = true)]
    pub worker_backlog_batch_size: i64,

    /// Seconds a claimed job is held before another worker may take it over (after a crash).
    #[arg(long, env = "HERALD_JOB_LEASE_SECS", default_value_t = 60, global = true)]
    pub job_lease_secs: u64,

    /// Longest idle sleep of a worker, in milliseconds (LISTEN/NOTIFY wakes it sooner).
    #[arg(long, env = "HERALD_WORKER_POLL_MS", default_value_t = 1000, global = true)]
    pub worker_poll_ms: u64,

    /// Days notifications (with their jobs, details and messages) are kept; 0 keeps them forever.
    #[arg(long, env = "HERALD_RETENTION_DAYS", default_value_t = 30, global = true)]
    pub retention_days: u32,

    /// Let an integration's `baseUrl` use plain http on any host (by default only on loopback hosts).
    #[arg(long, env = "HERALD_PROVIDER_ALLOW_HTTP", default_value_t = false, global = true)]
    pub provider_allow_http: bool,

    /// Comma-separated CIDR ranges, addresses and host names outbound connections may reach although they
    /// are not globally routable (e.g. `127.0.0.0/8,::1/128,mail.internal`). Unset: none, except loopback
    /// in the zero-config development mode (no DATABASE_URL).
    #[arg(long, env = "HERALD_OUTBOUND_ALLOW", global = true)]
    pub outbound_allow: Option<OutboundPolicy>,
}

impl EngineSettings {
    /// The provider settings of a process; `development` (the zero-config mode) also allows loopback, where
    /// a developer's receivers run.
    pub fn provider_settings(&self, development: bool) -> ProviderSettings {
        let outbound = self.outbound_allow.clone().unwrap_or_default();
        let outbound = if development { outbound.allowing_loopback() } else { outbound };
        ProviderSettings { allow_plain_http: self.provider_allow_http, outbound: Arc::new(outbound) }
    }
}
