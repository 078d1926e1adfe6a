use std::time::Duration;

use axum::http::Version;
use futures_util::future::join_all;
use herald::providers::{DeviceAnswer, ProviderError, Providers};
use serde_json::json;

use super::{push, send};
use crate::fakes::fcm::{
    self, bad_field, internal, oauth_error, quota_exceeded, sender_id_mismatch, third_party_auth_error,
    unauthenticated, unavailable, unregistered, Fcm, PROJECT_ID,
};
use crate::fakes::FakeAnswer;

/// Sends through one adapter set, as the engine does: its token cache lives as long as it does.
async fn send_each(providers: &Providers, delivery: &herald::providers::Delivery) -> Vec<DeviceAnswer> {
    providers.get("fcm").expect("the fcm adapter").send_each(delivery).await
}

fn message_id(answer: &DeviceAnswer) -> String {
    let accepted = answer.answer.as_ref().expect("accepted");
    accepted.provider_message_id.clone().expect("FCM's message name")
}

#[tokio::test]
async fn each_token_is_one_http2_send_with_the_exchanged_token_and_string_data() {
    let fake = Fcm::start().await;
    let providers = crate::support::local_providers();
    let mut delivery = push("fcm", fake.credentials(), &["device-a", "device-b"]);
    delivery.payload = json!({"orderId": "A-1", "items": 3, "express": true, "from": "shop"});
    delivery.overrides = json!({"fcm": {"android": {"priority": "high"}, "data": {"campaign": "autumn"}}});

    let answers = send_each(&providers, &delivery).await;

    assert_eq!(answers.iter().map(|answer| answer.token.as_str()).collect::<Vec<_>>(), ["device-a", "device-b"]);
    for answer in &answers {
        let name = message_id(answer);
        assert!(name.starts_with(&format!("projects/{PROJECT_ID}/messages/0:")), "{name}");
    }
    let exchange = fake.oauth.only_request();
    assert_eq!(exchange.form_value("grant_type").as_deref(), Some("urn:ietf:params:oauth:grant-type:jwt-bearer"));
    let sends = fake.api.requests();
    assert_eq!(sends.len(), 2);
    let bearer = sends[0].header("authorization").unwrap();
    assert!(bearer.starts_with("Bearer ya29.c.fake-"), "the token the fake issued: {bearer}");
    let mut tokens_sent = Vec::new();
    for request in &sends {
        assert_eq!(request.version, Version::HTTP_2, "spoken to in HTTP/2");
        assert_eq!(request.header("authorization"), Some(bearer));
        let message = request.json()["message"].clone();
        tokens_sent.push(message["token"].as_str().unwrap().to_owned());
        assert_eq!(
            message,
            json!({
                "token": message["token"],
                "notification": {"title": "Order A-1 shipped", "body": "Your order is on its way"},
                "data": {"orderId": "A-1", "items": "3", "express": "true", "campaign": "autumn"},
                "android": {"priority": "high"},
                "apns": {"headers": {"apns-collapse-id": delivery.message_id.to_string()}},
            })
        );
    }
    tokens_sent.sort();
    assert_eq!(tokens_sent, ["device-a", "device-b"]);
    assert_eq!(fake.api.connections(), 1);
}

#[tokio::test]
async fn concurrent_sends_share_one_exchange_and_one_connection_and_later_ones_reuse_the_token() {
    let fake = Fcm::start().await;
    let providers = crate::support::local_providers();
    let tokens: Vec<String> = (0..40).map(|i| format!("device-{i}")).collect();
    let deliveries: Vec<_> = tokens
        .chunks(10)
        .map(|chunk| push("fcm", fake.credentials(), &chunk.iter().map(String::as_str).collect::<Vec<_>>()))
        .collect();

    let answers = join_all(deliveries.iter().map(|delivery| send_each(&providers, delivery))).await;

    assert!(answers.iter().flatten().all(|answer| answer.answer.is_ok()), "{answers:#?}");
    assert_eq!(fake.exchanges(), 1, "four messages of ten tokens, sent at once: one token exchange");
    assert_eq!(fake.api.requests().len(), 40);
    assert_eq!(fake.api.connections(), 1, "every send multiplexed over one HTTP/2 connection");

    let later = push("fcm", fake.credentials(), &["device-late"]);
    assert!(send_each(&providers, &later).await[0].answer.is_ok());
    assert_eq!(fake.exchanges(), 1, "the cached token serves the next message");
}

#[tokio::test]
async fn a_token_about_to_expire_is_exchanged_again() {
    let fake = Fcm::start().await;
    let providers = crate::support::local_providers();
    // Within the minute before expiry a token is no longer used.
    fake.issue_tokens_for(45);

    for _ in 0..2 {
        assert!(send_each(&providers, &push("fcm", fake.credentials(), &["device-a"])).await[0].answer.is_ok());
    }

    assert_eq!(fake.exchanges(), 2);
}

#[tokio::test]
async fn a_refused_token_is_replaced_once_for_all_the_sends_that_hit_it_and_each_is_retried() {
    let fake = Fcm::start().await;
    let providers = crate::support::local_providers();
    assert!(send_each(&providers, &push("fcm", fake.credentials(), &["device-a"])).await[0].answer.is_ok());
    // Revoked, or expired early: FCM answers 401 UNAUTHENTICATED to it.
    fake.expire_tokens();

    let tokens: Vec<String> = (0..10).map(|i| format!("device-{i}")).collect();
    let delivery = push("fcm", fake.credentials(), &tokens.iter().map(String::as_str).collect::<Vec<_>>());
    let answers = send_each(&providers, &delivery).await;

    assert!(answers.iter().all(|answer| answer.answer.is_ok()), "{answers:#?}");
    assert_eq!(fake.exchanges(), 2, "one new token for the ten sends that were refused");
    let statuses = fake.api.requests().len();
    assert_eq!(statuses, 1 + 10 + 10, "the first send, ten refused, ten retried");
}

#[tokio::test]
async fn a_401_to_a_fresh_token_misconfigures_the_integration_after_one_retry() {
    let fake = Fcm::start().await;
    fake.api.then(unauthenticated()).then(unauthenticated());

    let err = send(&push("fcm", fake.credentials(), &["device-a"])).await.unwrap_err();

    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(
        err.to_string().contains("HTTP 401 Unauthorized from 127.0.0.1: UNAUTHENTICATED: Request had invalid"),
        "{err}"
    );
    assert_eq!((fake.api.requests().len(), fake.exchanges()), (2, 2));
}

#[tokio::test]
async fn third_party_auth_errors_misconfigure_the_integration_without_a_new_token() {
    let fake = Fcm::start().await;
    fake.api.then(third_party_auth_error());

    let err = send(&push("fcm", fake.credentials(), &["device-a"])).await.unwrap_err();

    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert!(err.to_string().ends_with("THIRD_PARTY_AUTH_ERROR: Auth error from APNS or Web Push Service"), "{err}");
    assert_eq!((fake.api.requests().len(), fake.exchanges()), (1, 1));
}

#[tokio::test]
async fn one_dead_token_of_three_is_answered_as_such_and_the_others_are_sent() {
    let fake = Fcm::start().await;
    fake.answer_device("device-gone", unregistered());

    let answers = send_each(
        &crate::support::local_providers(),
        &push("fcm", fake.credentials(), &["device-a", "device-gone", "device-c"]),
    )
    .await;

    assert_eq!(
        answers.iter().map(|answer| answer.token.as_str()).collect::<Vec<_>>(),
        ["device-a", "device-gone", "device-c"]
    );
    assert!(answers[0].answer.is_ok() && answers[2].answer.is_ok(), "{answers:#?}");
    let dead = answers[1].answer.clone().unwrap_err();
    assert!(matches!(dead, ProviderError::DeadDestination { .. }), "{dead:?}");
    assert_eq!(
        dead.to_string(),
        "fcm: HTTP 404 Not Found from 127.0.0.1: UNREGISTERED: Requested entity was not found."
    );
    assert!(dead.raw().unwrap().contains("google.firebase.fcm.v1.FcmError"));
}

#[tokio::test]
async fn each_error_class_sorts_as_the_research_table_says() {
    let fake = Fcm::start().await;
    let providers = crate::support::local_providers();
    let dead = |err: &ProviderError| matches!(err, ProviderError::DeadDestination { .. });
    let permanent = |err: &ProviderError| matches!(err, ProviderError::Permanent { .. });
    let misconfigured = |err: &ProviderError| matches!(err, ProviderError::Misconfigured { .. });
    let transient = |err: &ProviderError| err.is_transient();
    type Sort = fn(&ProviderError) -> bool;
    let cases: Vec<(FakeAnswer, Sort, &str)> = vec![
        (unregistered(), dead, "UNREGISTERED: Requested entity was not found."),
        (sender_id_mismatch(), dead, "SENDER_ID_MISMATCH: SenderId mismatch"),
        (bad_field("message.android.ttl", "Invalid value at 'message.android.ttl'"), permanent, "INVALID_ARGUMENT"),
        (quota_exceeded("30"), transient, "QUOTA_EXCEEDED: Quota exceeded"),
        (unavailable(), transient, "UNAVAILABLE: The service is currently unavailable."),
        (internal(), transient, "INTERNAL: Internal error encountered."),
        (
            fcm::error(403, "PERMISSION_DENIED", "The caller does not have permission", None),
            misconfigured,
            "PERMISSION_DENIED",
        ),
    ];
    for (answer, sort, text) in cases {
        fake.api.then(answer);

        let err =
            send_each(&providers, &push("fcm", fake.credentials(), &["device-a"])).await[0].answer.clone().unwrap_err();

        assert!(sort(&err), "{text}: {err:?}");
        assert!(err.to_string().contains(text), "{err}");
    }
    fake.api.then(quota_exceeded("30"));
    let err = send(&push("fcm", fake.credentials(), &["device-a"])).await.unwrap_err();
    assert_eq!(err.retry_after(), Some(Duration::from_secs(30)));

    // What FCM says of a token that is not one: dead, as Firebase's guide on stale tokens says.
    let err = send(&push("fcm", fake.credentials(), &["not a token"])).await.unwrap_err();
    assert!(dead(&err), "{err:?}");
    assert!(err.to_string().ends_with("The registration token is not a valid FCM registration token"), "{err}");
    assert_eq!(fake.exchanges(), 3, "one per adapter set: the table's, and the two `send`s");
}

#[tokio::test]
async fn a_refused_assertion_misconfigures_and_a_failing_token_endpoint_is_transient() {
    let fake = Fcm::start().await;
    let mut wrong_account = fake.service_account();
    wrong_account["client_email"] = json!("someone-else@herald-push-test.iam.gserviceaccount.com");
    let credentials = json!({"serviceAccount": wrong_account, "baseUrl": fake.api.base_url()});

    let err = send(&push("fcm", credentials, &["device-a"])).await.unwrap_err();

    assert!(matches!(err, ProviderError::Misconfigured { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the integration is misconfigured: fcm: HTTP 400 Bad Request from 127.0.0.1: invalid_grant: Invalid grant: \
         account not found (exchanging the service account's assertion for an access token)"
    );

    fake.oauth.then(oauth_error(503, "temporarily_unavailable", "Try again later").with_header("retry-after", "5"));
    let err = send(&push("fcm", fake.credentials(), &["device-a"])).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.retry_after(), Some(Duration::from_secs(5)));
    assert!(fake.api.requests().is_empty(), "nothing is sent without a token");
}

#[tokio::test]
async fn a_failed_exchange_is_shared_by_the_sends_that_waited_for_it() {
    let fake = Fcm::start().await;
    fake.oauth.then(oauth_error(500, "internal_failure", "Backend error"));
    let tokens: Vec<String> = (0..5).map(|i| format!("device-{i}")).collect();

    let answers = send_each(
        &crate::support::local_providers(),
        &push("fcm", fake.credentials(), &tokens.iter().map(String::as_str).collect::<Vec<_>>()),
    )
    .await;

    assert!(
        answers.iter().all(|answer| answer.answer.as_ref().is_err_and(ProviderError::is_transient)),
        "{answers:#?}"
    );
    assert_eq!(fake.oauth.requests().len(), 1, "one exchange, not one per waiting send");
}

#[tokio::test]
async fn a_broken_or_unsafe_account_sends_nothing() {
    let fake = Fcm::start().await;
    let mut plain_http = fake.service_account();
    plain_http["token_uri"] = json!("http://oauth.internal/token");
    let mut no_key = fake.service_account();
    no_key.as_object_mut().unwrap().remove("private_key");
    for (credentials, message) in [
        (json!({"baseUrl": fake.api.base_url()}), "fcm integration has no `serviceAccount` credential"),
        (
            json!({"serviceAccount": no_key, "baseUrl": fake.api.base_url()}),
            "fcm `serviceAccount` has no `private_key`",
        ),
        (
            json!({"serviceAccount": plain_http, "baseUrl": fake.api.base_url()}),
            "fcm token_uri must use https (plain http only for loopback hosts",
        ),
    ] {
        let err = send(&push("fcm", credentials, &["device-a"])).await.unwrap_err();
        assert!(err.is_integration_fault(), "{err:?}");
        assert!(err.to_string().contains(message), "{err}");
    }
    assert!(fake.oauth.requests().is_empty() && fake.api.requests().is_empty());
}
