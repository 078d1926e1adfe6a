//! Herald as a real process (the built `herald` binary on a test schema), for what only a process
//! shows: a crash and its recovery, its exit, the traces it exports and the log lines it writes.

use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use crate::support::http_client;

/// A running `herald serve`; killed when dropped.
pub struct Herald {
    child: Child,
    /// Where its stderr (the log lines) goes, when kept.
    log: Option<PathBuf>,
}

impl Herald {
    /// Serves `role` on `addr`, with short leases and polls; its output is discarded.
    pub fn start(database_url: &str, addr: &str, role: &str) -> Self {
        Self::start_with(database_url, addr, role, &[])
    }

    /// Like [`start`](Self::start), with `settings` (environment variables) over the defaults.
    pub fn start_with(database_url: &str, addr: &str, role: &str, settings: &[(&str, &str)]) -> Self {
        let child = command(database_url, addr, role, settings).stderr(Stdio::null()).spawn().expect("herald starts");
        Self { child, log: None }
    }

    /// Like [`start_with`](Self::start_with), keeping the log lines for [`log`](Self::log).
    pub fn start_logging(database_url: &str, addr: &str, role: &str, settings: &[(&str, &str)]) -> Self {
        let path = std::env::temp_dir().join(format!("herald-{}.log", uuid::Uuid::new_v4().simple()));
        let file = std::fs::File::create(&path).expect("a log file");
        let child = command(database_url, addr, role, settings).stderr(file).spawn().expect("herald starts");
        Self { child, log: Some(path) }
    }

    /// SIGKILL: no graceful shutdown, in-flight batches are lost mid-step.
    pub fn kill(&mut self) {
        self.child.kill().expect("kill -9");
        let _ = self.child.wait();
    }

    /// SIGTERM, as an orchestrator stops it; waits for the exit.
    pub fn terminate(&mut self) -> ExitStatus {
        let sent = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("kill");
        assert!(sent.success(), "SIGTERM to herald {}", self.child.id());
        self.child.wait().expect("herald exits")
    }

    /// The log lines written so far (started with [`start_logging`](Self::start_logging)).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log.as_ref().expect("started with start_logging")).unwrap_or_default()
    }
}

impl Drop for Herald {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(log) = &self.log {
            let _ = std::fs::remove_file(log);
        }
    }
}

fn command(database_url: &str, addr: &str, role: &str, settings: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_herald"));
    command
        .env("DATABASE_URL", database_url)
        .env("HERALD_ADDR", addr)
        .env("HERALD_ROLE", role)
        .env("HERALD_JOB_LEASE_SECS", "2")
        .env("HERALD_WORKER_POLL_MS", "200")
        .env("HERALD_SECRET_KEY", "c2VjcmV0LWtleS1mb3ItY3Jhc2gtdGVzdHMtMzJieXQ=")
        .env("RUST_LOG", "warn")
        .envs(settings.iter().copied())
        .stdout(Stdio::null());
    command
}

/// A loopback address no one listens on (yet), for a Herald API port: the test support checks its answers
/// against the OpenAPI document.
pub fn free_addr() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    crate::support::register_api_port(addr);
    addr.to_string()
}

/// Migrates the schema and creates an environment through the binary; returns its API key.
pub fn prepare(database_url: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_herald"))
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "warn")
        .args(["admin", "create-environment", "--organization", "Crash", "--name", "test"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("api key ").map(str::to_string))
        .unwrap()
}

/// Waits until the server at `addr` answers HTTP.
pub async fn wait_healthy(addr: &str) {
    for _ in 0..200 {
        if http_client().get(format!("http://{addr}/v1/environments/me")).send().await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("herald at {addr} did not start");
}
