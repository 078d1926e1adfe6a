//! OpenTelemetry traces, from the real binary to a local OTLP receiver: a request continues its
//! caller's W3C trace (REST and gRPC), a trigger's jobs and their provider calls continue the trigger's,
//! the JSON log lines name the trace, and without an endpoint nothing is exported.

use std::time::Duration;

use herald::proto::herald::v1 as pb;
use pb::environments_service_client::EnvironmentsServiceClient;
use serde_json::{json, Value};

use crate::engine::fixtures::chat_recipient;
use crate::engine::receiver::Receiver;
use crate::fakes::otlp::{ExportedSpan, OtlpReceiver};
use crate::process::{free_addr, prepare, wait_healthy, Herald};
use crate::support::{fresh_schema_url, http_client};

/// The caller's trace and span, as its `traceparent` names them.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN_ID: &str = "00f067aa0ba902b7";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{CALLER_SPAN_ID}-01")
}

/// A Herald process with a `chat` workflow of one chat step through `chat-webhook`, whose posts go to
/// `chat`.
struct Traced {
    herald: Herald,
    addr: String,
    key: String,
    chat: Receiver,
}

impl Traced {
    /// Starts Herald with JSON log lines and `settings` (environment variables).
    async fn start(settings: Settings) -> Self {
        let url = fresh_schema_url().await;
        let key = prepare(&url);
        let addr = free_addr();
        let mut all = vec![("HERALD_OUTBOUND_ALLOW", "127.0.0.0/8"), ("HERALD_LOG_FORMAT", "json")];
        all.extend(settings.iter().map(|(name, value)| (*name, value.as_str())));
        let herald = Herald::start_logging(&url, &addr, "all", &all);
        wait_healthy(&addr).await;
        let traced = Self { herald, addr, key, chat: Receiver::start().await };
        let integration = json!({"providerId": "chat-webhook", "channel": "chat", "identifier": "chat-hook",
                                 "active": true, "credentials": {}});
        assert_eq!(traced.post("/v1/integrations", integration, None).await.0, 201);
        let workflow = json!({"workflowId": "chat", "name": "chat", "active": true,
                              "steps": [{"name": "Chat", "type": "chat", "controlValues": {"body": "Hi"}}]});
        assert_eq!(traced.post("/v2/workflows", workflow, None).await.0, 201);
        traced
    }

    async fn post(&self, path: &str, body: Value, traceparent: Option<&str>) -> (u16, Value) {
        let mut request = http_client()
            .post(format!("http://{}{path}", self.addr))
            .header("authorization", format!("ApiKey {}", self.key))
            .json(&body);
        if let Some(traceparent) = traceparent {
            request = request.header("traceparent", traceparent);
        }
        let response = request.send().await.expect("request sent");
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    /// Triggers `chat` to one subscriber under the caller's `traceparent` and waits for the chat post.
    async fn trigger_traced(&self) {
        let to = chat_recipient("ada", &self.chat.url("/chat/ada"));
        let body = json!({"name": "chat", "to": [to], "transactionId": "traced"});
        let (status, answer) = self.post("/v1/events/trigger", body, Some(&traceparent())).await;
        assert_eq!(status, 201, "{answer}");
        let started = std::time::Instant::now();
        while self.chat.received().is_empty() {
            assert!(started.elapsed() < Duration::from_secs(10), "the chat step never posted");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The JSON log lines written so far.
    fn log_lines(&self) -> Vec<Value> {
        self.herald.log().lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
    }
}

type Settings = Vec<(&'static str, String)>;

/// Exporting to `receiver`, quickly (the batch processor's default delay is 5 s).
fn exporting_to(receiver: &OtlpReceiver) -> Settings {
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
        ("OTEL_SERVICE_NAME", "herald-under-test".to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
    ]
}

/// The request's own lines (tower_http's) and the provider's answer (the channel step's) are debug lines.
const DEBUG_LINES: &str = "info,tower_http=debug,herald::engine::steps=debug";

fn find(spans: &[ExportedSpan], what: impl Fn(&ExportedSpan) -> bool) -> Option<&ExportedSpan> {
    spans.iter().find(|span| span.trace_id == TRACE_ID && what(span))
}

fn job_span<'a>(spans: &'a [ExportedSpan], step_type: &str) -> Option<&'a ExportedSpan> {
    find(spans, |span| span.name == "job" && span.attribute("step_type") == Some(step_type))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trigger_continues_the_callers_trace_through_its_jobs_and_provider_calls() {
    let receiver = OtlpReceiver::start().await;
    let traced = Traced::start(exporting_to(&receiver)).await;
    traced.trigger_traced().await;

    let spans = receiver
        .wait_for(|spans| {
            job_span(spans, "chat").is_some() && find(spans, |span| span.name == "provider_call").is_some()
        })
        .await;
    let request = find(&spans, |span| span.name == "POST /v1/events/trigger").expect("the trigger's request span");
    assert_eq!(request.parent_span_id, CALLER_SPAN_ID, "the request continues the caller's span");
    assert_eq!(request.service, "herald-under-test");
    assert!(request.attribute("request_id").is_some_and(|id| !id.is_empty()), "{request:?}");
    // The trigger job is written completed when the trigger is stored: the chat step is the first job run.
    let job = job_span(&spans, "chat").unwrap();
    assert_eq!(job.parent_span_id, request.span_id, "the chat job is a child of the trigger's request");
    assert_eq!(job.attribute("transaction_id"), Some("traced"));
    let call = find(&spans, |span| span.name == "provider_call").unwrap();
    assert_eq!(call.parent_span_id, job_span(&spans, "chat").unwrap().span_id, "the call is inside its job");
    assert_eq!(call.attribute("provider_id"), Some("chat-webhook"));
    assert_eq!(call.attribute("outcome"), Some("sent"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_grpc_request_continues_the_callers_trace() {
    let receiver = OtlpReceiver::start().await;
    let traced = Traced::start(exporting_to(&receiver)).await;
    let mut client = EnvironmentsServiceClient::connect(format!("http://{}", traced.addr)).await.unwrap();
    let mut request = tonic::Request::new(pb::GetCurrentEnvironmentRequest {});
    request.metadata_mut().insert("authorization", format!("ApiKey {}", traced.key).parse().unwrap());
    request.metadata_mut().insert("traceparent", traceparent().parse().unwrap());
    client.get_current_environment(request).await.expect("the environment");

    let method = "herald.v1.EnvironmentsService/GetCurrentEnvironment";
    let spans = receiver.wait_for(|spans| find(spans, |span| span.name == method).is_some()).await;
    let request = find(&spans, |span| span.name == method).unwrap();
    assert_eq!(request.parent_span_id, CALLER_SPAN_ID);
}

/// The fields of the span named `name` in a JSON log line (`spans` lists every span the line is in).
fn span_fields<'a>(line: &'a Value, name: &str) -> Option<&'a Value> {
    line["spans"].as_array()?.iter().find(|span| span["name"] == name)
}

#[tokio::test(flavor = "multi_thread")]
async fn log_lines_name_the_trace_of_the_request_and_of_its_jobs() {
    let receiver = OtlpReceiver::start().await;
    let mut settings = exporting_to(&receiver);
    settings.push(("RUST_LOG", DEBUG_LINES.to_owned()));
    let traced = Traced::start(settings).await;
    traced.trigger_traced().await;
    receiver.wait_for(|spans| find(spans, |span| span.name == "provider_call").is_some()).await;

    let lines = traced.log_lines();
    let request_line = lines
        .iter()
        .filter_map(|line| span_fields(line, "request"))
        .find(|request| request["path"] == "/v1/events/trigger")
        .unwrap_or_else(|| panic!("a line of the trigger's request: {lines:#?}"));
    assert_eq!(request_line["trace_id"], TRACE_ID);
    assert!(request_line["request_id"].as_str().is_some_and(|id| !id.is_empty()));
    assert!(request_line["span_id"].as_str().is_some_and(|id| id.len() == 16 && id != CALLER_SPAN_ID));
    let job_line = lines
        .iter()
        .filter(|line| line["message"] == "provider answered")
        .find_map(|line| span_fields(line, "job"))
        .unwrap_or_else(|| panic!("the provider call's line: {lines:#?}"));
    assert_eq!(job_line["trace_id"], TRACE_ID);
    assert_eq!(job_line["transaction_id"], "traced");
    assert_eq!(job_line["step_type"], "chat");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_endpoint_nothing_is_exported_and_log_lines_name_no_trace() {
    // Where an exporter sends by default (a local collector's OTLP/HTTP port): nothing may arrive.
    let receiver = OtlpReceiver::start_on("127.0.0.1:4318").await;
    let settings = vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", String::new()),
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", String::new()),
        ("OTEL_SERVICE_NAME", "herald-under-test".to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
        ("RUST_LOG", DEBUG_LINES.to_owned()),
    ];
    let traced = Traced::start(settings).await;
    traced.trigger_traced().await;
    let started = std::time::Instant::now();
    while !traced.herald.log().contains("provider answered") {
        assert!(started.elapsed() < Duration::from_secs(10), "no provider line: {}", traced.herald.log());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    assert!(receiver.spans().is_empty(), "{:#?}", receiver.spans());
    let lines = traced.log_lines();
    let request = lines.iter().find_map(|line| span_fields(line, "request")).expect("a request's line");
    assert!(request["request_id"].as_str().is_some_and(|id| !id.is_empty()));
    let job = lines.iter().find_map(|line| span_fields(line, "job")).expect("a job's line");
    assert_eq!(job["transaction_id"], "traced");
    assert!(lines.iter().all(|line| !line.to_string().contains("trace_id")), "{lines:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn spans_still_buffered_at_a_clean_stop_are_exported_before_the_exit() {
    let receiver = OtlpReceiver::start().await;
    let mut settings = exporting_to(&receiver);
    // A batch every minute: only the stop can have sent this one.
    settings.retain(|(name, _)| *name != "OTEL_BSP_SCHEDULE_DELAY");
    settings.push(("OTEL_BSP_SCHEDULE_DELAY", "60000".to_owned()));
    let mut traced = Traced::start(settings).await;
    let response = http_client()
        .get(format!("http://{}/v1/environments/me", traced.addr))
        .header("authorization", format!("ApiKey {}", traced.key))
        .header("traceparent", traceparent())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    assert!(traced.herald.terminate().success(), "a clean stop");
    let request = find(&receiver.spans(), |span| span.name == "GET /v1/environments/me").cloned();
    assert_eq!(request.expect("the request's span, exported at the stop").parent_span_id, CALLER_SPAN_ID);
}
