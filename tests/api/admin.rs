//! `herald migrate` and `herald admin …` against a configured database.

use std::process::Output;

use diesel_async::{AsyncConnection, AsyncPgConnection};
use herald::domain::tenancy;

use crate::support::fresh_schema_url;

fn herald(database_url: &str, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_herald"))
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "warn")
        .args(args)
        .output()
        .expect("herald runs")
}

fn stdout_of(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn printed_key(stdout: &str) -> String {
    stdout.lines().find_map(|line| line.strip_prefix("api key ")).expect("a printed key").to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn admin_commands_create_environments_and_keys_that_authenticate() {
    let url = fresh_schema_url().await;
    assert!(stdout_of(&herald(&url, &["migrate"])).is_empty());
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    assert!(tenancy::list_environments(&mut conn).await.unwrap().is_empty(), "nothing is created implicitly");

    let created =
        stdout_of(&herald(&url, &["admin", "create-environment", "--organization", "Globex", "--name", "staging"]));
    let first_key = printed_key(&created);
    let tenant = tenancy::find_tenant_by_api_key(&mut conn, &first_key).await.unwrap().expect("the key works");

    let listed = stdout_of(&herald(&url, &["admin", "list-environments"]));
    assert_eq!(listed.trim(), format!("{}\tGlobex\tstaging", tenant.environment_id));

    let environment = tenant.environment_id.to_string();
    let second_key =
        printed_key(&stdout_of(&herald(&url, &["admin", "create-api-key", "--environment", &environment])));
    assert_ne!(second_key, first_key);
    assert_eq!(tenancy::find_tenant_by_api_key(&mut conn, &second_key).await.unwrap(), Some(tenant));
}

#[tokio::test(flavor = "multi_thread")]
async fn admin_commands_refuse_duplicates_and_unknown_environments() {
    let url = fresh_schema_url().await;
    stdout_of(&herald(&url, &["admin", "create-environment", "--organization", "Globex", "--name", "staging"]));

    let duplicate = herald(&url, &["admin", "create-environment", "--organization", "Globex", "--name", "staging"]);
    assert!(!duplicate.status.success());
    assert!(String::from_utf8_lossy(&duplicate.stderr).contains("already exists"));

    let unknown = uuid::Uuid::now_v7().to_string();
    let missing = herald(&url, &["admin", "create-api-key", "--environment", &unknown]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains(&format!("Environment with id {unknown} not found")));
}

#[test]
fn an_invalid_outbound_allow_entry_stops_the_start_and_is_named() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_herald"))
        .env("HERALD_OUTBOUND_ALLOW", "127.0.0.0/8, 10.0.0.0/33")
        .env("DATABASE_URL", "postgres://127.0.0.1:1/unused")
        .arg("migrate")
        .output()
        .expect("herald runs");

    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("HERALD_OUTBOUND_ALLOW: `10.0.0.0/33` is not a CIDR range"), "{stderr}");
}
