//! A real HTTP receiver on 127.0.0.1 for the adapters to post to: it records every request and answers
//! with the statuses a test queues (200 with an empty body once the queue is empty).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::Router;
use serde_json::Value;
use tokio::task::JoinHandle;

/// One request as the receiver saw it.
#[derive(Debug, Clone)]
pub(super) struct Recorded {
    pub method: Method,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Recorded {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the adapter posts JSON")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|value| value.to_str().expect("headers are ASCII"))
    }
}

#[derive(Default)]
struct Log {
    requests: Vec<Recorded>,
    answers: VecDeque<(StatusCode, String)>,
}

type Shared = Arc<Mutex<Log>>;

pub(super) struct Receiver {
    base: String,
    log: Shared,
    server: JoinHandle<()>,
}

impl Receiver {
    pub async fn start() -> Self {
        let log = Shared::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a local port");
        let base = format!("http://{}", listener.local_addr().expect("bound address"));
        let app = Router::new().fallback(record).with_state(log.clone());
        let server = tokio::spawn(async move { axum::serve(listener, app).await.expect("receiver runs") });
        Self { base, log, server }
    }

    /// The receiver's URL for `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Queues the answer to the next request not answered yet.
    pub fn answer(&self, status: u16, body: &str) {
        let status = StatusCode::from_u16(status).expect("a valid status");
        self.log.lock().unwrap().answers.push_back((status, body.to_owned()));
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().requests.clone()
    }

    /// The one request received, failing the test when there were more or none.
    pub fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "expected exactly one request, got {requests:?}");
        requests.into_iter().next().unwrap()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn record(
    State(log): State<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let mut log = log.lock().unwrap();
    log.requests.push(Recorded { method, path: uri.path().to_owned(), headers, body });
    log.answers.pop_front().unwrap_or((StatusCode::OK, String::new()))
}
