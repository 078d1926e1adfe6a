//! `/healthz`, `/readyz` and the gRPC health service: open to everyone, and telling a ready process
//! from one whose database lacks a migration or whose role runs no workers.

use diesel_async::RunQueryDsl;
use serde_json::{json, Value};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

use crate::support::{http_client, read_json, TestServer};

async fn get_open(server: &TestServer, path: &str) -> (u16, Value) {
    read_json(http_client().get(server.url(path)).send().await.unwrap()).await
}

async fn grpc_status(server: &TestServer) -> ServingStatus {
    let mut client = HealthClient::new(server.grpc_channel().await);
    client.check(HealthCheckRequest { service: String::new() }).await.unwrap().into_inner().status()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_migrated_server_with_workers_is_alive_and_ready_without_a_key() {
    let server = TestServer::start().await;
    assert_eq!(get_open(&server, "/healthz").await, (200, json!({"status": "alive"})));
    let ready = json!({"status": "ready", "checks": {"database": "ok", "migrations": "ok", "workers": "ok"}});
    assert_eq!(get_open(&server, "/readyz").await, (200, ready));
    assert_eq!(grpc_status(&server).await, ServingStatus::Serving);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_only_process_is_ready_without_workers() {
    let server = TestServer::start_api_only().await;
    let (status, body) = get_open(&server, "/readyz").await;
    assert_eq!((status, &body["status"], &body["checks"]["workers"]), (200, &json!("ready"), &json!("not_run")));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_migration_makes_the_process_not_ready_until_it_is_applied() {
    let server = TestServer::start().await;
    let mut conn = server.pool.get().await.unwrap();
    diesel::sql_query(
        "UPDATE __diesel_schema_migrations SET version = 'missing'
         WHERE version = (SELECT max(version) FROM __diesel_schema_migrations)",
    )
    .execute(&mut conn)
    .await
    .unwrap();

    let (status, body) = get_open(&server, "/readyz").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "not_ready");
    assert_eq!(body["checks"], json!({"database": "ok", "migrations": "pending", "workers": "ok"}));
    assert_eq!(grpc_status(&server).await, ServingStatus::NotServing);
    assert_eq!(get_open(&server, "/healthz").await.0, 200, "alive all the same");

    // `herald migrate` would apply it; put the version back as it would.
    let latest = herald_latest_migration();
    diesel::sql_query("UPDATE __diesel_schema_migrations SET version = $1 WHERE version = 'missing'")
        .bind::<diesel::sql_types::Text, _>(&latest)
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(get_open(&server, "/readyz").await.0, 200);
    assert_eq!(grpc_status(&server).await, ServingStatus::Serving);
}

/// The version of the newest migration under `migrations/` (its directory's date and number).
fn herald_latest_migration() -> String {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let newest = std::fs::read_dir(directory)
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.') && name.as_bytes()[0].is_ascii_digit())
        .max()
        .expect("migrations");
    newest.split('_').next().unwrap().replace('-', "")
}
