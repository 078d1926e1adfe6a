//! How the event stream's connections are served, seen on the wire: a connection opened for the
//! stream is answered by Herald's own lean writer (through every layer of the router, then closed),
//! any other (a reused keep-alive connection, a head that arrives in pieces) by hyper, and both carry
//! the same events. Raw TCP, because the difference is in the framing an HTTP client hides.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::events::ship;
use super::Inbox;

const PATIENCE: Duration = Duration::from_secs(15);

/// A raw HTTP/1.1 client connection and what it has read so far.
struct Wire {
    stream: TcpStream,
    read: Vec<u8>,
}

/// An answer's status line and headers (names lowercased), and where its body starts in what was read.
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
    body_start: usize,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(header, _)| header == name).map(|(_, value)| value.as_str())
    }
}

impl Wire {
    async fn connect(addr: SocketAddr) -> Self {
        Self { stream: TcpStream::connect(addr).await.unwrap(), read: Vec::new() }
    }

    async fn send(&mut self, bytes: &str) {
        self.stream.write_all(bytes.as_bytes()).await.unwrap();
    }

    /// Reads until `text` has been read after `from`; returns where it ends.
    async fn read_until(&mut self, from: usize, text: &str) -> usize {
        let wait = async {
            loop {
                if let Some(at) = self.read[from..].windows(text.len()).position(|window| window == text.as_bytes()) {
                    return from + at + text.len();
                }
                self.read_more().await;
            }
        };
        tokio::time::timeout(PATIENCE, wait).await.expect("read within the patience")
    }

    /// Reads what has arrived (waiting for something); fails if the connection has closed.
    async fn read_more(&mut self) {
        let mut buffer = [0; 4096];
        let read = self.stream.read(&mut buffer).await.unwrap();
        assert!(read > 0, "the connection closed after {}", String::from_utf8_lossy(&self.read));
        self.read.extend_from_slice(&buffer[..read]);
    }

    /// Reads the head of the answer that starts at `from`.
    async fn read_head(&mut self, from: usize) -> Head {
        let end = self.read_until(from, "\r\n\r\n").await;
        let text = String::from_utf8(self.read[from..end].to_vec()).unwrap();
        let mut lines = text.lines();
        let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let headers = lines
            .filter_map(|line| line.split_once(": "))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.to_string()))
            .collect();
        Head { status, headers, body_start: end }
    }

    /// Reads until `length` bytes have been read in all.
    async fn read_to(&mut self, length: usize) {
        while self.read.len() < length {
            tokio::time::timeout(PATIENCE, self.read_more()).await.expect("read within the patience");
        }
    }

    /// Reads to the end of the connection; fails if the server keeps it open.
    async fn read_to_end(&mut self) {
        tokio::time::timeout(PATIENCE, self.stream.read_to_end(&mut self.read))
            .await
            .expect("the server closes the connection")
            .unwrap();
    }
}

fn event_stream_request(token: &str) -> String {
    event_stream_request_with(token, "")
}

/// The same request with more header lines (each ending in CRLF).
fn event_stream_request_with(token: &str, more_headers: &str) -> String {
    format!(
        "GET /v1/inbox/events?token={token} HTTP/1.1\r\nHost: herald\r\nAccept: text/event-stream\r\n\
         Origin: https://app.example.com\r\n{more_headers}\r\n"
    )
}

/// Ada's event stream requested on a new connection, and the head of its answer.
async fn open_adas_stream_on_a_new_connection(inbox: &Inbox) -> (Wire, Head) {
    let token = inbox.token("ada").await;
    let mut wire = Wire::connect(inbox.server.addr).await;
    wire.send(&event_stream_request(&token)).await;
    let head = wire.read_head(0).await;
    (wire, head)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_on_its_own_connection_gets_every_layers_headers_and_closes_the_connection_after_it() {
    let inbox = Inbox::start(json!({})).await;
    let (mut wire, head) = open_adas_stream_on_a_new_connection(&inbox).await;
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some("text/event-stream"));
    // The lean writer's framing: chunks, on a connection that ends with the stream.
    assert_eq!((head.header("transfer-encoding"), head.header("connection")), (Some("chunked"), Some("close")));
    assert!(head.header("date").is_some_and(|date| date.ends_with(" GMT")), "{:?}", head.headers);
    // The router's layers: the request id and the inbox's cross-origin access.
    assert_eq!(head.header("x-request-id").map(str::len), Some(36));
    assert_eq!(head.header("access-control-allow-origin"), Some("*"));

    let opened = wire.read_until(head.body_start, "event: counts\n").await;
    ship(&inbox, "ada", "A-1").await;
    let received = wire.read_until(opened, "event: received\n").await;
    wire.read_until(received, "Order A-1 for Ada").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_on_a_connection_that_already_served_a_request_is_served_by_hyper_with_the_same_events() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    let mut wire = Wire::connect(inbox.server.addr).await;
    wire.send("GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n").await;
    let health = wire.read_head(0).await;
    assert_eq!(health.status, 200);
    let length: usize = health.header("content-length").unwrap().parse().unwrap();
    let next = health.body_start + length;
    wire.read_to(next).await;

    wire.send(&event_stream_request(&token)).await;
    let head = wire.read_head(next).await;
    assert_eq!((head.status, head.header("content-type")), (200, Some("text/event-stream")));
    assert_eq!(head.header("connection"), None, "hyper keeps the connection: {:?}", head.headers);
    assert_eq!(head.header("access-control-allow-origin"), Some("*"));
    let opened = wire.read_until(head.body_start, "event: counts\n").await;
    ship(&inbox, "ada", "A-1").await;
    wire.read_until(opened, "Order A-1 for Ada").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_head_that_arrives_in_pieces_still_opens_the_stream() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    let request = event_stream_request(&token);
    let (first, rest) = request.split_at(30);
    let mut wire = Wire::connect(inbox.server.addr).await;
    wire.send(first).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    wire.send(rest).await;
    let head = wire.read_head(0).await;
    assert_eq!((head.status, head.header("content-type")), (200, Some("text/event-stream")));
    wire.read_until(head.body_start, "event: counts\n").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_stream_gets_the_contract_error_by_its_length_then_the_connection_closes() {
    let inbox = Inbox::start(json!({})).await;
    let mut wire = Wire::connect(inbox.server.addr).await;
    // Some clients declare the empty body of a GET.
    wire.send(&event_stream_request_with("forged", "Content-Length: 0\r\n")).await;
    let head = wire.read_head(0).await;
    assert_eq!((head.status, head.header("connection")), (401, Some("close")));
    let length: usize = head.header("content-length").unwrap().parse().unwrap();
    wire.read_to_end().await;
    let body: Value = serde_json::from_slice(&wire.read[head.body_start..]).unwrap();
    assert_eq!(wire.read.len() - head.body_start, length);
    assert_eq!((&body["statusCode"], &body["path"]), (&json!(401), &json!("/v1/inbox/events")));
    // The token in the query never reaches an answer.
    assert!(!String::from_utf8_lossy(&wire.read).contains("forged"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_leaves_is_let_go_at_once_rather_than_at_the_next_keep_alive() {
    let inbox = Inbox::start(json!({})).await;
    let (mut wire, head) = open_adas_stream_on_a_new_connection(&inbox).await;
    wire.read_until(head.body_start, "event: counts\n").await;
    let client_port = wire.stream.local_addr().unwrap().port();
    drop(wire);
    // Until the server closes its end, the kernel holds it (in CLOSE_WAIT once the client's FIN is in).
    // The stream writes nothing for 15 s (its keep-alive), so only reading for the client's leaving
    // lets it go sooner.
    let released = async {
        while server_end_is_open(inbox.server.addr.port(), client_port) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), released).await.expect("the server let the connection go");
}

/// Whether the server's end of the connection from `client_port` is still open: ESTABLISHED or
/// CLOSE_WAIT in `/proc/net/tcp` (hexadecimal `address:port` columns, states `01` and `08`).
fn server_end_is_open(server_port: u16, client_port: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap() + &std::fs::read_to_string("/proc/net/tcp6").unwrap();
    let (local, remote) = (format!(":{server_port:04X}"), format!(":{client_port:04X}"));
    table.lines().skip(1).any(|line| {
        let columns: Vec<&str> = line.split_whitespace().collect();
        columns.len() > 3
            && columns[1].ends_with(&local)
            && columns[2].ends_with(&remote)
            && ["01", "08"].contains(&columns[3])
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn the_other_inbox_answers_close_their_connection_so_that_a_browser_has_none_idle_for_its_stream() {
    let inbox = Inbox::start(json!({})).await;
    let body = json!({"applicationIdentifier": inbox.application_identifier, "subscriberId": "ada"}).to_string();
    let mut wire = Wire::connect(inbox.server.addr).await;
    wire.send(&format!(
        "POST /v1/inbox/session HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    ))
    .await;
    let head = wire.read_head(0).await;
    assert_eq!((head.status, head.header("connection")), (201, Some("close")));
    wire.read_to_end().await;
    let session: Value = serde_json::from_slice(&wire.read[head.body_start..]).unwrap();
    assert!(session["data"]["token"].is_string(), "{session}");

    // A cross-origin preflight too; the web component's script as well.
    for request in [
        "OPTIONS /v1/inbox/notifications HTTP/1.1\r\nHost: herald\r\nOrigin: https://app.example.com\r\n\
         Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: authorization\r\n\r\n",
        "GET /inbox/herald-inbox.js HTTP/1.1\r\nHost: herald\r\n\r\n",
    ] {
        let mut wire = Wire::connect(inbox.server.addr).await;
        wire.send(request).await;
        let head = wire.read_head(0).await;
        assert_eq!((head.status, head.header("connection")), (200, Some("close")), "{request}");
        wire.read_to_end().await;
    }
}
