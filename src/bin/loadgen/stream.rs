//! Triggers over `herald.v1.EventsService/StreamTriggerEvents`: one stream per HTTP/2 connection, each
//! trigger sent on the next stream in turn. A stream answers in the order it was sent to, so each
//! stream keeps a queue of the triggers waiting for their answer, and its reader hands every answer
//! to the head of the queue.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use herald::proto::herald::v1::events_service_client::EventsServiceClient;
use herald::proto::herald::v1::{StreamTriggerEventsRequest, StreamTriggerEventsResponse, TriggerEventResponse};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Endpoint;
use tonic::Streaming;

use crate::client::{grpc_request, TriggerSpec};

/// A trigger's answer, or why there is none.
type Answered = Result<TriggerEventResponse, String>;

/// Open trigger streams.
pub struct TriggerStreams {
    streams: Vec<Arc<OpenStream>>,
    next: AtomicUsize,
    /// How long a trigger waits for its answer.
    timeout: Duration,
}

/// One stream: what is sent on it, and who waits for which answer.
struct OpenStream {
    state: Mutex<StreamState>,
}

struct StreamState {
    requests: mpsc::UnboundedSender<StreamTriggerEventsRequest>,
    /// One per trigger sent and not answered yet, in sending order.
    waiting: VecDeque<oneshot::Sender<Answered>>,
    /// Why the stream ended, once it has.
    ended: Option<String>,
}

impl TriggerStreams {
    /// Opens one stream on each of `connections` new HTTP/2 connections to `base_url`.
    pub async fn open(base_url: &str, api_key: &str, connections: usize, timeout: Duration) -> anyhow::Result<Self> {
        // No call timeout: a stream lasts the whole run; each trigger has its own.
        let endpoint =
            Endpoint::from_shared(base_url.to_owned())?.connect_timeout(Duration::from_secs(5)).tcp_nodelay(true);
        let authorization: MetadataValue<Ascii> = format!("ApiKey {api_key}").parse()?;
        let mut streams = Vec::with_capacity(connections);
        for _ in 0..connections {
            let channel = endpoint.connect().await.with_context(|| format!("cannot connect to {base_url}"))?;
            let (requests, outgoing) = mpsc::unbounded_channel();
            let mut request = tonic::Request::new(UnboundedReceiverStream::new(outgoing));
            request.metadata_mut().insert("authorization", authorization.clone());
            let answers = EventsServiceClient::new(channel)
                .stream_trigger_events(request)
                .await
                .context("the server refused the trigger stream")?
                .into_inner();
            let stream = Arc::new(OpenStream {
                state: Mutex::new(StreamState { requests, waiting: VecDeque::new(), ended: None }),
            });
            tokio::spawn(stream.clone().read_answers(answers));
            streams.push(stream);
        }
        Ok(Self { streams, next: AtomicUsize::new(0), timeout })
    }

    /// Sends `spec` on the next stream and waits for its answer.
    pub async fn send(&self, spec: &TriggerSpec) -> Answered {
        let stream = &self.streams[self.next.fetch_add(1, Ordering::Relaxed) % self.streams.len()];
        let answer = stream.send(StreamTriggerEventsRequest { event: Some(grpc_request(spec)) })?;
        match tokio::time::timeout(self.timeout, answer).await {
            Ok(Ok(answered)) => answered,
            Ok(Err(_)) => Err("stream reader gone".into()),
            Err(_) => Err("timeout".into()),
        }
    }
}

impl OpenStream {
    /// Queues the answer's place and sends the request, under one lock: the queue's order is the
    /// stream's.
    fn send(&self, request: StreamTriggerEventsRequest) -> Result<oneshot::Receiver<Answered>, String> {
        let mut state = self.state.lock().expect("never poisoned");
        if let Some(ended) = &state.ended {
            return Err(ended.clone());
        }
        let (answer, answered) = oneshot::channel();
        state.requests.send(request).map_err(|_| "stream closed".to_owned())?;
        state.waiting.push_back(answer);
        Ok(answered)
    }

    /// Hands each answer to the trigger at the head of the queue; when the stream ends, every trigger
    /// still waiting (and every later one) fails with its reason.
    async fn read_answers(self: Arc<Self>, mut answers: Streaming<StreamTriggerEventsResponse>) {
        let ended = loop {
            match answers.message().await {
                Ok(Some(answer)) => {
                    let waiter = self.state.lock().expect("never poisoned").waiting.pop_front();
                    let answered = answer.result.ok_or_else(|| "an answer without a result".to_owned());
                    if let Some(waiter) = waiter {
                        let _ = waiter.send(answered);
                    }
                }
                Ok(None) => break "stream ended".to_owned(),
                Err(status) => break format!("gRPC {:?}", status.code()),
            }
        };
        let mut state = self.state.lock().expect("never poisoned");
        for waiter in state.waiting.drain(..) {
            let _ = waiter.send(Err(ended.clone()));
        }
        state.ended = Some(ended);
    }
}
