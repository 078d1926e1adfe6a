//! The `herald` command: `serve` (default), `migrate` and `admin …`.

use clap::{Parser, Subcommand};
use herald::config::{EngineSettings, GlobalSettings};
use herald::crypto::CredentialCipher;
use herald::db::{run_migrations, Database};
use herald::domain::tenancy;
use herald::engine::{retention, Clock};
use herald::startup::{self, StartOptions};
use herald::{bootstrap, server, telemetry};
use uuid::Uuid;

/// jemalloc instead of glibc's malloc: allocation and free were a fifth of the server's CPU under load
/// (perf, 20,000 REST triggers: `_int_malloc`, `_int_free`, `malloc_consolidate`, `unlink_chunk`).
/// Measured against glibc's and mimalloc in alternating runs (`docs/performance.md`): the server's CPU
/// per trigger delivered fell by a fifth with jemalloc and by a sixth with mimalloc, whose resident
/// memory was 30 MB larger; jemalloc's stayed that of glibc's. The binary's choice only: the library,
/// and the servers the tests start in their own process, keep the system allocator.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(name = "herald", version, about = "Notification delivery service: gRPC and REST on one port")]
struct Cli {
    #[command(flatten)]
    global: GlobalSettings,

    #[command(flatten)]
    engine: EngineSettings,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve REST and gRPC (the default command).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Manage environments and API keys.
    #[command(subcommand)]
    Admin(AdminCommand),
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Create an environment (and its organization if new) and print its first API key.
    CreateEnvironment {
        /// Organization name; created when it does not exist.
        #[arg(long)]
        organization: String,
        /// Environment name, unique inside the organization.
        #[arg(long)]
        name: String,
    },
    /// Issue a new API key for an environment and print it.
    CreateApiKey {
        /// Environment id (see `list-environments`).
        #[arg(long)]
        environment: Uuid,
    },
    /// List every environment with its organization.
    ListEnvironments,
    /// Delete now what the worker processes' retention sweep would (notifications older than
    /// `--older-than-days`, default `HERALD_RETENTION_DAYS`), and print what was deleted and how long it took.
    Sweep {
        #[arg(long)]
        older_than_days: Option<u32>,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let telemetry = telemetry::init(cli.global.log_format)?;
    let database = Database::open(&cli.global.database).await?;
    let outcome = run(cli, &database).await;
    database.close();
    telemetry.shutdown().await;
    outcome
}

async fn run(cli: Cli, database: &Database) -> anyhow::Result<()> {
    let applied = run_migrations(&database.url).await?;
    if !applied.is_empty() {
        tracing::info!(?applied, "applied migrations");
    }
    match cli.command {
        None | Some(Command::Serve) => serve(&cli.global, &cli.engine, database).await,
        Some(Command::Migrate) => Ok(()),
        Some(Command::Admin(command)) => admin(command, &cli.global, &cli.engine, database).await,
    }
}

async fn serve(settings: &GlobalSettings, engine_settings: &EngineSettings, database: &Database) -> anyhow::Result<()> {
    let cipher = CredentialCipher::load(settings.secret_key.as_deref(), &settings.database.data_dir)?;
    // Only on the private cluster: the inbox demo page names the seeded environment, which a shared
    // database has not.
    let inbox_demo_application = if database.local_cluster.is_some() {
        bootstrap::first_start(&database.pool, &cipher, &settings.database.data_dir).await?;
        herald::domain::seed::prepare_inbox_demo(&mut *database.pool.get().await?).await?
    } else {
        None
    };
    let listener = if engine_settings.role.serves_api() {
        Some(tokio::net::TcpListener::bind(settings.addr).await?)
    } else {
        None
    };
    let metrics_listener = match settings.metrics_addr {
        Some(addr) => Some(tokio::net::TcpListener::bind(addr).await?),
        None => None,
    };
    let running = startup::start(StartOptions {
        pool: database.pool.clone(),
        cipher,
        clock: Clock::system(),
        listener,
        metrics_listener,
        workers: engine_settings.role.runs_workers().then(|| engine_settings.into()),
        extra_rest_routes: axum::Router::new(),
        public_url: settings.public_url.clone(),
        provider_settings: engine_settings.provider_settings(database.local_cluster.is_some()),
        rate_limits: settings.rate_limits,
        inbox_demo_application,
    })
    .await?;
    server::shutdown_signal().await;
    running.shutdown().await
}

async fn admin(
    command: AdminCommand,
    settings: &GlobalSettings,
    engine: &EngineSettings,
    database: &Database,
) -> anyhow::Result<()> {
    let mut conn = database.pool.get().await?;
    // New keys are kept encrypted under the server's key too (inbox sessions' subscriberHash).
    let cipher = || CredentialCipher::load(settings.secret_key.as_deref(), &settings.database.data_dir);
    match command {
        AdminCommand::CreateEnvironment { organization, name } => {
            let (environment, key) = tenancy::create_environment(&mut conn, &cipher()?, &organization, &name).await?;
            println!("environment {} ({})", environment.id, environment.name);
            println!("api key {}", key.key);
        }
        AdminCommand::CreateApiKey { environment } => {
            let key = tenancy::create_api_key(&mut conn, &cipher()?, environment).await?;
            println!("api key {}", key.key);
        }
        AdminCommand::ListEnvironments => {
            for summary in tenancy::list_environments(&mut conn).await? {
                let environment = summary.environment;
                println!("{}\t{}\t{}", environment.id, summary.organization_name, environment.name);
            }
        }
        AdminCommand::Sweep { older_than_days } => {
            let days = older_than_days.unwrap_or(engine.retention_days);
            let started = std::time::Instant::now();
            let cutoff = chrono::Utc::now() - chrono::TimeDelta::days(days.into());
            let swept = retention::sweep(&database.pool, cutoff).await?;
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "deleted {} notifications, {} topic fan-outs and {} transactionIds older than {cutoff} in {seconds:.2} s",
                swept.notifications, swept.topic_fanouts, swept.transactions
            );
            let keys = retention::sweep_expired(&database.pool, chrono::Utc::now()).await?;
            println!("deleted {keys} expired idempotency keys");
        }
    }
    Ok(())
}
