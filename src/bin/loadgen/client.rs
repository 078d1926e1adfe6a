//! Sending one trigger over REST, gRPC or a gRPC stream ([`crate::stream`]), and classifying its outcome.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use herald::proto::herald::v1::events_service_client::EventsServiceClient;
use herald::proto::herald::v1::trigger_event_status_enum::TriggerEventStatus;
use herald::proto::herald::v1::trigger_recipient::Kind;
use herald::proto::herald::v1::{TriggerEventRequest, TriggerEventResponse, TriggerRecipient};
use serde::Deserialize;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::{Channel, Endpoint};

use crate::args::Call;
use crate::stream::TriggerStreams;

/// One trigger to send.
#[derive(Debug, Clone)]
pub struct TriggerSpec {
    pub workflow: String,
    pub recipients: Vec<String>,
    pub transaction_id: String,
    pub n: u64,
    /// Filler text sent as the payload's `note` (left out when empty).
    pub note: Arc<str>,
}

/// Outcome of one trigger request: `Ok` when acknowledged, else the failure kind.
pub type Outcome = Result<(), String>;

/// A client of the trigger endpoint.
pub enum TriggerClient {
    Rest {
        http: reqwest::Client,
        endpoint: String,
        authorization: String,
        /// Sends each trigger's transactionId as its `Idempotency-Key`.
        keyed: bool,
    },
    Grpc {
        channels: Vec<EventsServiceClient<Channel>>,
        next: AtomicUsize,
        authorization: MetadataValue<Ascii>,
        keyed: bool,
    },
    /// Triggers over `StreamTriggerEvents` streams, one per connection.
    GrpcStream(TriggerStreams),
    /// A REST call whose answer is checked for its status only: `GET /v1/environments/me` with the key
    /// (200) or without it (401), or any `--call` (2xx). `{subscriber}` in the URL or body stands for
    /// the spec's first recipient.
    Call {
        http: reqwest::Client,
        method: reqwest::Method,
        url: String,
        body: Option<String>,
        authorization: Option<String>,
        /// The one status expected, or `None` for any 2xx.
        expected: Option<u16>,
    },
}

/// The answer body of `POST /v1/events/trigger` (the fields the load generator reads).
#[derive(Debug, Deserialize)]
struct RestAnswer {
    acknowledged: bool,
    #[serde(default)]
    status: Option<String>,
}

impl TriggerClient {
    /// A REST client of the trigger endpoint.
    pub fn rest(
        base_url: &str,
        api_key: &str,
        concurrency: usize,
        timeout: Duration,
        keyed: bool,
    ) -> anyhow::Result<Self> {
        let endpoint = format!("{}/v1/events/trigger", base_url.trim_end_matches('/'));
        Ok(Self::Rest {
            http: http_client(concurrency, timeout)?,
            endpoint,
            authorization: format!("ApiKey {api_key}"),
            keyed,
        })
    }

    /// A client of `GET /v1/environments/me`, authenticated with `api_key` (expects 200) or not
    /// (expects 401).
    pub fn read(base_url: &str, api_key: Option<&str>, concurrency: usize, timeout: Duration) -> anyhow::Result<Self> {
        let call = Call { method: "GET".into(), path: "/v1/environments/me".into() };
        let mut client = Self::call(base_url, &call, None, api_key, concurrency, timeout)?;
        if let Self::Call { expected, .. } = &mut client {
            *expected = Some(if api_key.is_some() { 200 } else { 401 });
        }
        Ok(client)
    }

    /// A client of `call` with `body`, answered 2xx.
    pub fn call(
        base_url: &str,
        call: &Call,
        body: Option<&str>,
        api_key: Option<&str>,
        concurrency: usize,
        timeout: Duration,
    ) -> anyhow::Result<Self> {
        Ok(Self::Call {
            http: http_client(concurrency, timeout)?,
            method: reqwest::Method::from_bytes(call.method.as_bytes())?,
            url: format!("{}{}", base_url.trim_end_matches('/'), call.path),
            body: body.map(str::to_owned),
            authorization: api_key.map(|key| format!("ApiKey {key}")),
            expected: None,
        })
    }

    /// A gRPC client over `connections` HTTP/2 connections, connected now so that an unreachable
    /// server fails before the run starts.
    pub async fn grpc(
        base_url: &str,
        api_key: &str,
        connections: usize,
        timeout: Duration,
        keyed: bool,
    ) -> anyhow::Result<Self> {
        let endpoint = Endpoint::from_shared(base_url.to_owned())?
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true);
        let mut channels = Vec::with_capacity(connections);
        for _ in 0..connections {
            let channel = endpoint.connect().await.with_context(|| format!("cannot connect to {base_url}"))?;
            channels.push(EventsServiceClient::new(channel));
        }
        let authorization = format!("ApiKey {api_key}").parse()?;
        Ok(Self::Grpc { channels, next: AtomicUsize::new(0), authorization, keyed })
    }

    /// Sends `spec` and classifies the answer.
    pub async fn send(&self, spec: &TriggerSpec) -> Outcome {
        match self {
            Self::Rest { http, endpoint, authorization, keyed } => {
                let mut request = http.post(endpoint).header(reqwest::header::AUTHORIZATION, authorization);
                if *keyed {
                    request = request.header("idempotency-key", &spec.transaction_id);
                }
                let response = request.json(&rest_body(spec)).send().await.map_err(|error| reqwest_failure(&error))?;
                let status = response.status();
                if !status.is_success() {
                    return Err(format!("HTTP {}", status.as_u16()));
                }
                let answer: RestAnswer = response.json().await.map_err(|error| reqwest_failure(&error))?;
                acknowledged(answer.acknowledged, answer.status.as_deref().unwrap_or("missing status"))
            }
            Self::Grpc { channels, next, authorization, keyed } => {
                let mut client = channels[next.fetch_add(1, Ordering::Relaxed) % channels.len()].clone();
                let mut request = tonic::Request::new(grpc_request(spec));
                request.metadata_mut().insert("authorization", authorization.clone());
                if *keyed {
                    let key = spec.transaction_id.parse().map_err(|_| "a transactionId that is no header value")?;
                    request.metadata_mut().insert("idempotency-key", key);
                }
                let answer =
                    client.trigger_event(request).await.map_err(|status| format!("gRPC {:?}", status.code()))?;
                grpc_outcome(&answer.into_inner())
            }
            Self::GrpcStream(streams) => grpc_outcome(&streams.send(spec).await?),
            Self::Call { http, method, url, body, authorization, expected } => {
                let subscriber = spec.recipients.first().map_or("", String::as_str);
                let mut request = http.request(method.clone(), url.replace("{subscriber}", subscriber));
                if let Some(authorization) = authorization {
                    request = request.header(reqwest::header::AUTHORIZATION, authorization);
                }
                if let Some(body) = body {
                    request = request
                        .header(reqwest::header::CONTENT_TYPE, "application/json")
                        .body(body.replace("{subscriber}", subscriber));
                }
                let response = request.send().await.map_err(|error| reqwest_failure(&error))?;
                let status = response.status().as_u16();
                // Read the body, so that the connection is reused.
                response.bytes().await.map_err(|error| reqwest_failure(&error))?;
                let as_expected = expected.map_or((200..300).contains(&status), |expected| status == expected);
                if as_expected {
                    Ok(())
                } else {
                    Err(format!("HTTP {status}"))
                }
            }
        }
    }
}

/// An HTTP/1.1 client with a connection pool as large as the concurrency.
fn http_client(concurrency: usize, timeout: Duration) -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .tcp_nodelay(true)
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(5))
        .build()?)
}

fn grpc_outcome(answer: &TriggerEventResponse) -> Outcome {
    let status = TriggerEventStatus::try_from(answer.status).map_or("unknown status", |s| s.as_str_name());
    acknowledged(answer.acknowledged, status)
}

fn acknowledged(acknowledged: bool, status: &str) -> Outcome {
    if acknowledged {
        Ok(())
    } else {
        Err(format!("not acknowledged: {status}"))
    }
}

fn reqwest_failure(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "timeout".into()
    } else if error.is_connect() {
        "connection error".into()
    } else if error.is_decode() {
        "invalid response body".into()
    } else {
        "transport error".into()
    }
}

/// REST body of `spec`: `to` is a plain subscriberId for one recipient, an array otherwise.
pub fn rest_body(spec: &TriggerSpec) -> serde_json::Value {
    let to = match spec.recipients.as_slice() {
        [one] => serde_json::json!(one),
        many => serde_json::json!(many),
    };
    let mut payload = serde_json::json!({"loadgen": true, "n": spec.n});
    if !spec.note.is_empty() {
        payload["note"] = serde_json::json!(&*spec.note);
    }
    serde_json::json!({
        "name": spec.workflow,
        "to": to,
        "payload": payload,
        "transactionId": spec.transaction_id,
    })
}

/// gRPC request of `spec`.
pub fn grpc_request(spec: &TriggerSpec) -> TriggerEventRequest {
    let note = (!spec.note.is_empty()).then(|| ("note".to_owned(), pbjson_types::Value::from(spec.note.to_string())));
    let payload: pbjson_types::Struct = [
        ("loadgen".to_owned(), pbjson_types::Value::from(true)),
        ("n".to_owned(), pbjson_types::Value::from(spec.n as f64)),
    ]
    .into_iter()
    .chain(note)
    .collect();
    TriggerEventRequest {
        name: spec.workflow.clone(),
        payload: Some(payload),
        to: spec.recipients.iter().map(|id| TriggerRecipient { kind: Some(Kind::SubscriberId(id.clone())) }).collect(),
        transaction_id: Some(spec.transaction_id.clone()),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(recipients: &[&str]) -> TriggerSpec {
        TriggerSpec {
            workflow: "welcome".into(),
            recipients: recipients.iter().map(|r| r.to_string()).collect(),
            transaction_id: "lg-x-3".into(),
            n: 3,
            note: "".into(),
        }
    }

    #[test]
    fn rest_body_uses_a_plain_string_for_one_recipient() {
        let body = rest_body(&spec(&["loadgen-3"]));
        assert_eq!(
            body,
            serde_json::json!({"name": "welcome", "to": "loadgen-3", "payload": {"loadgen": true, "n": 3}, "transactionId": "lg-x-3"})
        );
        assert_eq!(rest_body(&spec(&["a", "b"]))["to"], serde_json::json!(["a", "b"]));
    }

    #[test]
    fn a_note_pads_the_payload_of_both_protocols() {
        let padded = TriggerSpec { note: "xxxx".into(), ..spec(&["a"]) };
        assert_eq!(rest_body(&padded)["payload"], serde_json::json!({"loadgen": true, "n": 3, "note": "xxxx"}));
        assert_eq!(grpc_request(&padded).payload.unwrap().fields.len(), 3);
    }

    #[test]
    fn grpc_request_names_each_recipient() {
        let request = grpc_request(&spec(&["a", "b"]));
        assert_eq!(request.name, "welcome");
        assert_eq!(request.transaction_id.as_deref(), Some("lg-x-3"));
        let ids: Vec<_> = request
            .to
            .iter()
            .map(|r| match &r.kind {
                Some(Kind::SubscriberId(id)) => id.as_str(),
                _ => panic!("not a subscriberId"),
            })
            .collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(request.payload.unwrap().fields.len(), 2);
    }

    #[test]
    fn outcomes() {
        assert_eq!(acknowledged(true, "processed"), Ok(()));
        assert_eq!(acknowledged(false, "error"), Err("not acknowledged: error".into()));
        let answer: RestAnswer =
            serde_json::from_str(r#"{"acknowledged": true, "status": "processed", "transactionId": "t"}"#).unwrap();
        assert!(answer.acknowledged);
    }
}
