//! The inbox's real-time events over Server-Sent Events (and gRPC): received and changed events with
//! exact counts, resume with Last-Event-ID, reset past the retained log, isolation between
//! subscribers, the token's checks, and delivery across processes. Messages come from real triggers
//! run by the workers, which write the events.

use std::time::Duration;

use herald::domain::inbox::{InboxSubscriber, SessionTokens};
use herald::domain::tenancy::Tenant;
use herald::proto::herald::v1 as pb;
use pb::inbox_event_kind_enum::InboxEventKind;
use reqwest::Method;
use serde_json::{json, Value};

use super::Inbox;
use crate::engine::fixtures::{trigger_processed, wait_until_settled};
use crate::support::TestServer;

/// Longest wait for an event that must come.
const PATIENCE: Duration = Duration::from_secs(15);

/// One Server-Sent Event.
#[derive(Debug)]
pub(super) struct Sse {
    pub(super) id: String,
    pub(super) event: String,
    pub(super) data: Value,
}

/// An open `GET /v1/inbox/events`, read event by event (keep-alive comments skipped). A plain
/// client: the tests' contract-checking one reads whole bodies, and a stream never ends.
pub(super) struct EventStream {
    response: reqwest::Response,
    buffer: String,
}

impl EventStream {
    /// Opens the stream with the token in the query (as `EventSource` does) or in the header.
    pub(super) async fn open(
        server: &TestServer,
        token: &str,
        last_event_id: Option<&str>,
        token_in_query: bool,
    ) -> Self {
        let response = request(server, token, last_event_id, token_in_query).await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Self { response, buffer: String::new() }
    }

    pub(super) async fn next(&mut self) -> Sse {
        tokio::time::timeout(PATIENCE, self.read()).await.expect("an event within the patience")
    }

    async fn read(&mut self) -> Sse {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = Sse { id: String::new(), event: String::new(), data: Value::Null };
                for line in block.lines() {
                    match line.split_once(':') {
                        Some(("id", value)) => event.id = value.trim().to_string(),
                        Some(("event", value)) => event.event = value.trim().to_string(),
                        Some(("data", value)) => event.data = serde_json::from_str(value.trim()).expect("JSON data"),
                        _ => {}
                    }
                }
                if !event.event.is_empty() {
                    return event;
                }
            }
            let chunk = self.response.chunk().await.expect("the stream reads").expect("the stream stays open");
            self.buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    }
}

async fn request(
    server: &TestServer,
    token: &str,
    last_event_id: Option<&str>,
    token_in_query: bool,
) -> reqwest::Response {
    let client = reqwest::Client::new();
    let mut request = if token_in_query {
        client.get(server.url(&format!("/v1/inbox/events?token={token}")))
    } else {
        client.get(server.url("/v1/inbox/events")).header("authorization", format!("Bearer {token}"))
    };
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id);
    }
    request.send().await.expect("the request is sent")
}

/// Triggers the inbox's workflow (one in-app step, body `Order <order> for <first name>`) for
/// `subscriber_id`; the workers run it.
pub(super) async fn ship(inbox: &Inbox, subscriber_id: &str, order: &str) {
    let body =
        json!({"name": inbox.flow["workflowId"], "to": {"subscriberId": subscriber_id}, "payload": {"orderId": order}});
    trigger_processed(&inbox.server, body).await;
}

/// [`ship`], then waits until it is written (so that several arrive in order).
async fn ship_and_settle(inbox: &Inbox, subscriber_id: &str, order: &str) {
    ship(inbox, subscriber_id, order).await;
    wait_until_settled(&inbox.server).await;
}

pub(super) fn counts(event: &Sse) -> (i64, i64) {
    (event.data["unreadCount"].as_i64().unwrap(), event.data["unseenCount"].as_i64().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_trigger_arrives_as_received_and_a_read_as_changed_each_with_the_exact_counts() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    let mut stream = EventStream::open(&inbox.server, &token, None, true).await;
    let opening = stream.next().await;
    assert_eq!((opening.event.as_str(), opening.id.as_str(), counts(&opening)), ("counts", "0", (0, 0)));

    ship(&inbox, "ada", "A-1").await;
    let received = stream.next().await;
    assert_eq!((received.event.as_str(), received.id.as_str(), counts(&received)), ("received", "1", (1, 1)));
    let notification = &received.data["notification"];
    assert_eq!(notification["body"], "Order A-1 for Ada");
    assert_eq!((&notification["isRead"], &notification["channelType"]), (&json!(false), &json!("in_app")));
    assert_eq!(received.data["kind"], "received");

    ship(&inbox, "ada", "A-2").await;
    assert_eq!(counts(&stream.next().await), (2, 2));
    let id = notification["id"].as_str().unwrap();
    let (status, _) = inbox.call(&token, Method::PATCH, &format!("/v1/inbox/notifications/{id}/read"), None).await;
    assert_eq!(status, 200);
    let changed = stream.next().await;
    assert_eq!((changed.event.as_str(), changed.id.as_str(), counts(&changed)), ("changed", "3", (1, 1)));
    assert_eq!(changed.data["change"], "read");
    assert_eq!(
        (&changed.data["notification"]["id"], &changed.data["notification"]["isRead"]),
        (&json!(id), &json!(true))
    );

    // The server API's mark-as changes the same rows, and says so on the stream too.
    let body = json!({"messageId": id, "markAs": "unread"});
    let (status, answer) =
        inbox.env.send(&inbox.server, Method::POST, "/v1/subscribers/ada/messages/mark-as", Some(&body)).await;
    assert_eq!(status, 201, "{answer}");
    let changed = stream.next().await;
    // Unread again, but still seen.
    assert_eq!((changed.id.as_str(), changed.data["change"].as_str(), counts(&changed)), ("4", Some("unread"), (2, 1)));
}

#[tokio::test(flavor = "multi_thread")]
async fn reconnecting_with_last_event_id_replays_exactly_the_missed_events_in_order_then_live_ones() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    let mut stream = EventStream::open(&inbox.server, &token, None, false).await;
    stream.next().await;
    ship(&inbox, "ada", "A-1").await;
    let first = stream.next().await;
    assert_eq!(first.id, "1");
    drop(stream);

    // While disconnected: two arrivals and a read-all.
    ship_and_settle(&inbox, "ada", "A-2").await;
    ship_and_settle(&inbox, "ada", "A-3").await;
    let (status, _) = inbox.call(&token, Method::POST, "/v1/inbox/notifications/read", Some(&json!({}))).await;
    assert_eq!(status, 204);

    let mut stream = EventStream::open(&inbox.server, &token, Some(&first.id), true).await;
    let mut missed = Vec::new();
    for _ in 0..5 {
        let event = stream.next().await;
        missed.push((
            event.id,
            event.event,
            event.data["notification"]["body"].as_str().unwrap().to_string(),
            event.data["unreadCount"].as_i64().unwrap(),
        ));
    }
    // The read-all's three events carry the counts after its commit: nothing unread.
    let expected = [
        ("2", "received", "Order A-2 for Ada", 2),
        ("3", "received", "Order A-3 for Ada", 3),
        ("4", "changed", "", 0),
        ("5", "changed", "", 0),
        ("6", "changed", "", 0),
    ];
    for (got, want) in missed.iter().zip(expected) {
        assert_eq!((got.0.as_str(), got.1.as_str(), got.3), (want.0, want.1, want.3), "{missed:?}");
        if !want.2.is_empty() {
            assert_eq!(got.2, want.2);
        }
    }
    ship(&inbox, "ada", "A-4").await;
    let live = stream.next().await;
    assert_eq!((live.id.as_str(), live.event.as_str(), counts(&live)), ("7", "received", (1, 1)));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_id_past_the_retained_log_gets_a_reset_with_the_current_counts() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    ship_and_settle(&inbox, "ada", "A-1").await;
    ship_and_settle(&inbox, "ada", "A-2").await;

    // An id this subscriber never reached.
    let mut stream = EventStream::open(&inbox.server, &token, Some("99"), true).await;
    let reset = stream.next().await;
    assert_eq!((reset.event.as_str(), reset.id.as_str(), counts(&reset)), ("reset", "2", (2, 2)));
    drop(stream);

    // The retention sweep deletes the log (and the notifications) of its age.
    let cutoff = chrono::Utc::now() + chrono::Duration::seconds(1);
    herald::engine::retention::sweep(&inbox.server.pool, cutoff).await.unwrap();
    let mut stream = EventStream::open(&inbox.server, &token, Some("1"), true).await;
    let reset = stream.next().await;
    assert_eq!((reset.event.as_str(), reset.id.as_str(), counts(&reset)), ("reset", "2", (0, 0)));
    // Resuming from the latest id needs nothing replayed: the next event is the next one.
    drop(stream);
    let mut stream = EventStream::open(&inbox.server, &token, Some("2"), true).await;
    ship(&inbox, "ada", "A-3").await;
    let live = stream.next().await;
    assert_eq!((live.event.as_str(), live.id.as_str()), ("received", "3"));
}

#[tokio::test(flavor = "multi_thread")]
async fn another_subscribers_stream_never_sees_the_events() {
    let inbox = Inbox::start(json!({})).await;
    let mut bobs = EventStream::open(&inbox.server, &inbox.token("bob").await, None, true).await;
    assert_eq!(bobs.next().await.event, "counts");
    ship_and_settle(&inbox, "ada", "A-1").await;
    ship(&inbox, "bob", "B-1").await;
    let event = bobs.next().await;
    assert_eq!(event.id, "1");
    assert!(event.data["notification"]["body"].as_str().unwrap().starts_with("Order B-1"), "{:?}", event.data);
    assert_eq!(event.data["notification"]["to"]["subscriberId"], "bob");
    // The workflow the event's notification names, as the list shows it.
    let notification = &event.data["notification"];
    assert_eq!((&notification["tags"], &notification["severity"]), (&json!(["orders"]), &json!("high")));
    assert_eq!(notification["workflow"]["identifier"], inbox.flow["workflowId"]);
    assert_eq!(notification["workflow"]["name"], "Order shipped");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_or_expired_token_is_a_401_in_the_query_and_in_the_header() {
    let inbox = Inbox::start(json!({})).await;
    let ada = InboxSubscriber {
        tenant: Tenant { organization_id: inbox.env.organization_id, environment_id: inbox.env.environment_id },
        id: uuid::Uuid::parse_str(inbox.ada["_id"].as_str().unwrap()).unwrap(),
        subscriber_id: "ada".into(),
    };
    let issued = chrono::Utc::now() - chrono::Duration::hours(2);
    let (expired, _) = SessionTokens::new(&inbox.server.cipher).issue(&ada, issued);
    let (forged, _) = SessionTokens::new(&herald::crypto::CredentialCipher::random()).issue(&ada, chrono::Utc::now());
    for token in [expired, forged] {
        for in_query in [true, false] {
            let response = request(&inbox.server, &token, None, in_query).await;
            assert_eq!(response.status(), 401);
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["path"], "/v1/inbox/events");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_written_by_a_worker_process_reaches_the_stream_held_by_an_api_process() {
    let inbox = Inbox::on(TestServer::start_api_only().await, json!({})).await;
    let mut stream = EventStream::open(&inbox.server, &inbox.token("ada").await, None, true).await;
    assert_eq!(stream.next().await.event, "counts");
    ship(&inbox, "ada", "A-1").await;
    // The API process runs no worker: the message is written by the other process.
    let _worker = inbox.server.start_worker_process().await;
    let received = stream.next().await;
    assert_eq!((received.event.as_str(), received.id.as_str(), counts(&received)), ("received", "1", (1, 1)));
    assert_eq!(received.data["notification"]["body"], "Order A-1 for Ada");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_hears_of_events_written_while_its_processs_listener_was_cut_off() {
    let inbox = Inbox::on(TestServer::start_api_only().await, json!({})).await;
    let mut stream = EventStream::open(&inbox.server, &inbox.token("ada").await, None, true).await;
    assert_eq!(stream.next().await.event, "counts");
    let _worker = inbox.server.start_worker_process().await;
    let cut = inbox.server.terminate_connections_whose_last_query_starts_with("LISTEN \"herald_inbox_").await;
    assert_eq!(cut, 1, "the API process listens on one connection");
    // Written by the worker process while the API process's listener reconnects: its NOTIFY may reach
    // no one. The listener wakes its streams once it listens again, well before their 30 s poll.
    ship(&inbox, "ada", "A-1").await;
    let received = stream.next().await;
    assert_eq!((received.event.as_str(), received.id.as_str(), counts(&received)), ("received", "1", (1, 1)));
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_streams_the_same_events_and_resumes_from_the_last_id() {
    let inbox = Inbox::start(json!({})).await;
    let token = inbox.token("ada").await;
    ship_and_settle(&inbox, "ada", "A-1").await;
    ship_and_settle(&inbox, "ada", "A-2").await;
    let mut client = pb::inbox_service_client::InboxServiceClient::new(inbox.server.grpc_channel().await);
    let mut request = tonic::Request::new(pb::StreamInboxEventsRequest { last_event_id: Some(1) });
    request.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    // A client that keys every call: a stream is a read, and its answer is never stored.
    request.metadata_mut().insert("idempotency-key", "every-call-keyed".parse().unwrap());
    let mut stream = client.stream_inbox_events(request).await.unwrap().into_inner();
    let next = tokio::time::timeout(PATIENCE, stream.message()).await.unwrap().unwrap().unwrap();
    let event = next.event.unwrap();
    assert_eq!((event.id, event.kind(), event.unread_count, event.unseen_count), (2, InboxEventKind::Received, 2, 2));
    assert_eq!(event.notification.unwrap().body, "Order A-2 for Ada");
    ship(&inbox, "ada", "A-3").await;
    let live = tokio::time::timeout(PATIENCE, stream.message()).await.unwrap().unwrap().unwrap().event.unwrap();
    assert_eq!((live.id, live.unread_count), (3, 3));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stopping_server_ends_its_streams_instead_of_waiting_out_the_drain() {
    let mut inbox = Inbox::start(json!({})).await;
    let mut stream = EventStream::open(&inbox.server, &inbox.token("ada").await, None, true).await;
    assert_eq!(stream.next().await.event, "counts");
    // The drain waits 30 seconds for open requests: the stream ends well before.
    let ended = async { while stream.response.chunk().await.expect("the stream reads").is_some() {} };
    let (_, ended) = tokio::join!(inbox.server.shutdown(), tokio::time::timeout(PATIENCE, ended));
    assert!(ended.is_ok(), "the stream ended when the server began stopping");
}
