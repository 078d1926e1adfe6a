//! A real HTTP receiver on loopback (127.0.0.1, or another address such as `[::1]`) for provider and
//! custom-step tests: it records every request and answers with the statuses it was told to, in order
//! (then 200).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::LOCATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;

/// One request as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

#[derive(Default)]
struct Inner {
    received: Vec<Received>,
    /// Status, body and, for a redirect, its `Location`.
    answers: VecDeque<(u16, String, Option<String>)>,
}

/// The receiver; dropping it does not stop the server (the test process ends soon enough).
#[derive(Clone)]
pub struct Receiver {
    pub addr: SocketAddr,
    inner: Arc<Mutex<Inner>>,
}

impl Receiver {
    pub async fn start() -> Self {
        Self::start_on("127.0.0.1:0").await
    }

    /// Listens on `addr` (`[::1]:0`, `127.0.0.2:0`…).
    pub async fn start_on(addr: &str) -> Self {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new().route("/{*path}", post(record)).with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { addr, inner }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The next requests are answered with `status` and `body`, in the order given.
    pub fn answer_next(&self, status: u16, body: &str) {
        self.inner.lock().unwrap().answers.push_back((status, body.to_string(), None));
    }

    /// The next request is answered `302 Found` to `location`.
    pub fn redirect_next(&self, location: &str) {
        self.inner.lock().unwrap().answers.push_back((302, String::new(), Some(location.to_string())));
    }

    pub fn received(&self) -> Vec<Received> {
        self.inner.lock().unwrap().received.clone()
    }
}

async fn record(
    State(inner): State<Arc<Mutex<Inner>>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let mut inner = inner.lock().unwrap();
    inner.received.push(Received { path: uri.path().to_string(), headers, body });
    let (status, body, location) =
        inner.answers.pop_front().unwrap_or((200, r#"{"id": "provider-1"}"#.to_string(), None));
    let location = location.map(|location| [(LOCATION, location)]);
    (StatusCode::from_u16(status).unwrap(), location, body)
}
