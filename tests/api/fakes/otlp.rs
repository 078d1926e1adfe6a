//! An OpenTelemetry collector's OTLP/HTTP traces endpoint, `POST /v1/traces`
//! (https://opentelemetry.io/docs/specs/otlp/#otlphttp): a protobuf `ExportTraceServiceRequest` with
//! `Content-Type: application/x-protobuf`, answered `200` with an `ExportTraceServiceResponse` (empty:
//! every span accepted); another content type is a `415`, a body that does not decode a `400`. Every
//! span received is kept, decoded with the protocol's own types.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use prost::Message;

/// One span as exported, its ids in lowercase hex (as a `traceparent` writes them).
#[derive(Debug, Clone)]
pub struct ExportedSpan {
    /// The exporting process's `service.name`.
    pub service: String,
    pub name: String,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    /// String, integer and boolean attributes, as text.
    pub attributes: HashMap<String, String>,
}

impl ExportedSpan {
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

/// The receiver; it serves until the test process ends.
#[derive(Clone)]
pub struct OtlpReceiver {
    pub addr: SocketAddr,
    spans: Arc<Mutex<Vec<ExportedSpan>>>,
}

impl OtlpReceiver {
    pub async fn start() -> Self {
        Self::start_on("127.0.0.1:0").await
    }

    /// Listens on `addr` (a collector's default `127.0.0.1:4318`, …).
    pub async fn start_on(addr: &str) -> Self {
        let spans = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new().route("/v1/traces", post(export)).with_state(spans.clone());
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap_or_else(|error| panic!("bind {addr}: {error}"));
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { addr, spans }
    }

    /// `OTEL_EXPORTER_OTLP_ENDPOINT` for this receiver.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn spans(&self) -> Vec<ExportedSpan> {
        self.spans.lock().unwrap().clone()
    }

    /// Waits (10 s at most) until `done` holds for the spans received; returns them.
    pub async fn wait_for(&self, done: impl Fn(&[ExportedSpan]) -> bool) -> Vec<ExportedSpan> {
        let started = std::time::Instant::now();
        loop {
            let spans = self.spans();
            if done(&spans) {
                return spans;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "spans received: {spans:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn export(
    State(spans): State<Arc<Mutex<Vec<ExportedSpan>>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Vec<u8>, StatusCode> {
    let content_type = headers.get("content-type").and_then(|value| value.to_str().ok()).unwrap_or("");
    if content_type != "application/x-protobuf" {
        return Err(StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    let request = ExportTraceServiceRequest::decode(body).map_err(|_| StatusCode::BAD_REQUEST)?;
    let mut received = spans.lock().unwrap();
    for resource_spans in request.resource_spans {
        let resource = resource_spans.resource.map(|resource| attributes(&resource.attributes)).unwrap_or_default();
        let service = resource.get("service.name").cloned().unwrap_or_default();
        for span in resource_spans.scope_spans.into_iter().flat_map(|scope| scope.spans) {
            received.push(ExportedSpan {
                service: service.clone(),
                name: span.name,
                trace_id: hex::encode(span.trace_id),
                span_id: hex::encode(span.span_id),
                parent_span_id: hex::encode(span.parent_span_id),
                attributes: attributes(&span.attributes),
            });
        }
    }
    Ok(ExportTraceServiceResponse::default().encode_to_vec())
}

fn attributes(pairs: &[KeyValue]) -> HashMap<String, String> {
    pairs
        .iter()
        .filter_map(|pair| {
            let value = match pair.value.as_ref()?.value.as_ref()? {
                Value::StringValue(text) => text.clone(),
                Value::IntValue(number) => number.to_string(),
                Value::BoolValue(flag) => flag.to_string(),
                _ => return None,
            };
            Some((pair.key.clone(), value))
        })
        .collect()
}
