//! No server-side request forgery: a server started without the tests' loopback allowance (the production
//! default) refuses every URL an API client gave it that leads to a non-global address, whichever way it
//! gets there (a subscriber's webhook, an integration's `baseUrl`, a custom step's url, a host name that
//! resolves there, a redirect), over IPv4 and IPv6. The receiver behind a refused URL gets no request, the
//! message fails at once with a detail naming the address and the setting, and what the operator allows
//! passes.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixtures::{
    create_integration, create_workflow, details, events_of, job, messages_of, trigger_processed, wait_until_settled,
};
use super::receiver::Receiver;
use crate::support::TestServer;

fn refusal(address: &str, range: &str) -> String {
    format!("destination {address} is in the loopback range {range}; allow it with HERALD_OUTBOUND_ALLOW")
}

/// A chat-webhook integration, a workflow `notify` of one chat step and Ada, whose webhook is `url`.
async fn chat_to_webhook(server: &TestServer, url: &str) {
    create_integration(
        server,
        json!({"providerId": "chat-webhook", "channel": "chat", "identifier": "chat-hook", "active": true}),
    )
    .await;
    let chat = json!({"name": "Chat", "type": "chat", "controlValues": {"body": "Order {{ payload.orderId }}"}});
    create_workflow(server, "notify", json!([chat])).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");
    set_webhook(server, url).await;
}

/// A server under `outbound_allow`, receivers on 127.0.0.1 and [::1], and Ada's webhook at the first.
async fn webhook_on_receivers(outbound_allow: &str) -> (TestServer, Receiver, Receiver) {
    let server = TestServer::start_with_outbound_allow(outbound_allow).await;
    let (v4, v6) = (Receiver::start().await, Receiver::start_on("[::1]:0").await);
    chat_to_webhook(&server, &v4.url("/hook")).await;
    (server, v4, v6)
}

async fn set_webhook(server: &TestServer, url: &str) {
    let update = json!({"providerId": "chat-webhook", "credentials": {"webhookUrl": url}});
    let (status, body) = server.send_json(Method::PATCH, "/v1/subscribers/ada/credentials", &update).await;
    assert_eq!(status, 200, "{body}");
}

/// Triggers `notify` to Ada and waits for its jobs; returns the transaction id.
async fn notify_ada(server: &TestServer) -> String {
    let transaction_id =
        trigger_processed(server, json!({"name": "notify", "to": "ada", "payload": {"orderId": "O-1"}})).await;
    wait_until_settled(server).await;
    transaction_id
}

/// The transaction's one message failed at once (one attempt, no retry) with `expected` in its error.
async fn assert_failed_with(server: &TestServer, transaction_id: &str, kind: &str, expected: &str) -> Value {
    let message = messages_of(server, transaction_id).await[0].clone();
    assert_eq!(message["status"], "error", "{message}");
    assert!(message["errorText"].as_str().unwrap_or_default().contains(expected), "{expected} in {message}");
    let job = job(&events_of(server, transaction_id).await[0], kind).clone();
    assert_eq!(job["status"], "failed", "{job}");
    let details = details(&job);
    assert!(details.iter().any(|detail| detail.contains(expected)), "{expected} in {details:?}");
    assert!(!details.iter().any(|detail| detail.contains("retrying")), "refused once, not retried: {details:?}");
    message
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscribers_webhook_on_loopback_is_refused_over_ipv4_and_ipv6() {
    let (server, v4, v6) = webhook_on_receivers("").await;

    let refused_v4 = notify_ada(&server).await;
    let message = assert_failed_with(&server, &refused_v4, "chat", &refusal("127.0.0.1", "127.0.0.0/8")).await;
    assert_eq!(message["errorId"], "provider_error", "{message}");

    set_webhook(&server, &v6.url("/hook")).await;
    let refused_v6 = notify_ada(&server).await;
    assert_failed_with(&server, &refused_v6, "chat", &refusal("::1", "::1/128")).await;

    // An IPv4 address written as IPv6 is the same address.
    set_webhook(&server, &format!("http://[::ffff:127.0.0.1]:{}/hook", v4.addr.port())).await;
    let mapped = notify_ada(&server).await;
    assert_failed_with(&server, &mapped, "chat", &refusal("::ffff:127.0.0.1", "127.0.0.0/8")).await;

    assert!(v4.received().is_empty() && v6.received().is_empty(), "no request reached a receiver");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_name_that_resolves_to_loopback_is_refused() {
    let server = TestServer::start_with_outbound_allow("").await;
    let receiver = Receiver::start().await;
    chat_to_webhook(&server, &format!("http://localhost:{}/hook", receiver.addr.port())).await;

    let transaction_id = notify_ada(&server).await;

    // Whichever of 127.0.0.1 and ::1 the name resolves to first is named.
    let message = assert_failed_with(&server, &transaction_id, "chat", "destination localhost (").await;
    let text = message["errorText"].as_str().unwrap();
    assert!(
        text.contains("is in the loopback range") && text.ends_with("allow it with HERALD_OUTBOUND_ALLOW"),
        "{text}"
    );
    assert!(receiver.received().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_integration_base_url_on_loopback_is_refused_over_ipv4_and_ipv6() {
    for (receiver, address, range) in
        [(Receiver::start().await, "127.0.0.1", "127.0.0.0/8"), (Receiver::start_on("[::1]:0").await, "::1", "::1/128")]
    {
        let server = TestServer::start_with_outbound_allow("").await;
        create_integration(
            &server,
            json!({"providerId": "sendgrid", "channel": "email", "identifier": "sendgrid", "active": true,
                   "credentials": {"apiKey": "SG.test", "from": "shop@example.com", "baseUrl": receiver.url("")}}),
        )
        .await;
        let email = json!({"name": "Mail", "type": "email", "controlValues": {"subject": "Hi", "body": "<p>Hi</p>"}});
        create_workflow(&server, "notify", json!([email])).await;
        let subscriber = json!({"subscriberId": "ada", "email": "ada@example.com"});
        let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &subscriber).await;
        assert_eq!(status, 201, "{body}");

        let transaction_id = notify_ada(&server).await;

        assert_failed_with(&server, &transaction_id, "email", &refusal(address, range)).await;
        assert!(receiver.received().is_empty(), "{address}: no request reached the receiver");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_custom_step_url_on_loopback_is_refused_over_ipv4_and_ipv6() {
    let server = TestServer::start_with_outbound_allow("").await;
    let (v4, v6) = (Receiver::start().await, Receiver::start_on("[::1]:0").await);
    let steps = json!([
        {"name": "Score v4", "type": "custom", "controlValues": {"url": v4.url("/score")}},
    ]);
    create_workflow(&server, "score-v4", steps).await;
    let steps = json!([
        {"name": "Score v6", "type": "custom", "controlValues": {"url": v6.url("/score")}},
    ]);
    create_workflow(&server, "score-v6", steps).await;
    let (status, body) = server.send_json(Method::POST, "/v2/subscribers", &json!({"subscriberId": "ada"})).await;
    assert_eq!(status, 201, "{body}");

    for (workflow, address, range) in [("score-v4", "127.0.0.1", "127.0.0.0/8"), ("score-v6", "::1", "::1/128")] {
        let transaction_id = trigger_processed(&server, json!({"name": workflow, "to": "ada"})).await;
        wait_until_settled(&server).await;

        let custom = job(&events_of(&server, &transaction_id).await[0], "custom").clone();
        assert_eq!(custom["status"], "failed", "{custom}");
        let expected = format!("The custom step's url is refused: {}", refusal(address, range));
        assert!(details(&custom).contains(&expected), "{expected} in {custom}");
    }
    assert!(v4.received().is_empty() && v6.received().is_empty(), "no request reached a receiver");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_from_an_allowed_receiver_to_a_refused_address_is_not_followed() {
    // Only 127.0.0.1 is allowed: the redirects point at 127.0.0.2 and ::1, which are not.
    let server = TestServer::start_with_outbound_allow("127.0.0.1/32").await;
    let allowed = Receiver::start().await;
    let (other_v4, v6) = (Receiver::start_on("127.0.0.2:0").await, Receiver::start_on("[::1]:0").await);
    chat_to_webhook(&server, &allowed.url("/hook")).await;

    for target in [&other_v4, &v6] {
        allowed.redirect_next(&target.url("/hook"));
        let transaction_id = notify_ada(&server).await;
        assert_failed_with(&server, &transaction_id, "chat", "HTTP 302 Found from 127.0.0.1").await;
    }

    assert_eq!(allowed.received().len(), 2, "the allowed receiver was asked");
    assert!(other_v4.received().is_empty() && v6.received().is_empty(), "no redirect was followed");
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_operator_allows_passes_by_range_or_by_host_name() {
    let (server, v4, v6) = webhook_on_receivers("127.0.0.1/32, ::1/128").await;
    let sent = notify_ada(&server).await;
    assert_eq!(messages_of(&server, &sent).await[0]["status"], "sent");
    set_webhook(&server, &v6.url("/hook")).await;
    let sent = notify_ada(&server).await;
    assert_eq!(messages_of(&server, &sent).await[0]["status"], "sent");
    assert_eq!((v4.received().len(), v6.received().len()), (1, 1));

    // Allowed by name: the name's addresses are not checked.
    let by_name = TestServer::start_with_outbound_allow("localhost").await;
    let receiver = Receiver::start().await;
    chat_to_webhook(&by_name, &format!("http://localhost:{}/hook", receiver.addr.port())).await;
    let sent = notify_ada(&by_name).await;
    assert_eq!(messages_of(&by_name, &sent).await[0]["status"], "sent");
    assert_eq!(receiver.received().len(), 1);
}
