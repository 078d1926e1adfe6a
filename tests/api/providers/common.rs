//! What the SMS, AWS, chat and push adapter tests share.

use herald::providers::{Channel, Delivery, DeviceAnswer, Providers};
use serde_json::Value;

use super::{delivery, send};
use crate::fakes::FakeProvider;

/// The SMS "Order A-1 shipped" to Ada through `provider_id`.
pub fn sms(provider_id: &str, credentials: Value) -> Delivery {
    let mut sms = delivery(provider_id, Channel::Sms, credentials);
    sms.content = "Order A-1 shipped".to_owned();
    sms
}

/// The chat message "Order A-1 shipped" to Ada through `provider_id`, to her own webhook when
/// `webhook_url` is given (else to the integration's `webhookUrl`, if its credentials have one).
pub fn chat(provider_id: &str, credentials: Value, webhook_url: Option<&str>) -> Delivery {
    let mut chat = delivery(provider_id, Channel::Chat, credentials);
    chat.content = "Order A-1 shipped".to_owned();
    chat.to.webhook_url = webhook_url.map(str::to_owned);
    chat
}

/// The push "Order A-1 shipped" to Ada's device `tokens` through `provider_id`.
pub fn push(provider_id: &str, credentials: Value, tokens: &[String]) -> Delivery {
    let mut push = delivery(provider_id, Channel::Push, credentials);
    push.title = Some("Your order shipped".to_owned());
    push.content = "Order A-1 is on its way".to_owned();
    push.text = None;
    push.to.device_tokens = tokens.to_vec();
    push
}

/// `push` sent through `providers` the way the engine sends push messages: an answer per device token.
pub async fn send_each(providers: &Providers, push: &Delivery) -> Vec<DeviceAnswer> {
    providers.get(&push.provider_id).expect("an adapter for the provider").send_each(push).await
}

/// Form fields as [`crate::fakes::Recorded::form`] reads them.
pub fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect()
}

/// `complete` without any one of `required` credentials is an integration fault that names it, and
/// nothing reaches `fake`.
pub async fn nothing_sent_without(fake: &FakeProvider, complete: &Delivery, required: &[&str]) {
    for missing in required {
        let mut incomplete = complete.clone();
        incomplete.credentials.as_object_mut().expect("credentials are an object").remove(*missing);
        let err = send(&incomplete).await.unwrap_err();
        assert!(err.is_integration_fault(), "{missing}: {err:?}");
        assert!(err.to_string().contains(&format!("`{missing}`")), "{err}");
    }
    assert!(fake.requests().is_empty(), "{:#?}", fake.requests());
}
