//! `StreamTriggerEvents`: one answer per trigger in stream order, a refused trigger answered alone and
//! the stream going on, a transactionId claimed by the first trigger sent with it, the rate limit pacing
//! rather than refusing, a key that stops resolving ending the stream, the drain ending it UNAVAILABLE
//! after answering what it read, and no idempotency key.

use std::time::{Duration, Instant};

use herald::config::RateLimitSettings;
use herald::proto::herald::v1 as pb;
use pb::events_service_client::EventsServiceClient;
use pb::trigger_event_status_enum::TriggerEventStatus;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Streaming};

use super::fixtures::*;
use crate::support::TestServer;

/// An open trigger stream: triggers go in by `sender`, answers come out of `answers`.
struct TriggerStream {
    sender: mpsc::Sender<pb::StreamTriggerEventsRequest>,
    answers: Streaming<pb::StreamTriggerEventsResponse>,
}

impl TriggerStream {
    async fn open(server: &TestServer) -> Self {
        Self::open_with(server, server.grpc_request(())).await.expect("the stream opens")
    }

    /// Opens a stream with `metadata`'s metadata.
    async fn open_with(server: &TestServer, metadata: tonic::Request<()>) -> Result<Self, tonic::Status> {
        let (sender, requests) = mpsc::channel(2_000);
        let mut request = tonic::Request::new(ReceiverStream::new(requests));
        *request.metadata_mut() = metadata.metadata().clone();
        let mut client = EventsServiceClient::new(server.grpc_channel().await);
        let answers = client.stream_trigger_events(request).await?.into_inner();
        Ok(Self { sender, answers })
    }

    async fn send(&self, event: pb::TriggerEventRequest) {
        self.sender.send(pb::StreamTriggerEventsRequest { event: Some(event) }).await.expect("the stream is open");
    }

    /// The next answer, or the status the stream ended with.
    async fn answer(&mut self) -> Result<Option<pb::TriggerEventResponse>, tonic::Status> {
        let answer = tokio::time::timeout(Duration::from_secs(30), self.answers.message()).await.expect("answered");
        answer.map(|answer| answer.map(|answer| answer.result.expect("a result")))
    }

    async fn answers(&mut self, count: usize) -> Vec<pb::TriggerEventResponse> {
        let mut answers = Vec::with_capacity(count);
        for _ in 0..count {
            answers.push(self.answer().await.expect("no error").expect("an answer"));
        }
        answers
    }
}

fn trigger(workflow: &str, to: &str, transaction_id: &str) -> pb::TriggerEventRequest {
    pb::TriggerEventRequest {
        name: workflow.into(),
        to: vec![pb::TriggerRecipient { kind: Some(pb::trigger_recipient::Kind::SubscriberId(to.into())) }],
        transaction_id: Some(transaction_id.into()),
        ..Default::default()
    }
}

fn status(answer: &pb::TriggerEventResponse) -> TriggerEventStatus {
    TriggerEventStatus::try_from(answer.status).expect("a known status")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_answers_each_trigger_in_order_and_a_refused_one_alone() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let mut stream = TriggerStream::open(&server).await;
    let mut sent = Vec::new();
    for n in 0..300 {
        let mut event = trigger("live", &format!("s{n}"), &format!("t{n}"));
        match n {
            5 => event.name = "missing".into(),
            7 => event.to.clear(),
            // PostgreSQL's jsonb refuses a NUL character, after every earlier check has passed.
            10 => {
                event.payload = Some(pbjson_types::Struct::from_iter([(
                    "text".to_owned(),
                    pbjson_types::Value::from("a\u{0}b".to_owned()),
                )]))
            }
            12 => event.transaction_id = Some("t3".into()),
            // Over the API's bounds for an identifier.
            14 => event.transaction_id = Some("x".repeat(300)),
            _ => {}
        }
        sent.push(event.clone());
        stream.send(event).await;
    }
    let answers = stream.answers(300).await;

    for (n, answer) in answers.iter().enumerate() {
        let expected = match n {
            5 | 10 | 12 | 14 => TriggerEventStatus::Error,
            7 => TriggerEventStatus::InvalidRecipients,
            _ => TriggerEventStatus::Processed,
        };
        assert_eq!(status(answer), expected, "answer {n}: {answer:?}");
        if expected == TriggerEventStatus::Processed {
            assert_eq!(answer.transaction_id, sent[n].transaction_id, "answer {n} is the answer to trigger {n}");
        }
    }
    assert!(answers[5].error[0].contains("workflow_not_found"), "{:?}", answers[5]);
    assert!(answers[10].error[0].contains("NUL"), "{:?}", answers[10]);
    assert!(answers[12].error[0].contains("already used"), "{:?}", answers[12]);
    assert!(answers[14].error[0].contains("transactionId"), "{:?}", answers[14]);
    assert_eq!(count(&server, "notifications").await, 295);
    assert_eq!(count(&server, "notifications WHERE transaction_id = 't3'").await, 1);
    assert_eq!(count(&server, "subscribers WHERE subscriber_id IN ('s10', 's12', 's14')").await, 0);

    // The client ends its side: the stream ends OK, with nothing left unanswered.
    drop(stream.sender);
    assert_eq!(stream.answers.message().await.expect("ended OK"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn triggers_giving_one_transaction_id_run_in_stream_order() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "warm", json!([in_app_step()])).await;
    let mut stream = TriggerStream::open(&server).await;
    // `warm` is read once and cached; each `cold-n` is read from the database by the trigger naming it,
    // so a `warm` trigger sent right after it would be checked first if they ran together.
    stream.send(trigger("warm", "first", "warm-up")).await;
    assert_eq!(status(&stream.answers(1).await[0]), TriggerEventStatus::Processed);
    for n in 0..20 {
        create_workflow(&server, &format!("cold-{n}"), json!([in_app_step()])).await;
    }
    for n in 0..20 {
        stream.send(trigger(&format!("cold-{n}"), "ada", &format!("pair-{n}"))).await;
        stream.send(trigger("warm", "bob", &format!("pair-{n}"))).await;
    }
    let answers = stream.answers(40).await;
    for (n, pair) in answers.chunks(2).enumerate() {
        assert_eq!(status(&pair[0]), TriggerEventStatus::Processed, "pair {n}: {pair:?}");
        assert_eq!(status(&pair[1]), TriggerEventStatus::Error, "pair {n}: {pair:?}");
        assert!(pair[1].error[0].contains("already used"), "pair {n}: {pair:?}");
    }
    assert_eq!(
        count(&server, "notifications n JOIN subscribers s ON s.id = n.subscriber_id WHERE s.subscriber_id = 'ada'")
            .await,
        20
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rate_limit_paces_a_stream_instead_of_refusing_its_triggers() {
    let server = TestServer::start_with_rate_limits(RateLimitSettings { triggers: 20, writes: 0, reads: 0 }).await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let mut stream = TriggerStream::open(&server).await;
    let started = Instant::now();
    for n in 0..60 {
        stream.send(trigger("live", &format!("s{n}"), &format!("t{n}"))).await;
    }
    let answers = stream.answers(60).await;
    // A burst of 20, then 40 more at 20 a second.
    let elapsed = started.elapsed();
    assert!(answers.iter().all(|answer| status(answer) == TriggerEventStatus::Processed), "{answers:?}");
    assert!(elapsed >= Duration::from_millis(1_800), "60 triggers at 20/s answered in {elapsed:?}");
    // The stream took the environment's tokens: a call right after it is refused.
    let mut client = EventsServiceClient::new(server.grpc_channel().await);
    let refused = client.trigger_event(server.grpc_request(trigger("live", "late", "late"))).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_that_no_longer_resolves_ends_the_stream_after_its_answers() {
    let server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let mut stream = TriggerStream::open(&server).await;
    stream.send(trigger("live", "before", "before")).await;
    assert_eq!(status(&stream.answers(1).await[0]), TriggerEventStatus::Processed);
    let mut conn = server.pool.get().await.unwrap();
    diesel_async::RunQueryDsl::execute(diesel::sql_query("DELETE FROM api_keys"), &mut conn).await.unwrap();
    // The key cache trusts a resolved key for 30 seconds; the stream resolves it again each second.
    let deadline = Instant::now() + Duration::from_secs(45);
    let mut processed_after = 0;
    let ended = loop {
        assert!(Instant::now() < deadline, "the stream still accepts triggers after the key was removed");
        stream.send(trigger("live", "after", &format!("after-{processed_after}"))).await;
        match stream.answer().await {
            Ok(Some(answer)) => {
                assert_eq!(status(&answer), TriggerEventStatus::Processed);
                processed_after += 1;
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Ok(None) => panic!("the stream ended OK"),
            Err(status) => break status,
        }
    };
    assert_eq!(ended.code(), Code::Unauthenticated, "{ended:?}");
    assert_eq!(ended.message(), "API Key not found");
    assert_eq!(count(&server, "notifications").await, 1 + processed_after);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_drain_ends_a_stream_unavailable_after_answering_what_it_read() {
    let mut server = TestServer::start_api_only().await;
    create_workflow(&server, "live", json!([in_app_step()])).await;
    let mut stream = TriggerStream::open(&server).await;
    for n in 0..50 {
        stream.send(trigger("live", &format!("s{n}"), &format!("t{n}"))).await;
    }
    let answers = stream.answers(50).await;
    assert!(answers.iter().all(|answer| status(answer) == TriggerEventStatus::Processed), "{answers:?}");
    // The client keeps its side open; the server's drain ends the stream.
    let (ended, ()) = tokio::join!(stream.answer(), server.shutdown());
    let ended = ended.expect_err("the stream ends with an error");
    assert_eq!(ended.code(), Code::Unavailable, "{ended:?}");
    assert!(ended.message().contains("send the unanswered triggers again"), "{ended:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_is_opened_with_a_key_and_without_an_idempotency_key() {
    let server = TestServer::start_api_only().await;
    let unauthenticated = TriggerStream::open_with(&server, tonic::Request::new(())).await.err().expect("refused");
    assert_eq!(unauthenticated.code(), Code::Unauthenticated, "{unauthenticated:?}");
    let mut keyed = server.grpc_request(());
    keyed.metadata_mut().insert("idempotency-key", "k-1".parse().unwrap());
    let refused = TriggerStream::open_with(&server, keyed).await.err().expect("refused");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(refused.message().contains("transactionId is its key"), "{refused:?}");
}
