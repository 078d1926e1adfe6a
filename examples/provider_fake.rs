//! A provider stand-in for `scripts/bench-email.sh`: answers like Resend's `POST /emails` (HTTP) and like
//! an SMTP relay, each after a fixed latency, and counts the connections it accepted, so the benchmark
//! can show that Herald reuses connections instead of opening one per email. Not a test fake: it checks
//! nothing (tests/api/fakes/ has the faithful ones).
//!
//! `cargo run --release --example provider_fake -- <http port> <smtp port> <latency ms>`; `GET /stats`
//! on the HTTP port answers `{"httpConnections", "httpRequests", "smtpConnections", "smtpMessages"}`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[derive(Default)]
struct Stats {
    http_connections: AtomicU64,
    http_requests: AtomicU64,
    smtp_connections: AtomicU64,
    smtp_messages: AtomicU64,
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let number = |index: usize| -> u64 {
        args.get(index).and_then(|arg| arg.parse().ok()).expect("usage: <http port> <smtp port> <latency ms>")
    };
    let (http_port, smtp_port, latency) = (number(1), number(2), Duration::from_millis(number(3)));
    let stats = Arc::new(Stats::default());

    let smtp = TcpListener::bind(("127.0.0.1", smtp_port as u16)).await.expect("bind the SMTP port");
    let smtp_stats = stats.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = smtp.accept().await.expect("accept");
            smtp_stats.smtp_connections.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(smtp_session(stream, smtp_stats.clone(), latency));
        }
    });

    let app_stats = stats.clone();
    let app = Router::new()
        .route(
            "/emails",
            post(move || {
                let stats = app_stats.clone();
                async move {
                    tokio::time::sleep(latency).await;
                    let id = stats.http_requests.fetch_add(1, Ordering::Relaxed);
                    Json(json!({"id": format!("bench-{id}")}))
                }
            }),
        )
        .route(
            "/stats",
            get({
                let stats = stats.clone();
                move || async move { Json(snapshot(&stats)) }
            }),
        );
    let http = TcpListener::bind(("127.0.0.1", http_port as u16)).await.expect("bind the HTTP port");
    axum::serve(CountingListener { inner: http, stats }, app).await.expect("the fake serves");
}

/// Counts the connections axum accepts.
struct CountingListener {
    inner: TcpListener,
    stats: Arc<Stats>,
}

impl axum::serve::Listener for CountingListener {
    type Io = TcpStream;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let accepted = axum::serve::Listener::accept(&mut self.inner).await;
        self.stats.http_connections.fetch_add(1, Ordering::Relaxed);
        accepted
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

fn snapshot(stats: &Stats) -> Value {
    json!({
        "httpConnections": stats.http_connections.load(Ordering::Relaxed),
        "httpRequests": stats.http_requests.load(Ordering::Relaxed),
        "smtpConnections": stats.smtp_connections.load(Ordering::Relaxed),
        "smtpMessages": stats.smtp_messages.load(Ordering::Relaxed),
    })
}

/// Plain SMTP without TLS or authentication: enough for a relay that accepts everything.
async fn smtp_session(stream: TcpStream, stats: Arc<Stats>, latency: Duration) {
    let (reader, mut writer) = stream.into_split();
    let mut lines = BufReader::new(reader).lines();
    if writer.write_all(b"220 bench ESMTP\r\n").await.is_err() {
        return;
    }
    let mut in_data = false;
    while let Ok(Some(line)) = lines.next_line().await {
        let reply: &[u8] = if in_data {
            if line != "." {
                continue;
            }
            in_data = false;
            tokio::time::sleep(latency).await;
            stats.smtp_messages.fetch_add(1, Ordering::Relaxed);
            b"250 2.0.0 queued\r\n"
        } else {
            match line.get(..4).map(str::to_ascii_uppercase).as_deref() {
                Some("EHLO") => b"250-bench\r\n250 PIPELINING\r\n",
                Some("DATA") => {
                    in_data = true;
                    b"354 go ahead\r\n"
                }
                Some("QUIT") => {
                    let _ = writer.write_all(b"221 bye\r\n").await;
                    return;
                }
                _ => b"250 OK\r\n",
            }
        };
        if writer.write_all(reply).await.is_err() {
            return;
        }
    }
}
