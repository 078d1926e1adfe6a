//! A private PostgreSQL cluster run from the installed server binaries, so that Herald (and its
//! tests) work on a machine with no database configured.
//!
//! The cluster lives in its own data directory, listens only on 127.0.0.1 on a free port, and is
//! reused when it is already running. PostgreSQL refuses to run as root, so as root every server
//! binary runs through `runuser -u postgres`, with the data directory owned by `postgres`.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};

/// Settings that trade durability for speed; only tests use them.
pub const FAST_UNSAFE_SETTINGS: &[&str] = &["fsync=off", "synchronous_commit=off", "full_page_writes=off"];

/// A running private cluster.
#[derive(Debug)]
pub struct LocalCluster {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    port: u16,
    started_here: bool,
}

impl LocalCluster {
    /// Starts the cluster in `data_dir` (running `initdb` first when the directory holds none),
    /// or attaches to it when it already runs. `settings` are extra `name=value` server settings.
    pub fn start_or_reuse(data_dir: &Path, settings: &[&str]) -> anyhow::Result<Self> {
        let bin_dir = find_bin_dir()?;
        fs::create_dir_all(data_dir).with_context(|| format!("creating {}", data_dir.display()))?;
        let data_dir = data_dir.canonicalize()?;
        // Two processes may start at once (parallel test binaries): serialise on a lock file
        // next to the data directory.
        let lock = fs::File::create(data_dir.with_extension("lock"))?;
        lock.lock()?;

        if is_root() {
            run(Command::new("chown").args(["-R", "postgres:postgres"]).arg(&data_dir))?;
            let_postgres_reach(&data_dir)?;
        }
        if !data_dir.join("PG_VERSION").exists() {
            run(postgres_command(&bin_dir, "initdb")
                .args(["--auth=trust", "--username=postgres", "--encoding=UTF8", "--no-sync", "-D"])
                .arg(&data_dir))
            .context("initdb failed")?;
        }
        if let Some(port) = running_port(&bin_dir, &data_dir) {
            return Ok(Self { bin_dir, data_dir, port, started_here: false });
        }

        let port = free_port()?;
        let mut options = format!("-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''");
        for setting in settings {
            options.push_str(&format!(" -c {setting}"));
        }
        run(postgres_command(&bin_dir, "pg_ctl")
            .args(["start", "--wait", "--silent", "-D"])
            .arg(&data_dir)
            .arg("-l")
            .arg(data_dir.join("server.log"))
            .args(["-o", &options]))
        .with_context(|| format!("starting PostgreSQL failed; see {}", data_dir.join("server.log").display()))?;
        Ok(Self { bin_dir, data_dir, port, started_here: true })
    }

    /// URL of `database` on this cluster.
    pub fn database_url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Stops the cluster if this process started it; a reused cluster belongs to its starter.
    pub fn stop(&self) {
        if !self.started_here {
            return;
        }
        let stopped = run(postgres_command(&self.bin_dir, "pg_ctl")
            .args(["stop", "--wait", "--silent", "-m", "fast", "-D"])
            .arg(&self.data_dir));
        if let Err(error) = stopped {
            tracing::warn!(%error, "stopping the private PostgreSQL cluster failed");
        }
    }
}

/// The port of the server running in `data_dir`, if one runs.
fn running_port(bin_dir: &Path, data_dir: &Path) -> Option<u16> {
    let status = postgres_command(bin_dir, "pg_ctl").arg("status").arg("-D").arg(data_dir).output().ok()?;
    if !status.status.success() {
        return None;
    }
    // Line 4 of postmaster.pid is the port the server listens on.
    let pid_file = fs::read_to_string(data_dir.join("postmaster.pid")).ok()?;
    pid_file.lines().nth(3)?.trim().parse().ok()
}

/// The directory of `initdb`, `pg_ctl` and `postgres`: `pg_config --bindir` when it has them,
/// else the newest `/usr/lib/postgresql/*/bin`.
fn find_bin_dir() -> anyhow::Result<PathBuf> {
    if let Ok(output) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        if dir.join("initdb").exists() {
            return Ok(dir);
        }
    }
    let mut candidates: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    candidates.sort();
    match candidates.pop() {
        Some((_, dir)) => Ok(dir),
        None => bail!("no PostgreSQL server binaries found (pg_config --bindir, /usr/lib/postgresql/*/bin); install PostgreSQL or set DATABASE_URL"),
    }
}

fn postgres_command(bin_dir: &Path, program: &str) -> Command {
    let binary = bin_dir.join(program);
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(binary);
        command
    } else {
        Command::new(binary)
    }
}

/// Running as root, the server runs as `postgres`, which must be able to enter every directory above
/// the data directory: a directory that others cannot enter (a `mktemp -d` directory, `/root`) gets
/// the search permission only (`o+x`: entering, not listing).
fn let_postgres_reach(data_dir: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for ancestor in data_dir.ancestors().skip(1) {
        let mut permissions = fs::metadata(ancestor)?.permissions();
        if permissions.mode() & 0o001 == 0 {
            permissions.set_mode(permissions.mode() | 0o001);
            fs::set_permissions(ancestor, permissions)
                .with_context(|| format!("letting postgres enter {}", ancestor.display()))?;
        }
    }
    Ok(())
}

fn run(command: &mut Command) -> anyhow::Result<()> {
    let output = command.output().with_context(|| format!("running {command:?}"))?;
    if !output.status.success() {
        bail!("{command:?} exited with {}: {}", output.status, String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(())
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}
