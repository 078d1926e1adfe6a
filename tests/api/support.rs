//! Test harness: every test gets its own PostgreSQL schema, migrated from scratch, and its own
//! Herald server on an ephemeral loopback port, reached over real HTTP and real gRPC.
//!
//! The database server is `DATABASE_URL`'s when set; otherwise a private cluster started from the
//! installed PostgreSQL binaries in the target directory (kept running for the next run).

mod answer_cut;
mod contract;

pub use answer_cut::AnswerCut;
pub use contract::{forget_port, register_api_port, ApiClient, ApiRequest, Contract};

use std::net::SocketAddr;

use axum::Router;
use herald::config::RateLimitSettings;
use herald::db::local_cluster::{LocalCluster, FAST_UNSAFE_SETTINGS};
use herald::db::{build_pool, create_database_if_missing, run_migrations, DbPool};
use herald::domain::tenancy;
use herald::engine::worker::WorkerSettings;
use herald::engine::Clock;
use herald::providers::{ProviderSettings, Providers};
use herald::startup::{self, Running, StartOptions};
use std::time::Duration;
use tokio::sync::OnceCell;
use uuid::Uuid;

const TEST_DATABASE: &str = "herald_test";

/// `HERALD_OUTBOUND_ALLOW` for the tests' local receivers and fakes, which listen on loopback.
pub const LOOPBACK_ALLOWED: &str = "127.0.0.0/8,::1/128";

/// Provider settings under an outbound allow list (`HERALD_OUTBOUND_ALLOW` syntax).
pub fn provider_settings(outbound_allow: &str) -> ProviderSettings {
    let outbound = outbound_allow.parse().expect("a valid allow list");
    ProviderSettings { outbound: std::sync::Arc::new(outbound), ..Default::default() }
}

/// The delivery adapters as the test server's workers have them: allowed to reach the local fakes.
pub fn local_providers() -> Providers {
    Providers::new(provider_settings(LOOPBACK_ALLOWED))
}

/// A running server with a fresh schema, an environment and an API key.
pub struct TestServer {
    pub addr: SocketAddr,
    /// `HERALD_METRICS_ADDR`'s port: `/metrics`, `/healthz`, `/readyz`.
    pub metrics_addr: SocketAddr,
    pub api_key: String,
    pub environment_id: Uuid,
    pub organization_id: Uuid,
    pub pool: DbPool,
    /// The server's credential cipher (API keys and integration credentials at rest).
    pub cipher: herald::crypto::CredentialCipher,
    /// The engine's clock: tests move it forward instead of waiting.
    pub clock: Clock,
    /// The test's schema: also the application name of every connection the server opens.
    pub schema: String,
    /// The URL its connections use (with the schema), for a second process on the same database.
    pub database_url: String,
    /// `None` once [`shutdown`](Self::shutdown) has run.
    running: Option<Running>,
}

impl TestServer {
    /// Starts Herald's own router.
    pub async fn start() -> Self {
        Self::start_with(Router::new()).await
    }

    /// Starts Herald with `extra_rest_routes` mounted beside the real ones (to provoke failures).
    pub async fn start_with(extra_rest_routes: Router) -> Self {
        Self::start_full(extra_rest_routes, Some(2), false, LOOPBACK_ALLOWED).await
    }

    /// Starts Herald with `outbound_allow` as its `HERALD_OUTBOUND_ALLOW` instead of the loopback ranges
    /// the other starts allow (`""`: the production default, nothing but global addresses).
    pub async fn start_with_outbound_allow(outbound_allow: &str) -> Self {
        Self::start_full(Router::new(), Some(2), false, outbound_allow).await
    }

    /// Starts Herald with `HERALD_PUBLIC_URL` set to its own address, as a deployment that tells
    /// providers where to post delivery status.
    pub async fn start_public() -> Self {
        Self::start_full(Router::new(), Some(2), true, LOOPBACK_ALLOWED).await
    }

    /// Starts the API without workers (`--role api`): triggered jobs stay where the trigger left them.
    pub async fn start_api_only() -> Self {
        Self::start_full(Router::new(), None, false, LOOPBACK_ALLOWED).await
    }

    /// Starts Herald with a single worker loop: every due job is claimed by the same loop, so jobs that
    /// fall due together run in one batch.
    pub async fn start_with_one_worker_loop() -> Self {
        Self::start_full(Router::new(), Some(1), false, LOOPBACK_ALLOWED).await
    }

    /// Starts Herald on `database_url` (which names its `application_name`), a database of its own.
    pub async fn start_on(database_url: String) -> Self {
        Self::start_with_database(
            database_url,
            Router::new(),
            Some(2),
            false,
            LOOPBACK_ALLOWED,
            RateLimitSettings::default(),
        )
        .await
    }

    /// Starts Herald with these rate limits instead of the (generous) defaults.
    pub async fn start_with_rate_limits(rate_limits: RateLimitSettings) -> Self {
        let database_url = fresh_schema_url().await;
        Self::start_with_database(database_url, Router::new(), Some(2), false, LOOPBACK_ALLOWED, rate_limits).await
    }

    /// `worker_loops`: `None` for an API-only process.
    async fn start_full(
        extra_rest_routes: Router,
        worker_loops: Option<usize>,
        public: bool,
        outbound_allow: &str,
    ) -> Self {
        let database_url = fresh_schema_url().await;
        Self::start_with_database(
            database_url,
            extra_rest_routes,
            worker_loops,
            public,
            outbound_allow,
            RateLimitSettings::default(),
        )
        .await
    }

    async fn start_with_database(
        database_url: String,
        extra_rest_routes: Router,
        worker_loops: Option<usize>,
        public: bool,
        outbound_allow: &str,
        rate_limits: RateLimitSettings,
    ) -> Self {
        let schema = schema_of(&database_url);
        run_migrations(&database_url).await.expect("migrations apply");
        let pool = build_pool(&database_url, 8).expect("pool");
        let cipher = herald::crypto::CredentialCipher::random();
        let (environment, key) = {
            let mut conn = pool.get().await.expect("connection");
            tenancy::create_environment(&mut conn, &cipher, "Acme", "development").await.expect("environment")
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let metrics_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let metrics_addr = metrics_listener.local_addr().expect("addr");
        forget_port(metrics_addr);
        let clock = Clock::system();
        let settings = WorkerSettings {
            concurrency: worker_loops.unwrap_or(1),
            // One turn to claim for the two loops most tests run: the second loop's wait for its turn
            // is part of every test.
            claims: 1,
            batch_size: 50,
            backlog_batch_size: 200,
            lease: Duration::from_secs(30),
            poll_interval: Duration::from_millis(200),
            providers: Default::default(),
            public_url: None,
            // Tests sweep explicitly (`engine::retention::sweep`).
            retention: None,
        };
        let running = startup::start(StartOptions {
            pool: pool.clone(),
            cipher: cipher.clone(),
            clock: clock.clone(),
            listener: Some(listener),
            metrics_listener: Some(metrics_listener),
            workers: worker_loops.map(|_| settings),
            extra_rest_routes,
            public_url: public.then(|| format!("http://{addr}").parse().expect("a URL")),
            provider_settings: provider_settings(outbound_allow),
            rate_limits,
            inbox_demo_application: None,
        })
        .await
        .expect("Herald starts");
        register_api_port(addr);
        Self {
            addr,
            metrics_addr,
            api_key: key.key,
            environment_id: environment.id,
            organization_id: environment.organization_id,
            pool,
            cipher,
            clock,
            schema,
            database_url,
            running: Some(running),
        }
    }

    /// Starts a second Herald process on this server's database: workers only (`--role worker`),
    /// with the same server key. Stopped when the returned value is dropped.
    pub async fn start_worker_process(&self) -> WorkerProcess {
        self.start_worker_process_with_connections(8).await
    }

    /// `start_worker_process` with a pool of `connections`, two of which the process's LISTENs hold for
    /// good (the workers' wake channel, the inbox events).
    pub async fn start_worker_process_with_connections(&self, connections: usize) -> WorkerProcess {
        self.start_worker_process_with(connections, Duration::from_secs(30)).await
    }

    /// `start_worker_process` with leases of `lease` on its jobs and fan-outs.
    pub async fn start_worker_process_with_lease(&self, lease: Duration) -> WorkerProcess {
        self.start_worker_process_with(8, lease).await
    }

    async fn start_worker_process_with(&self, connections: usize, lease: Duration) -> WorkerProcess {
        let pool = build_pool(&self.database_url, connections).expect("pool");
        let settings = WorkerSettings {
            concurrency: 1,
            claims: 1,
            batch_size: 50,
            backlog_batch_size: 200,
            lease,
            poll_interval: Duration::from_millis(200),
            providers: Default::default(),
            public_url: None,
            retention: None,
        };
        let running = startup::start(StartOptions {
            pool,
            cipher: self.cipher.clone(),
            clock: self.clock.clone(),
            listener: None,
            metrics_listener: None,
            workers: Some(settings),
            extra_rest_routes: Router::new(),
            public_url: None,
            provider_settings: provider_settings(LOOPBACK_ALLOWED),
            rate_limits: RateLimitSettings::default(),
            inbox_demo_application: None,
        })
        .await
        .expect("the worker process starts");
        WorkerProcess(running)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `Authorization` header value of this server's API key.
    pub fn authorization(&self) -> String {
        format!("ApiKey {}", self.api_key)
    }

    /// A request with this server's API key.
    pub fn request(&self, method: reqwest::Method, path: &str) -> ApiRequest {
        http_client().request(method, self.url(path)).header("authorization", self.authorization())
    }

    /// A GET with this server's API key.
    pub fn get(&self, path: &str) -> ApiRequest {
        self.request(reqwest::Method::GET, path)
    }

    /// Sends `body` as JSON with `method` and returns the status and the JSON answer.
    pub async fn send_json(
        &self,
        method: reqwest::Method,
        path: &str,
        body: &serde_json::Value,
    ) -> (u16, serde_json::Value) {
        let response = self.request(method, path).json(body).send().await.expect("request sent");
        read_json(response).await
    }

    /// GETs `path` and returns the status and the JSON answer.
    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        read_json(self.get(path).send().await.expect("request sent")).await
    }

    /// Another environment (of the same organization) with its own API key, for isolation tests.
    pub async fn other_environment(&self, name: &str) -> (Uuid, String) {
        let mut conn = self.pool.get().await.expect("connection");
        let (environment, key) =
            tenancy::create_environment(&mut conn, &self.cipher, "Acme", name).await.expect("environment");
        (environment.id, key.key)
    }

    /// A gRPC channel to this server (h2c on the same port as REST).
    pub async fn grpc_channel(&self) -> tonic::transport::Channel {
        tonic::transport::Endpoint::from_shared(format!("http://{}", self.addr))
            .expect("endpoint")
            .connect()
            .await
            .expect("gRPC connects")
    }

    /// Wraps `message` in a gRPC request carrying this server's API key.
    pub fn grpc_request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request.metadata_mut().insert("authorization", self.authorization().parse().expect("ascii"));
        request
    }
}

impl TestServer {
    /// What the server's `/readyz` and gRPC health service report.
    pub fn health(&self) -> std::sync::Arc<herald::health::Health> {
        self.running.as_ref().expect("the server runs").health.clone()
    }

    /// The graceful stop `herald serve` makes on SIGTERM; returns when it has finished.
    pub async fn shutdown(&mut self) {
        let running = self.running.take().expect("the server runs");
        running.shutdown().await.expect("a clean stop");
    }
}

/// A workers-only process beside a [`TestServer`].
pub struct WorkerProcess(Running);

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        forget_port(self.addr);
        if let Some(running) = &self.running {
            running.stop();
        }
    }
}

/// The status and JSON body of a response (`null` for an empty body).
pub async fn read_json(response: reqwest::Response) -> (u16, serde_json::Value) {
    let status = response.status().as_u16();
    let bytes = response.bytes().await.expect("body read");
    let body =
        if bytes.is_empty() { serde_json::Value::Null } else { serde_json::from_slice(&bytes).expect("a JSON body") };
    (status, body)
}

/// The tests' HTTP client: every answer of a Herald API port is checked against the OpenAPI document.
pub fn http_client() -> ApiClient {
    ApiClient::new()
}

/// URL of the test database's server (`postgres` database), starting the private cluster if needed.
pub fn server_url() -> String {
    static URL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    URL.get_or_init(|| match std::env::var("DATABASE_URL") {
        Ok(url) => url,
        Err(_) => {
            let data_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("postgres");
            let cluster =
                LocalCluster::start_or_reuse(&data_dir, FAST_UNSAFE_SETTINGS).expect("private cluster starts");
            cluster.database_url("postgres")
        }
    })
    .clone()
}

/// `server_url` with its database replaced by `database`.
fn database_url(database: &str) -> String {
    let server = server_url();
    let (base, _) = server.rsplit_once('/').expect("DATABASE_URL has a database path");
    format!("{base}/{database}")
}

/// The rows the open transaction of `conn` has read from `tables` (scanned or fetched through an
/// index), by PostgreSQL's statistics of that transaction: what a query plan costs, on any machine.
pub async fn rows_read_in_transaction(conn: &mut diesel_async::AsyncPgConnection, tables: &[&str]) -> i64 {
    use diesel::sql_types::{Array, BigInt, Text};
    use diesel_async::RunQueryDsl;

    #[derive(diesel::QueryableByName)]
    struct Read {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    let read: Read = diesel::sql_query(
        "SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)::int8 AS n
         FROM pg_stat_xact_user_tables WHERE relname = ANY($1)",
    )
    .bind::<Array<Text>, _>(tables)
    .get_result(conn)
    .await
    .expect("the transaction's statistics");
    read.n
}

/// Creates a schema of its own for one test and returns a URL whose connections use it.
pub async fn fresh_schema_url() -> String {
    static PREPARED: OnceCell<()> = OnceCell::const_new();
    PREPARED
        .get_or_init(|| async {
            create_database_if_missing(&server_url(), TEST_DATABASE).await.expect("test database");
            // Created once here, not concurrently by the first migrations of parallel tests.
            execute("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public").await;
            drop_schemas_of_dead_processes().await;
        })
        .await;
    let schema = format!("test_{}_{}", std::process::id(), Uuid::new_v4().simple());
    execute(&format!("CREATE SCHEMA {schema}")).await;
    // Extensions live in `public` so that every test schema sees them.
    // The schema is also the connections' application name, so a test can find (and terminate) them.
    format!("{}?options=-c%20search_path%3D{schema},public&application_name={schema}", database_url(TEST_DATABASE))
}

/// Schemas are named after the test process; those of processes that ended are dropped.
async fn drop_schemas_of_dead_processes() {
    use diesel::sql_types::Text;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

    #[derive(diesel::QueryableByName)]
    struct SchemaName {
        #[diesel(sql_type = Text)]
        nspname: String,
    }
    let mut conn = AsyncPgConnection::establish(&database_url(TEST_DATABASE)).await.expect("connect");
    let schemas: Vec<SchemaName> = diesel::sql_query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'test\\_%'")
        .load(&mut conn)
        .await
        .expect("list schemas");
    for SchemaName { nspname } in schemas {
        let pid = nspname.split('_').nth(1).and_then(|pid| pid.parse::<u32>().ok());
        let alive = pid.is_some_and(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists());
        if !alive {
            execute(&format!("DROP SCHEMA IF EXISTS {nspname} CASCADE")).await;
        }
    }
}

/// The application name `fresh_schema_url` gave the connections of `url`: its schema.
fn schema_of(url: &str) -> String {
    url.rsplit_once("application_name=").expect("a test schema URL").1.to_string()
}

impl TestServer {
    /// Terminates every database connection the server holds, as an administrator (or a restart) would;
    /// returns how many there were.
    pub async fn terminate_connections(&self) -> i64 {
        self.terminate_connections_whose_last_query_starts_with("").await
    }

    /// Terminates those of the server's database connections whose last statement starts with `prefix`
    /// (a `LISTEN` connection, say); returns how many there were.
    pub async fn terminate_connections_whose_last_query_starts_with(&self, prefix: &str) -> i64 {
        use diesel::sql_types::{BigInt, Text};
        use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
        #[derive(diesel::QueryableByName)]
        struct Terminated {
            #[diesel(sql_type = BigInt)]
            count: i64,
        }
        let mut conn = AsyncPgConnection::establish(&database_url(TEST_DATABASE)).await.expect("connect");
        let terminated: Terminated = diesel::sql_query(
            "SELECT count(pg_terminate_backend(pid)) AS count FROM pg_stat_activity
             WHERE application_name = $1 AND starts_with(query, $2)",
        )
        .bind::<Text, _>(&self.schema)
        .bind::<Text, _>(prefix)
        .get_result(&mut conn)
        .await
        .expect("terminate");
        terminated.count
    }
}

async fn execute(sql: &str) {
    use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
    let mut conn = AsyncPgConnection::establish(&database_url(TEST_DATABASE)).await.expect("connect");
    conn.batch_execute(sql).await.unwrap_or_else(|error| panic!("{sql}: {error}"));
}

/// A private PostgreSQL cluster for one test that disturbs the whole server (a restart); stopped and
/// removed when dropped.
pub struct DedicatedCluster {
    cluster: LocalCluster,
    data_dir: std::path::PathBuf,
}

impl DedicatedCluster {
    pub fn start() -> Self {
        let data_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "postgres-dedicated-{}-{}",
            std::process::id(),
            Uuid::new_v4().simple()
        ));
        // Durable commits (the default): with `synchronous_commit=off` a commit acknowledged just before a
        // server crash is lost by design, and Herald acknowledges a trigger only once it is committed.
        // Skipping fsync is safe here: the machine does not crash, only PostgreSQL.
        let settings = ["fsync=off", "full_page_writes=off"];
        let cluster = LocalCluster::start_or_reuse(&data_dir, &settings).expect("a dedicated cluster");
        Self { cluster, data_dir }
    }

    /// Its `postgres` database, the connections named `dedicated` (as a schema URL names them).
    pub fn database_url(&self) -> String {
        format!("{}?application_name=dedicated", self.cluster.database_url("postgres"))
    }

    /// Kills one of the server's backends with SIGKILL: the postmaster then ends every connection and
    /// reinitialises (crash recovery) on the same port, as after a crash of the database server.
    pub async fn crash_restart(&self) {
        use diesel::sql_types::Integer;
        use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
        #[derive(diesel::QueryableByName)]
        struct Backend {
            #[diesel(sql_type = Integer)]
            pid: i32,
        }
        // The server may still be recovering from the previous crash: it refuses connections until then.
        let recovering_until = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut conn = loop {
            match AsyncPgConnection::establish(&self.cluster.database_url("postgres")).await {
                Ok(conn) => break conn,
                Err(_) if tokio::time::Instant::now() < recovering_until => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err(error) => panic!("the dedicated cluster accepts no connection 20 s after a crash: {error}"),
            }
        };
        let backend: Backend =
            diesel::sql_query("SELECT pg_backend_pid() AS pid").get_result(&mut conn).await.expect("pid");
        let killed = std::process::Command::new("kill").args(["-9", &backend.pid.to_string()]).status().expect("kill");
        assert!(killed.success(), "SIGKILL to backend {}", backend.pid);
    }

    /// How many times the server reinitialised after a crashed backend, from its log.
    pub fn crash_restarts(&self) -> usize {
        let log = std::fs::read_to_string(self.data_dir.join("server.log")).unwrap_or_default();
        log.matches("all server processes terminated; reinitializing").count()
    }
}

impl Drop for DedicatedCluster {
    fn drop(&mut self) {
        self.cluster.stop();
        let _ = std::fs::remove_dir_all(&self.data_dir);
        let _ = std::fs::remove_file(self.data_dir.with_extension("lock"));
    }
}
