use std::time::Duration;

use herald::providers::{Delivery, ProviderError};
use serde_json::json;

use super::common::chat;
use super::send;
use crate::fakes::msteams::{self, error, throttled, webhook_url, RUN_ID, SIG, WORKFLOW_ID};

fn to_webhook(url: &str) -> Delivery {
    chat("msteams", json!({}), Some(url))
}

#[tokio::test]
async fn a_message_goes_as_an_adaptive_card_and_the_flow_run_is_recorded() {
    let fake = msteams::start().await;
    let mut message = to_webhook(&webhook_url(&fake));
    message.overrides = json!({"msteams": {"summary": "not sent"}});

    let accepted = send(&message).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", format!("/workflows/{WORKFLOW_ID}/triggers/manual/paths/invoke").as_str())
    );
    assert_eq!(
        request.query.as_deref(),
        Some(format!("api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={SIG}").as_str())
    );
    assert!(request.content_type_is("application/json"));
    assert_eq!(
        request.json(),
        json!({"type": "message", "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "content": {"type": "AdaptiveCard", "version": "1.4",
                        "body": [{"type": "TextBlock", "text": "Order A-1 shipped", "wrap": true}]}}]})
    );
    assert_eq!(accepted.provider_message_id.as_deref(), Some(RUN_ID));
    assert_eq!(accepted.raw, None, "a 202 has no body");
}

#[tokio::test]
async fn content_that_is_a_teams_message_goes_as_it_is_and_other_json_is_text() {
    let fake = msteams::start().await;
    let card = json!({"type": "message", "attachments": [{
        "contentType": "application/vnd.microsoft.card.adaptive",
        "content": {"type": "AdaptiveCard", "version": "1.5", "body": [
            {"type": "TextBlock", "text": "Order A-1", "weight": "Bolder"},
            {"type": "FactSet", "facts": [{"title": "Status", "value": "shipped"}]}]}}]});
    let mut own_card = to_webhook(&webhook_url(&fake));
    own_card.content = card.to_string();
    let mut other_json = to_webhook(&webhook_url(&fake));
    other_json.content = r#"{"orderId": "A-1"}"#.to_owned();

    send(&own_card).await.expect("accepted");
    send(&other_json).await.expect("accepted");

    let requests = fake.requests();
    assert_eq!(requests[0].json(), card);
    assert_eq!(
        requests[1].json()["attachments"][0]["content"]["body"][0]["text"],
        r#"{"orderId": "A-1"}"#,
        "JSON that is not a Teams message is the card's text"
    );
}

#[tokio::test]
async fn a_message_without_a_card_is_refused_permanently() {
    let fake = msteams::start().await;
    let mut no_card = to_webhook(&webhook_url(&fake));
    no_card.content = r#"{"type": "message", "text": "no attachments"}"#.to_owned();

    let err = send(&no_card).await.unwrap_err();

    assert!(matches!(err, ProviderError::Permanent { .. }), "{err:?}");
    assert!(err.to_string().contains("HTTP 400 Bad Request from 127.0.0.1: TriggerInputSchemaMismatch: "), "{err}");
}

#[tokio::test]
async fn a_deleted_flow_is_a_dead_destination_of_the_subscriber_and_misconfigures_an_integration() {
    let fake = msteams::start().await;
    let deleted = webhook_url(&fake).replace(WORKFLOW_ID, "0000000000000000000000000000dead");

    let dead = send(&to_webhook(&deleted)).await.unwrap_err();
    assert!(matches!(dead, ProviderError::DeadDestination { .. }), "{dead:?}");
    let expected = "HTTP 404 Not Found from 127.0.0.1: WorkflowNotFound: \
                    The workflow '0000000000000000000000000000dead' could not be found.";
    assert!(dead.to_string().ends_with(expected), "{dead}");

    let integrations = send(&chat("msteams", json!({"webhookUrl": deleted}), None)).await.unwrap_err();
    assert!(matches!(integrations, ProviderError::Misconfigured { .. }), "{integrations:?}");
}

#[tokio::test]
async fn a_throttled_or_failing_flow_is_transient() {
    let fake = msteams::start().await;
    fake.then(throttled("60")).then(error(502, "BadGateway", "The gateway did not receive a response."));
    let message = to_webhook(&webhook_url(&fake));

    let limited = send(&message).await.unwrap_err();
    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(60)));
    assert!(limited.to_string().contains(": WorkflowRequestsThrottled: Number of workflow requests"), "{limited}");

    let bad_gateway = send(&message).await.unwrap_err();
    assert!(bad_gateway.is_transient(), "{bad_gateway:?}");
}

#[tokio::test]
async fn a_wrong_signature_is_the_subscribers_permanent_error_and_the_integrations_misconfiguration() {
    let fake = msteams::start().await;
    let wrong_sig = webhook_url(&fake).replace(SIG, "forged");

    let subscribers = send(&to_webhook(&wrong_sig)).await.unwrap_err();
    assert!(matches!(subscribers, ProviderError::Permanent { .. }), "{subscribers:?}");
    assert!(subscribers.to_string().contains("HTTP 401 Unauthorized from 127.0.0.1: DirectApi"), "{subscribers}");
    assert!(!subscribers.to_string().contains("forged"), "the URL's secret is never shown");

    let integrations = send(&chat("msteams", json!({"webhookUrl": wrong_sig}), None)).await.unwrap_err();
    assert!(matches!(integrations, ProviderError::Misconfigured { .. }), "{integrations:?}");
}
