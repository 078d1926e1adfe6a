//! Database access: the connection pool, embedded migrations and the private development cluster.

pub mod batch;
pub mod local_cluster;
mod pool;
pub mod request;
pub mod schema;
pub mod schema_domain;
pub mod unnest;

use diesel_async::pooled_connection::deadpool::{BuildError, Pool};
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod};
use diesel_async::{AsyncConnection, AsyncMigrationHarness, AsyncPgConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use futures_util::FutureExt;

/// Every migration under `migrations/`, compiled into the binary.
pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

pub use pool::{DbConn, DbPool};

/// How long a checkout waits for a free connection before its request answers 503.
const POOL_WAIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long opening a connection may take (TCP, startup, authentication, the session setup).
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Builds a pool of at most `size` connections; connections are opened lazily.
///
/// A connection is handed out again without the `SELECT 1` round trip deadpool's default recycling
/// sends on every checkout: one closed by the server (a restart, `pg_terminate_backend`) is already
/// known to be closed (its socket ended) and is replaced, and one that fails under a request is
/// dropped after that request's 503.
///
/// Waiting is bounded: a checkout that finds no connection free within `POOL_WAIT_TIMEOUT`, or a new
/// connection the server does not accept within `CONNECT_TIMEOUT`, fails (a 503 with `Retry-After`;
/// a worker backs off) instead of hanging its request or batch for as long as the fault lasts.
pub fn build_pool(database_url: &str, size: usize) -> Result<DbPool, BuildError> {
    let mut config = ManagerConfig::default();
    config.recycling_method = RecyclingMethod::Fast;
    config.custom_setup = Box::new(|url| establish_with_custom_plans(url).boxed());
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(database_url, config);
    Pool::builder(manager)
        .max_size(size)
        .runtime(deadpool::Runtime::Tokio1)
        .wait_timeout(Some(POOL_WAIT_TIMEOUT))
        .create_timeout(Some(CONNECT_TIMEOUT))
        .build()
        .map(DbPool::new)
}

/// Opens a connection whose prepared statements are planned for their actual parameters every time.
///
/// Diesel caches prepared statements, and after five runs PostgreSQL may switch one to a generic
/// plan that cannot see the bound values: a substring search then walks the primary-key index
/// instead of its trigram index (measured: 7 ms becomes 60-110 ms over 100,000 subscribers), and a
/// bound predicate can no longer prove a partial index applies. Planning costs well under a
/// millisecond for Herald's queries.
async fn establish_with_custom_plans(url: &str) -> diesel::ConnectionResult<AsyncPgConnection> {
    use diesel_async::SimpleAsyncConnection;
    let mut connection = AsyncPgConnection::establish(url).await?;
    connection
        .batch_execute("SET plan_cache_mode = force_custom_plan")
        .await
        .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
    Ok(connection)
}

/// Applies every pending migration and returns the versions applied.
///
/// Diesel's migration harness is synchronous and blocks in place, so this needs the
/// multi-threaded tokio runtime (the binary and the tests use it).
pub async fn run_migrations(database_url: &str) -> anyhow::Result<Vec<String>> {
    let connection = AsyncPgConnection::establish(database_url).await?;
    let mut harness = AsyncMigrationHarness::new(connection);
    let applied = harness
        .run_pending_migrations(MIGRATIONS)
        .map_err(|error| anyhow::anyhow!("applying migrations failed: {error}"))?;
    Ok(applied.iter().map(ToString::to_string).collect())
}

/// The database Herald runs on: the configured one, or the private cluster it started.
pub struct Database {
    /// Connection pool for request handlers and workers.
    pub pool: DbPool,
    /// URL of the database, for migrations and `LISTEN` connections.
    pub url: String,
    /// The private cluster, when Herald runs one (no `DATABASE_URL`).
    pub local_cluster: Option<local_cluster::LocalCluster>,
}

/// Name of the database Herald creates in its private cluster.
const PRIVATE_DATABASE: &str = "herald";

impl Database {
    /// Opens the configured database, or starts the private cluster in the data directory.
    pub async fn open(settings: &crate::config::DatabaseSettings) -> anyhow::Result<Self> {
        let (url, local_cluster) = match &settings.database_url {
            Some(url) => (url.clone(), None),
            None => {
                let cluster_dir = settings.data_dir.join("postgres");
                let cluster =
                    tokio::task::spawn_blocking(move || local_cluster::LocalCluster::start_or_reuse(&cluster_dir, &[]))
                        .await??;
                create_database_if_missing(&cluster.database_url("postgres"), PRIVATE_DATABASE).await?;
                (cluster.database_url(PRIVATE_DATABASE), Some(cluster))
            }
        };
        let pool = build_pool(&url, settings.db_pool_size)?;
        Ok(Self { pool, url, local_cluster })
    }

    /// Stops the private cluster if this process started it.
    pub fn close(self) {
        if let Some(cluster) = self.local_cluster {
            cluster.stop();
        }
    }
}

/// Creates `database` on the server behind `server_url` unless it exists. Safe to race: a
/// concurrent creator's duplicate-database error counts as success.
pub async fn create_database_if_missing(server_url: &str, database: &str) -> anyhow::Result<()> {
    use diesel::dsl::sql;
    use diesel::sql_types::Bool;
    use diesel_async::{RunQueryDsl, SimpleAsyncConnection};

    let mut connection = AsyncPgConnection::establish(server_url).await?;
    let exists: bool = diesel::select(
        sql::<Bool>("EXISTS (SELECT 1 FROM pg_database WHERE datname = ")
            .bind::<diesel::sql_types::Text, _>(database)
            .sql(")"),
    )
    .get_result(&mut connection)
    .await?;
    if exists {
        return Ok(());
    }
    let quoted = database.replace('"', "\"\"");
    match connection.batch_execute(&format!("CREATE DATABASE \"{quoted}\"")).await {
        Ok(()) => Ok(()),
        Err(diesel::result::Error::DatabaseError(_, info)) if info.message().contains("already exists") => Ok(()),
        Err(error) => Err(error.into()),
    }
}
