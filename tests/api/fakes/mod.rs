//! Faithful local fakes of providers' APIs, on 127.0.0.1. Each fake checks what the real provider
//! checks (method, path, authentication, content type, required fields) and answers as it does, errors
//! included; a test may script the answers to the next requests (a 429 with `Retry-After`, then a
//! success) and reads back every request the fake received, with the HTTP version it came in, and how
//! many connections clients opened.

pub mod apns;
pub mod appio;
pub mod aws;
pub mod discord;
pub mod expo;
pub mod fcm;
pub mod getstream;
pub mod grafana_on_call;
pub mod mailgun;
pub mod mattermost;
pub mod msteams;
pub mod nexmo;
pub mod one_signal;
pub mod otlp;
pub mod plivo;
pub mod postmark;
pub mod pusher_beams;
pub mod pushpad;
pub mod resend;
pub mod rocket_chat;
pub mod ryver;
pub mod sendgrid;
pub mod ses;
pub mod slack;
pub mod smtp;
pub mod sns;
pub mod sns_topic;
pub mod twilio;
pub mod whatsapp_business;
pub mod zulip;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, Version};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use axum::Router;
use base64::Engine;
use serde_json::Value;

/// One request as the fake received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: Method,
    /// HTTP/1.1, or HTTP/2 (h2c: the fakes serve both on one port, as hyper tells them apart).
    pub version: Version,
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The `application/x-www-form-urlencoded` or `multipart/form-data` body as pairs, in order (the
    /// parts' names and text; no files).
    pub fn form(&self) -> Vec<(String, String)> {
        if self.content_type_is("multipart/form-data") {
            return self.multipart();
        }
        form_urlencoded::parse(&self.body).into_owned().collect()
    }

    fn multipart(&self) -> Vec<(String, String)> {
        let content_type = self.header("content-type").unwrap_or_default();
        let Some(boundary) = content_type.split(';').find_map(|param| param.trim().strip_prefix("boundary=")) else {
            return Vec::new();
        };
        let delimiter = format!("--{}", boundary.trim_matches('"'));
        let body = String::from_utf8_lossy(&self.body);
        body.split(delimiter.as_str())
            .skip(1)
            .take_while(|part| !part.starts_with("--"))
            .filter_map(|part| {
                let (head, value) = part.strip_prefix("\r\n")?.split_once("\r\n\r\n")?;
                let disposition =
                    head.lines().find(|line| line.to_ascii_lowercase().starts_with("content-disposition:"))?;
                let name = disposition.split(';').find_map(|param| param.trim().strip_prefix("name="))?;
                Some((name.trim_matches('"').to_owned(), value.strip_suffix("\r\n")?.to_owned()))
            })
            .collect()
    }

    /// The first value of form field `name`.
    pub fn form_value(&self, name: &str) -> Option<String> {
        self.form().into_iter().find(|(key, _)| key == name).map(|(_, value)| value)
    }

    /// The `(user, password)` of an `Authorization: Basic` header.
    pub fn basic_auth(&self) -> Option<(String, String)> {
        let encoded = self.header("authorization")?.strip_prefix("Basic ")?;
        let decoded = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
        let (user, password) = std::str::from_utf8(&decoded).ok()?.split_once(':')?;
        Some((user.to_owned(), password.to_owned()))
    }

    /// Whether the content type is `expected` (parameters such as `charset` aside).
    pub fn content_type_is(&self, expected: &str) -> bool {
        self.header("content-type").is_some_and(|value| value.split(';').next().unwrap_or_default().trim() == expected)
    }
}

/// An answer the fake gives.
#[derive(Debug, Clone)]
pub struct FakeAnswer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl FakeAnswer {
    pub fn json(status: u16, body: Value) -> Self {
        Self { status, headers: vec![("content-type".into(), "application/json".into())], body: body.to_string() }
    }

    pub fn text(status: u16, body: &str) -> Self {
        Self { status, headers: vec![("content-type".into(), "text/plain".into())], body: body.to_owned() }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

impl IntoResponse for FakeAnswer {
    fn into_response(self) -> Response {
        let mut response = (StatusCode::from_u16(self.status).expect("a valid status"), self.body).into_response();
        for (name, value) in self.headers {
            response.headers_mut().insert(
                HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
                HeaderValue::from_str(&value).expect("a header value"),
            );
        }
        response
    }
}

/// How a fake answers a request: the real provider's error when the request is not one it accepts,
/// else `None` (the scripted answer, or the provider's success). A closure when the fake keeps state
/// (the tokens it issued).
pub type Check = Box<dyn Fn(&Recorded) -> Option<FakeAnswer> + Send>;
/// The provider's success answer to a request it accepted.
pub type Success = Box<dyn Fn(&Recorded) -> FakeAnswer + Send>;

struct Inner {
    check: Check,
    success: Success,
    requests: Vec<Recorded>,
    scripted: VecDeque<FakeAnswer>,
    connections: usize,
}

/// A running fake; it stops with the test's runtime. It serves HTTP/1.1, and HTTP/2 to a client that
/// starts with it (prior knowledge).
#[derive(Clone)]
pub struct FakeProvider {
    base_url: String,
    inner: Arc<Mutex<Inner>>,
}

impl FakeProvider {
    pub async fn start(
        check: impl Fn(&Recorded) -> Option<FakeAnswer> + Send + 'static,
        success: impl Fn(&Recorded) -> FakeAnswer + Send + 'static,
    ) -> Self {
        let inner = Arc::new(Mutex::new(Inner {
            check: Box::new(check),
            success: Box::new(success),
            requests: Vec::new(),
            scripted: VecDeque::new(),
            connections: 0,
        }));
        let app = Router::new().fallback(answer).with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a local port");
        let base_url = format!("http://{}", listener.local_addr().expect("bound address"));
        let counting = inner.clone();
        let listener = listener.tap_io(move |_| counting.lock().unwrap().connections += 1);
        tokio::spawn(async move { axum::serve(listener, app).await.expect("the fake runs") });
        Self { base_url, inner }
    }

    /// How many connections clients opened to the fake.
    pub fn connections(&self) -> usize {
        self.inner.lock().unwrap().connections
    }

    /// The origin to give the integration as its `baseUrl`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The next request that passes the checks gets `answer` instead of the success (in the order
    /// queued).
    pub fn then(&self, answer: FakeAnswer) -> &Self {
        self.inner.lock().unwrap().scripted.push_back(answer);
        self
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.lock().unwrap().requests.clone()
    }

    /// The one request received, failing the test when there were more or none.
    pub fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "expected exactly one request, got {requests:#?}");
        requests.into_iter().next().unwrap()
    }
}

async fn answer(
    State(inner): State<Arc<Mutex<Inner>>>,
    method: Method,
    version: Version,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> FakeAnswer {
    let path = uri.path().to_owned();
    let request = Recorded { method, version, path, query: uri.query().map(str::to_owned), headers, body };
    let mut inner = inner.lock().unwrap();
    inner.requests.push(request.clone());
    if let Some(refusal) = (inner.check)(&request) {
        return refusal;
    }
    match inner.scripted.pop_front() {
        Some(scripted) => scripted,
        None => (inner.success)(&request),
    }
}
