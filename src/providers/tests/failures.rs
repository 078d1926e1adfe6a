//! How answers and missing configuration sort into transient, permanent and unsupported.

use serde_json::json;

use super::receiver::Receiver;
use super::{delivery, local_providers, send};
use crate::domain::integrations::providers::providers_of;
use crate::providers::ProviderError;

const ADAPTERS: &[&str] = &[
    "email-webhook",
    "chat-webhook",
    "push-webhook",
    "generic-sms",
    "resend",
    "sendgrid",
    "mailgun",
    "postmark",
    "ses",
    "sns",
    "twilio",
    "nexmo",
    "plivo",
    "slack",
    "svc-slack",
    "discord",
    "msteams",
    "mattermost",
    "zulip",
    "ryver",
    "grafana-on-call",
    "rocket-chat",
    "getstream",
    "apns",
    "one-signal",
    "fcm",
    "expo",
    "pushpad",
    "pusher-beams",
    "appio",
    "whatsapp-business",
    "nodemailer",
];

#[tokio::test]
async fn server_errors_and_429_are_transient_with_the_answer_in_raw() {
    let receiver = Receiver::start().await;
    for (status, reason) in [(500, "Internal Server Error"), (503, "Service Unavailable"), (429, "Too Many Requests")] {
        receiver.answer(status, "try later");

        let err = send(&delivery("email-webhook", json!({"webhookUrl": receiver.url("/e")}))).await.expect_err("fails");

        assert!(err.is_transient(), "{status}: {err:?}");
        assert_eq!(err.to_string(), format!("email-webhook: HTTP {status} {reason} from 127.0.0.1: try later"));
        assert_eq!(err.raw(), Some("try later"));
    }
}

#[tokio::test]
async fn refused_credentials_misconfigure_the_integration_and_other_statuses_are_permanent() {
    let receiver = Receiver::start().await;
    for status in [400, 401, 403, 404, 422, 302] {
        receiver.answer(status, r#"{"error": "no"}"#);

        let err = send(&delivery("push-webhook", json!({"webhookUrl": receiver.url("/p")}))).await.expect_err("fails");

        if matches!(status, 401 | 403) {
            assert!(matches!(err, ProviderError::Misconfigured { .. }), "{status}: {err:?}");
            assert!(err.is_integration_fault());
        } else {
            assert!(matches!(err, ProviderError::Permanent { .. }), "{status}: {err:?}");
        }
        assert!(err.to_string().contains(&format!("push-webhook: HTTP {status} ")), "{err}");
        assert_eq!(err.raw(), Some(r#"{"error": "no"}"#));
    }
    // The 302 was not followed anywhere.
    assert_eq!(receiver.requests().len(), 6);
}

#[tokio::test]
async fn connection_refused_is_transient_and_names_only_the_host() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/secret-token-path");

    let err = send(&delivery("chat-webhook", json!({"webhookUrl": url}))).await.expect_err("fails");

    assert!(err.is_transient(), "{err:?}");
    assert_eq!(err.raw(), None);
    let message = err.to_string();
    assert!(message.starts_with("chat-webhook: request to 127.0.0.1 failed"), "{message}");
    assert!(!message.contains("secret-token-path"), "{message}");
}

#[tokio::test]
async fn a_long_answer_is_truncated_at_a_character_boundary() {
    let receiver = Receiver::start().await;
    receiver.answer(500, &"€".repeat(5000));

    let err = send(&delivery("email-webhook", json!({"webhookUrl": receiver.url("/e")}))).await.expect_err("fails");

    let raw = err.raw().expect("raw answer");
    assert_eq!(raw.len(), 4095, "the largest whole number of 3-byte characters within 4 KiB");
    assert!(raw.chars().all(|c| c == '€'));
}

#[tokio::test]
async fn missing_webhook_urls_are_permanent() {
    let cases = [
        ("email-webhook", "email-webhook integration has no webhookUrl"),
        ("push-webhook", "push-webhook integration has no webhookUrl"),
        ("chat-webhook", "chat-webhook: neither the subscriber nor the integration has a webhookUrl"),
        ("generic-sms", "generic-sms integration has no baseUrl or webhookUrl"),
    ];
    for (provider_id, message) in cases {
        let err = send(&delivery(provider_id, json!({"webhookUrl": ""}))).await.expect_err("fails");

        assert_eq!(err, ProviderError::Permanent { message: message.to_owned(), raw: None });
    }
}

#[tokio::test]
async fn invalid_urls_and_missing_addresses_are_permanent() {
    let err = send(&delivery("email-webhook", json!({"webhookUrl": "ftp://example.com/x"}))).await.expect_err("fails");
    assert_eq!(err.to_string(), "email-webhook webhookUrl is not a valid http(s) URL");

    let receiver = Receiver::start().await;
    let mut no_addresses = delivery("email-webhook", json!({"webhookUrl": receiver.url("/x")}));
    no_addresses.to = Default::default();
    for (provider_id, message) in [
        ("email-webhook", "email-webhook: the subscriber has no email address"),
        ("generic-sms", "generic-sms: the subscriber has no phone number"),
        ("push-webhook", "push-webhook: the subscriber has no device tokens"),
    ] {
        no_addresses.provider_id = provider_id.to_owned();
        let err = send(&no_addresses).await.expect_err("fails");
        assert_eq!(err, ProviderError::Permanent { message: message.to_owned(), raw: None });
    }
    assert!(receiver.requests().is_empty());
}

#[test]
fn every_other_provider_is_unsupported() {
    let providers = local_providers();
    let known = ["email", "sms", "chat", "push"].into_iter().flat_map(providers_of);
    for provider_id in known.copied().filter(|id| !ADAPTERS.contains(id)).chain(["carrier-pigeon"]) {
        let err = providers.get(provider_id).err().expect("unsupported");

        assert_eq!(err, ProviderError::Unsupported { provider_id: provider_id.to_owned() });
        assert_eq!(err.to_string(), format!("provider `{provider_id}` is not supported yet"));
        assert!(!err.is_transient() && err.raw().is_none());
    }
    assert!(ADAPTERS.iter().all(|id| providers.get(id).is_ok()));
}
