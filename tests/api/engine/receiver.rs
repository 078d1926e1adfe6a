//! A real HTTP receiver on 127.0.0.1 for provider and custom-step tests: it records every request and
//! answers with the statuses it was told to, in order (then 200).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
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
    answers: VecDeque<(u16, String)>,
}

/// The receiver; dropping it does not stop the server (the test process ends soon enough).
#[derive(Clone)]
pub struct Receiver {
    pub addr: SocketAddr,
    inner: Arc<Mutex<Inner>>,
}

impl Receiver {
    pub async fn start() -> Self {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new().route("/{*path}", post(record)).with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { addr, inner }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The next requests are answered with `status` and `body`, in the order given.
    pub fn answer_next(&self, status: u16, body: &str) {
        self.inner.lock().unwrap().answers.push_back((status, body.to_string()));
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
) -> (StatusCode, String) {
    let mut inner = inner.lock().unwrap();
    inner.received.push(Received { path: uri.path().to_string(), headers, body });
    let (status, body) = inner.answers.pop_front().unwrap_or((200, r#"{"id": "provider-1"}"#.to_string()));
    (StatusCode::from_u16(status).unwrap(), body)
}
