//! Settings, read from the command line or the environment, with defaults that need nothing.

use std::net::SocketAddr;
use std::path::PathBuf;

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

    /// Base64 of the 32-byte key encrypting integration credentials. When unset, the key is read
    /// from (or generated into) `secret-key` in the data directory.
    #[arg(long, env = "HERALD_SECRET_KEY", hide_env_values = true, global = true)]
    pub secret_key: Option<String>,

    #[command(flatten)]
    pub database: DatabaseSettings,
}

/// Installs the global tracing subscriber; `RUST_LOG` filters (default `info`).
pub fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).init(),
    }
}
