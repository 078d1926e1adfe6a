use std::time::Duration;

use herald::providers::{AlertFields, Delivery, ProviderError};
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::grafana_on_call::{self, rate_limited, webhook_url, ALERTMANAGER_TOKEN, NOT_FOUND, TOKEN};
use crate::fakes::FakeAnswer;

fn to_webhook(url: &str) -> Delivery {
    chat("grafana-on-call", json!({}), Some(url))
}

#[tokio::test]
async fn the_subscribers_alert_fields_win_over_the_integrations() {
    let fake = grafana_on_call::start().await;
    let credentials = json!({"alertUid": "orders", "title": "Orders", "imageUrl": "https://img.example/o.png",
                             "state": "alerting", "externalLink": "https://shop.example/orders"});
    let mut message = chat("grafana-on-call", credentials, Some(&webhook_url(&fake, TOKEN)));
    message.to.alert = AlertFields {
        alert_uid: Some("order-A-1".to_owned()),
        state: Some("ok".to_owned()),
        external_url: Some("https://shop.example/orders/A-1".to_owned()),
        ..AlertFields::default()
    };

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", format!("/integrations/v1/formatted_webhook/{TOKEN}/").as_str())
    );
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"alert_uid": "order-A-1", "title": "Orders", "image_url": "https://img.example/o.png",
               "state": "ok", "link_to_upstream_details": "https://shop.example/orders/A-1",
               "message": "Order A-1 shipped"})
    );
    assert_eq!(accepted.provider_message_id, None);
    assert_eq!(accepted.raw.as_deref(), Some(r#""Ok.""#));
}

#[tokio::test]
async fn without_alert_fields_only_the_message_and_custom_data_go() {
    let fake = grafana_on_call::start().await;
    let mut message = to_webhook(&webhook_url(&fake, TOKEN));
    message.overrides = json!({"grafana-on-call": {"title": "From the trigger"}});

    send(&message).await.expect("accepted");

    assert_eq!(fake.only_request().json(), json!({"message": "Order A-1 shipped", "title": "From the trigger"}));
}

#[tokio::test]
async fn an_unknown_integration_key_is_a_dead_destination_of_the_subscriber() {
    let fake = grafana_on_call::start().await;
    let gone = webhook_url(&fake, "gOnEgOnEgOnEgOnEgOnEgOnE0");

    let subscribers = send(&to_webhook(&gone)).await.unwrap_err();
    let integrations = send(&chat("grafana-on-call", json!({"webhookUrl": gone}), None)).await.unwrap_err();

    assert!(matches!(subscribers, ProviderError::DeadDestination { .. }), "{subscribers:?}");
    assert!(
        subscribers.to_string().ends_with(&format!("HTTP 403 Forbidden from 127.0.0.1: {NOT_FOUND}")),
        "{subscribers}"
    );
    assert!(matches!(integrations, ProviderError::Misconfigured { .. }), "{integrations:?}");
}

#[tokio::test]
async fn a_url_of_another_integration_type_is_permanent() {
    let fake = grafana_on_call::start().await;

    let err = send(&to_webhook(&webhook_url(&fake, ALERTMANAGER_TOKEN))).await.unwrap_err();

    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().contains("This url is for integration with Alertmanager"), "{err}");
}

#[tokio::test]
async fn rate_limits_wait_a_minute_and_server_errors_are_transient() {
    let fake = grafana_on_call::start().await;
    fake.then(rate_limited()).then(FakeAnswer::text(502, "Bad Gateway").with_header("retry-after", "5"));
    let message = to_webhook(&webhook_url(&fake, TOKEN));

    let limited = send(&message).await.unwrap_err();
    let bad_gateway = send(&message).await.unwrap_err();

    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(60)), "no Retry-After: a minute");
    assert!(
        limited.to_string().ends_with("Rate-limit for integration exceeded. Please, try again later."),
        "{limited}"
    );
    assert!(bad_gateway.is_transient(), "{bad_gateway:?}");
    assert_eq!(bad_gateway.retry_after(), Some(Duration::from_secs(5)));
}
