//! A provider stand-in for `scripts/bench-email.sh` and `scripts/bench-push.sh`: answers like Resend's
//! `POST /emails`, like FCM's `POST /v1/projects/{id}/messages:send` and its OAuth `POST /token`, and like
//! an SMTP relay, each send after a fixed latency, and counts the connections it accepted, so the
//! benchmarks can show that Herald reuses connections instead of opening one per message. Not a test
//! fake: it checks nothing (tests/api/fakes/ has the faithful ones). HTTP/1.1, and HTTP/2 for a client
//! that starts with it (as Herald's FCM adapter does with a plain-http `baseUrl`).
//!
//! `cargo run --release --example provider_fake -- <http port> <smtp port> <latency ms>`; `GET /stats`
//! on the HTTP port answers `{"httpConnections", "httpRequests", "fcmTokenExchanges", "fcmSends",
//! "fcmSendConnections", "smtpConnections", "smtpMessages"}` (`fcmSendConnections`: how many
//! connections carried the FCM sends).

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[derive(Default)]
struct Stats {
    http_connections: AtomicU64,
    http_requests: AtomicU64,
    fcm_token_exchanges: AtomicU64,
    fcm_sends: AtomicU64,
    fcm_send_peers: Mutex<HashSet<SocketAddr>>,
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
            "/token",
            post({
                let stats = stats.clone();
                move || async move {
                    stats.fcm_token_exchanges.fetch_add(1, Ordering::Relaxed);
                    Json(json!({"access_token": "ya29.bench", "expires_in": 3599, "token_type": "Bearer"}))
                }
            }),
        )
        .route(
            "/v1/projects/{project}/messages:send",
            post({
                let stats = stats.clone();
                move |ConnectInfo(peer): ConnectInfo<SocketAddr>| async move {
                    stats.fcm_send_peers.lock().unwrap().insert(peer);
                    tokio::time::sleep(latency).await;
                    let id = stats.fcm_sends.fetch_add(1, Ordering::Relaxed);
                    Json(json!({"name": format!("projects/bench/messages/0:{id}")}))
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
    let http = http.tap_io(move |_| {
        stats.http_connections.fetch_add(1, Ordering::Relaxed);
    });
    axum::serve(http, app.into_make_service_with_connect_info::<SocketAddr>()).await.expect("the fake serves");
}

fn snapshot(stats: &Stats) -> Value {
    json!({
        "httpConnections": stats.http_connections.load(Ordering::Relaxed),
        "httpRequests": stats.http_requests.load(Ordering::Relaxed),
        "fcmTokenExchanges": stats.fcm_token_exchanges.load(Ordering::Relaxed),
        "fcmSends": stats.fcm_sends.load(Ordering::Relaxed),
        "fcmSendConnections": stats.fcm_send_peers.lock().unwrap().len(),
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
