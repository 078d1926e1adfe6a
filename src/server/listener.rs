//! The API port's listener. A connection whose first request is the inbox event stream
//! (`GET /v1/inbox/events`) is answered here, through the same router as every other request, by a
//! writer that holds no buffer while the stream idles; every other connection goes to hyper
//! untouched, through [`axum::serve`].
//!
//! Why: an event stream idles for hours, and hyper keeps two 8 KiB buffers for every HTTP/1.1
//! connection for its whole life (its read buffer and its header buffer; neither size can be set
//! lower). Measured with 10,000 keep-alive connections: 17 KB a connection before any stream, so
//! 10,000 idle streams cost 210 MB in all. Here a stream costs what its own state costs.
//!
//! The request is only peeked at until it is known to be the event stream, so a connection that turns
//! out to be anything else (another route, gRPC's HTTP/2 preface, a head split across segments, more
//! than [`MAX_HEAD`] bytes) reaches hyper with all its bytes. A stream opened on a connection that
//! already served another request is served by hyper, as before; browsers would open theirs so, on an
//! idle keep-alive connection, were it not that the other subscriber-facing answers close theirs
//! (`subscriber_facing` in the parent module). The answer always closes the connection: an event
//! stream ends only when the server stops or the client goes, and its client reconnects (and resumes)
//! on a new one.

use std::io::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, SystemTime};

use axum::body::{Body, HttpBody};
use axum::Router;
use http::header::{CONNECTION, CONTENT_LENGTH, DATE, TRANSFER_ENCODING};
use http::{HeaderName, HeaderValue, Method, Request, Version};
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tower::ServiceExt;

/// The request line's start that marks an event stream request.
const EVENT_STREAM_REQUEST: &[u8] = b"GET /v1/inbox/events";

/// The largest request head served here (a browser's, cookies included, is well under it); a larger
/// one goes to hyper, whose limit is higher.
const MAX_HEAD: usize = 8 * 1024;

/// The most header lines served here; more go to hyper.
const MAX_HEADERS: usize = 64;

/// How long a new connection may stay silent before it is handed to hyper as it is (hyper then
/// applies its own header timeout).
const FIRST_BYTES_WAIT: Duration = Duration::from_secs(10);

/// Connections accepted on the API port, those that are not event streams handed on to hyper.
pub struct ApiListener {
    tcp: TcpListener,
    router: Router,
    to_hyper: mpsc::Sender<(TcpStream, SocketAddr)>,
    for_hyper: mpsc::Receiver<(TcpStream, SocketAddr)>,
}

impl ApiListener {
    /// Serves event streams with `router`, which must be the router `axum::serve` serves the rest with.
    pub fn new(tcp: TcpListener, router: Router) -> Self {
        let (to_hyper, for_hyper) = mpsc::channel(1024);
        Self { tcp, router, to_hyper, for_hyper }
    }
}

impl axum::serve::Listener for ApiListener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    /// Accepts connections and sorts each in a task of its own (waiting for a client's first bytes
    /// must not hold up the next accept), returning the first one hyper is to serve. Both waits are
    /// cancel-safe: `axum::serve` drops this future when it stops accepting.
    async fn accept(&mut self) -> (TcpStream, SocketAddr) {
        loop {
            tokio::select! {
                Some(connection) = self.for_hyper.recv() => return connection,
                (stream, address) = axum::serve::Listener::accept(&mut self.tcp) => {
                    tokio::spawn(sort_connection(stream, address, self.router.clone(), self.to_hyper.clone()));
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

/// Serves the connection here if its first request is an event stream, else hands it to hyper
/// (dropped if the server has stopped accepting meanwhile).
async fn sort_connection(
    stream: TcpStream,
    address: SocketAddr,
    router: Router,
    to_hyper: mpsc::Sender<(TcpStream, SocketAddr)>,
) {
    match tokio::time::timeout(FIRST_BYTES_WAIT, peek_event_stream_request(&stream)).await {
        Ok(Some(peeked)) => {
            tracing::debug!(%address, "an event stream on a connection of its own, served without hyper");
            if let Err(error) = serve_event_stream(stream, peeked, router).await {
                tracing::debug!(%error, "an event stream connection ended with an error");
            }
        }
        _ => {
            let _ = to_hyper.send((stream, address)).await;
        }
    }
}

/// An event stream request read from a peek, and the length of its head on the wire.
struct PeekedRequest {
    request: Request<Body>,
    head_length: usize,
}

/// The connection's first request if its whole head has arrived and it is a bodiless HTTP/1.1
/// `GET /v1/inbox/events`; nothing is consumed from the socket.
async fn peek_event_stream_request(stream: &TcpStream) -> Option<PeekedRequest> {
    // The buffer is taken once there is something to read, not while a silent client waits.
    stream.readable().await.ok()?;
    let mut bytes = vec![0; MAX_HEAD];
    let length = stream.peek(&mut bytes).await.ok()?;
    let bytes = &bytes[..length];
    if !bytes.starts_with(EVENT_STREAM_REQUEST) {
        return None;
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    let httparse::Status::Complete(head_length) = parsed.parse(bytes).ok()? else { return None };
    let path = parsed.path?;
    let is_event_stream = path == "/v1/inbox/events" || path.starts_with("/v1/inbox/events?");
    if parsed.method != Some("GET") || parsed.version != Some(1) || !is_event_stream {
        return None;
    }
    let mut request = Request::builder().method(Method::GET).uri(path).version(Version::HTTP_11);
    let request_headers = request.headers_mut()?;
    for header in parsed.headers.iter() {
        let name = HeaderName::from_bytes(header.name.as_bytes()).ok()?;
        // A body, or a change of protocol, is hyper's to handle (an empty body is no body).
        let has_body = (name == CONTENT_LENGTH && header.value != b"0") || name == TRANSFER_ENCODING;
        if has_body || name == http::header::UPGRADE {
            return None;
        }
        request_headers.append(name, HeaderValue::from_bytes(header.value).ok()?);
    }
    Some(PeekedRequest { request: request.body(Body::empty()).ok()?, head_length })
}

/// Consumes the peeked head, runs the request through the router, and writes its answer: the head,
/// then the body as HTTP/1.1 chunks (or by its length when known) until it ends or the client goes.
async fn serve_event_stream(mut stream: TcpStream, peeked: PeekedRequest, router: Router) -> std::io::Result<()> {
    // Each write below is a whole head or chunk: nothing to gain from Nagle's wait for more.
    stream.set_nodelay(true)?;
    let mut head = vec![0; peeked.head_length];
    stream.read_exact(&mut head).await?;
    drop(head);
    let response = router.oneshot(peeked.request).await.unwrap_or_else(|never| match never {});
    let (parts, mut body) = response.into_parts();
    let length = body.size_hint().exact();
    stream.write_all(&response_head(&parts, length)).await?;

    let (mut reader, mut writer) = stream.split();
    // Read only to notice the client leave; anything it sends is not read as a request.
    let mut ignored = [0; 64];
    loop {
        tokio::select! {
            frame = body.frame() => match frame {
                None => break,
                // An error cuts the answer short, without its last chunk: the client sees it unfinished.
                Some(Err(_)) => return Ok(()),
                Some(Ok(frame)) => {
                    let Ok(data) = frame.into_data() else { continue };
                    match length {
                        Some(_) => writer.write_all(&data).await?,
                        None if data.is_empty() => {}
                        None => writer.write_all(&chunk(&data)).await?,
                    }
                }
            },
            read = reader.read(&mut ignored) => match read {
                Ok(0) | Err(_) => return Ok(()),
                Ok(_) => {}
            },
        }
    }
    if length.is_none() {
        writer.write_all(b"0\r\n\r\n").await?;
    }
    writer.shutdown().await
}

/// The status line and headers of an answer on a connection that closes after it: the router's
/// headers without framing or connection headers, then the date, the framing and `connection: close`.
fn response_head(parts: &http::response::Parts, length: Option<u64>) -> Vec<u8> {
    let mut head = Vec::with_capacity(512);
    let status = parts.status;
    let _ = write!(head, "HTTP/1.1 {} {}\r\n", status.as_str(), status.canonical_reason().unwrap_or(""));
    let framing = [CONNECTION, CONTENT_LENGTH, TRANSFER_ENCODING, DATE];
    for (name, value) in parts.headers.iter().filter(|(name, _)| !framing.contains(name)) {
        write_header(&mut head, name.as_str(), value.as_bytes());
    }
    write_header(&mut head, DATE.as_str(), httpdate::fmt_http_date(SystemTime::now()).as_bytes());
    match length {
        Some(length) => write_header(&mut head, CONTENT_LENGTH.as_str(), length.to_string().as_bytes()),
        None => write_header(&mut head, TRANSFER_ENCODING.as_str(), b"chunked"),
    }
    write_header(&mut head, CONNECTION.as_str(), b"close");
    head.extend_from_slice(b"\r\n");
    head
}

fn write_header(head: &mut Vec<u8>, name: &str, value: &[u8]) {
    head.extend_from_slice(name.as_bytes());
    head.extend_from_slice(b": ");
    head.extend_from_slice(value);
    head.extend_from_slice(b"\r\n");
}

/// One HTTP/1.1 chunk, in one buffer so that it goes out in one write (separate small writes would
/// wait on each other's acknowledgement).
fn chunk(data: &[u8]) -> Vec<u8> {
    let mut chunk = Vec::with_capacity(data.len() + 12);
    let _ = write!(chunk, "{:x}\r\n", data.len());
    chunk.extend_from_slice(data);
    chunk.extend_from_slice(b"\r\n");
    chunk
}
