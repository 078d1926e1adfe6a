//! `herald` with no configuration at all: it starts a private PostgreSQL cluster in its data
//! directory, seeds a usable environment, prints an API key that works, and stops the cluster on exit.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::process::free_addr;
use crate::support::http_client;

fn start_herald(data_dir: &Path, addr: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_herald"))
        .env_remove("DATABASE_URL")
        .env("HERALD_DATA_DIR", data_dir)
        .env("HERALD_ADDR", addr)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the herald binary starts")
}

/// Reads stdout until the line holding the API key.
async fn printed_api_key(child: &mut Child) -> String {
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let read_key = async {
        while let Some(line) = lines.next_line().await.expect("stdout readable") {
            if line.starts_with("hk_") {
                return line;
            }
        }
        panic!("herald exited without printing an API key");
    };
    tokio::time::timeout(Duration::from_secs(120), read_key).await.expect("an API key within 120 s")
}

/// Waits until the server answers, then returns the answer of GET /v1/environments/me.
async fn current_environment(addr: &str, key: &str) -> serde_json::Value {
    for _ in 0..300 {
        let response = http_client()
            .get(format!("http://{addr}/v1/environments/me"))
            .header("authorization", format!("ApiKey {key}"))
            .send()
            .await;
        if let Ok(response) = response {
            assert_eq!(response.status(), 200);
            return response.json().await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("herald did not answer on {addr}");
}

/// Sends SIGTERM, waits for a clean exit and returns what the process still printed.
async fn terminate(mut child: Child) -> String {
    use tokio::io::AsyncReadExt;
    let pid = child.id().expect("running") as i32;
    // SAFETY: plain signal delivery to our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let mut printed = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_string(&mut printed).await.unwrap();
    }
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait()).await.expect("exits on SIGTERM").unwrap();
    assert!(status.success(), "herald exited with {status}");
    printed
}

/// The seed a newcomer needs: one active in-app integration and the `welcome` workflow with its step.
async fn assert_seeded_for_a_first_trigger(pid_file: &Path) {
    use diesel::dsl::sql;
    use diesel::sql_types::{BigInt, Text};
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

    let port = std::fs::read_to_string(pid_file).unwrap().lines().nth(3).unwrap().trim().to_string();
    let mut conn = AsyncPgConnection::establish(&format!("postgres://postgres@127.0.0.1:{port}/herald")).await.unwrap();
    let integrations: Vec<String> =
        diesel::select(sql::<Text>("string_agg(provider_id || '/' || channel, ',') FROM integrations WHERE active"))
            .load(&mut conn)
            .await
            .unwrap();
    assert_eq!(integrations, ["svc/in_app"]);
    let welcome_steps: i64 = diesel::select(sql::<BigInt>(
        "count(*) FROM workflow_steps s JOIN workflows w ON w.id = s.workflow_id \
         WHERE w.identifier = 'welcome' AND w.active AND s.type = 'in_app'",
    ))
    .get_result(&mut conn)
    .await
    .unwrap();
    assert_eq!(welcome_steps, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_with_no_configuration_prints_a_working_key_and_cleans_up() {
    let data_dir = tempfile::tempdir().unwrap();
    // The cluster runs as `postgres`, which must be able to reach the data directory.
    std::fs::set_permissions(data_dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let addr = free_addr();

    let mut herald = start_herald(data_dir.path(), &addr);
    let key = printed_api_key(&mut herald).await;
    let environment = current_environment(&addr, &key).await;
    assert_eq!(environment["name"], "development");

    let key_file = data_dir.path().join("api-key");
    assert_eq!(std::fs::read_to_string(&key_file).unwrap().trim(), key);
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);

    let pid_file = data_dir.path().join("postgres/postmaster.pid");
    assert!(pid_file.exists(), "the private cluster runs");
    assert_seeded_for_a_first_trigger(&pid_file).await;
    terminate(herald).await;
    assert!(!pid_file.exists(), "the private cluster stopped with herald");

    // A second start reuses the cluster's data and seeds nothing: the first key still works.
    let herald = start_herald(data_dir.path(), &addr);
    let again = current_environment(&addr, &key).await;
    assert_eq!(again["_id"], environment["_id"]);
    let printed = terminate(herald).await;
    assert!(!printed.contains("hk_"), "no second key is printed: {printed}");
}
