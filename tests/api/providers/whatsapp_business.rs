use std::time::Duration;

use herald::providers::ProviderError;
use serde_json::{json, Value};

use super::common::{chat, nothing_sent_without};
use super::send;
use crate::fakes::whatsapp_business::{self, graph_error, rate_limited, INVALID_TOKEN, PHONE_NUMBER_ID, TOKEN};

fn credentials(base_url: &str) -> Value {
    json!({"apiToken": TOKEN, "phoneNumberIdentification": PHONE_NUMBER_ID, "baseUrl": base_url})
}

#[tokio::test]
async fn a_text_goes_to_the_subscribers_phone_and_the_wamid_is_recorded() {
    let fake = whatsapp_business::start().await;

    let accepted = send(&chat("whatsapp-business", credentials(fake.base_url()), None)).await.expect("accepted");

    let request = fake.only_request();
    assert_eq!(request.path, format!("/v22.0/{PHONE_NUMBER_ID}/messages"));
    assert_eq!(request.header("authorization"), Some(format!("Bearer {TOKEN}").as_str()));
    assert_eq!(
        request.json(),
        json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": "+15550100", "type": "text",
               "text": {"body": "Order A-1 shipped", "preview_url": false}})
    );
    assert!(accepted.provider_message_id.is_some_and(|id| id.starts_with("wamid.")));
}

#[tokio::test]
async fn a_template_in_the_overrides_is_sent_instead_of_the_text() {
    let fake = whatsapp_business::start().await;
    let mut message = chat("whatsapp-business", credentials(fake.base_url()), None);
    let template = json!({"name": "order_shipped", "language": {"code": "en_US"}});
    message.overrides = json!({"whatsapp-business": {"template": template}});

    send(&message).await.expect("accepted");

    let body = fake.only_request().json();
    assert_eq!((&body["type"], &body["template"]), (&json!("template"), &template));
    assert!(body["text"].is_null(), "{body}");
}

#[tokio::test]
async fn errors_sort_by_metas_code() {
    let fake = whatsapp_business::start().await;
    let message = chat("whatsapp-business", credentials(fake.base_url()), None);

    fake.then(rate_limited("30"));
    let limited = send(&message).await.unwrap_err();
    assert!(limited.is_transient(), "{limited:?}");
    assert_eq!(limited.retry_after(), Some(Duration::from_secs(30)));
    assert!(limited.to_string().ends_with("(#130429) Rate limit hit"), "{limited}");

    fake.then(graph_error(400, 131000, None, "Something went wrong"));
    assert!(send(&message).await.unwrap_err().is_transient(), "a 400 with a service-error code is transient");

    fake.then(graph_error(400, 131047, None, "Re-engagement message"));
    let closed = send(&message).await.unwrap_err();
    assert!(matches!(closed, ProviderError::Permanent { .. }), "{closed:?}");
    assert!(closed.to_string().contains("send a template"), "{closed}");

    fake.then(graph_error(400, 131026, None, "Message undeliverable"));
    let undeliverable = send(&message).await.unwrap_err();
    assert!(matches!(undeliverable, ProviderError::Permanent { .. }), "not a dead destination: {undeliverable:?}");

    let mut wrong = credentials(fake.base_url());
    wrong["apiToken"] = json!("EAAwrong");
    let refused = send(&chat("whatsapp-business", wrong, None)).await.unwrap_err();
    assert!(matches!(refused, ProviderError::Misconfigured { .. }), "{refused:?}");
    assert!(refused.to_string().ends_with(INVALID_TOKEN) && !refused.to_string().contains("EAAwrong"), "{refused}");

    let mut other_number = credentials(fake.base_url());
    other_number["phoneNumberIdentification"] = json!("999");
    let unknown = send(&chat("whatsapp-business", other_number, None)).await.unwrap_err();
    assert!(matches!(unknown, ProviderError::Misconfigured { .. }), "{unknown:?}");
    assert_eq!(fake.requests().len(), 6);
}

#[tokio::test]
async fn without_credentials_or_a_phone_nothing_is_sent() {
    let fake = whatsapp_business::start().await;
    let complete = chat("whatsapp-business", credentials(fake.base_url()), None);

    nothing_sent_without(&fake, &complete, &["apiToken", "phoneNumberIdentification"]).await;

    let mut no_phone = complete;
    no_phone.to.phone = None;
    let err = send(&no_phone).await.unwrap_err();
    assert_eq!(err, ProviderError::permanent("whatsapp-business: the subscriber has no phone number"));
    assert!(fake.requests().is_empty());
}
