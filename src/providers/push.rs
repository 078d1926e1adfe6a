//! The push notification a push adapter sends, assembled once from the delivery and the trigger's
//! overrides, so that every push adapter reads them the same way (adapters that send one request per
//! device token are called with one token at a time, see [`super::Provider::send_each`]):
//! - the overrides are `overrides.push` (for every push provider) with `overrides.<provider id>`
//!   (`overrides.apns`, `overrides["one-signal"]`) over it, key by key: the provider's own wins;
//! - `title` and `body` in them replace the step's rendered title and content;
//! - the custom data is the trigger's payload (as the reference service sends it) with the overrides'
//!   `data` object merged over it.
//!
//! The other keys (`sound`, `badge`, `subtitle`, `collapseId`…) are read by each adapter as its
//! provider names them; each adapter's module lists the ones it maps.

use serde_json::{Map, Value};

use super::{Accepted, Delivery, DeviceAnswer, ProviderError};

/// One push notification as the adapters send it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PushMessage {
    pub(crate) title: Option<String>,
    pub(crate) body: String,
    /// The trigger's payload with the overrides' `data` over it.
    pub(crate) data: Map<String, Value>,
    overrides: Map<String, Value>,
}

impl PushMessage {
    pub(crate) fn of(delivery: &Delivery) -> Self {
        let mut overrides = object(&delivery.overrides["push"]);
        overrides.extend(object(&delivery.overrides[delivery.provider_id.as_str()]));
        let mut data = object(&delivery.payload);
        data.extend(overrides.get("data").map(object).unwrap_or_default());
        let text = |key: &str| overrides.get(key).and_then(Value::as_str).map(str::to_owned);
        Self {
            title: text("title").or_else(|| delivery.title.clone()).filter(|title| !title.is_empty()),
            body: text("body").unwrap_or_else(|| delivery.content.clone()),
            data,
            overrides,
        }
    }

    /// Override `key` as it was given (an object, a list…).
    pub(crate) fn value(&self, key: &str) -> Option<&Value> {
        self.overrides.get(key).filter(|value| !value.is_null())
    }

    /// Override `key` when it is a non-empty string.
    pub(crate) fn text(&self, key: &str) -> Option<&str> {
        self.value(key)?.as_str().filter(|text| !text.is_empty())
    }

    /// Override `key` when it is a whole number, or a string holding one (forms and templates give
    /// strings).
    pub(crate) fn number(&self, key: &str) -> Option<i64> {
        match self.value(key)? {
            Value::Number(number) => number.as_i64(),
            Value::String(text) => text.trim().parse().ok(),
            _ => None,
        }
    }

    /// Override `key` when it says yes: `true`, `1` or `"true"`.
    pub(crate) fn flag(&self, key: &str) -> bool {
        match self.value(key) {
            Some(Value::Bool(on)) => *on,
            Some(Value::Number(number)) => number.as_i64() == Some(1),
            Some(Value::String(text)) => text.eq_ignore_ascii_case("true") || text == "1",
            _ => false,
        }
    }
}

/// The one device token of `delivery`. None is a subscriber without a device; several mean the caller
/// did not go through `send_each`, and sending to only one of them would drop the rest unnoticed.
pub(crate) fn one_device_token<'a>(provider_id: &str, delivery: &'a Delivery) -> Result<&'a str, ProviderError> {
    match delivery.to.device_tokens.as_slice() {
        [token] if !token.is_empty() => Ok(token),
        [] => Err(ProviderError::permanent(format!("{provider_id}: the subscriber has no device tokens"))),
        [_] => Err(ProviderError::permanent(format!("{provider_id}: the device token is empty"))),
        _ => Err(ProviderError::permanent(format!(
            "{provider_id}: one device token per send (several go through send_each)"
        ))),
    }
}

/// The device tokens of a push delivery; a push without one reaches no one.
pub(crate) fn device_tokens<'a>(provider_id: &str, delivery: &'a Delivery) -> Result<&'a [String], ProviderError> {
    match delivery.to.device_tokens.as_slice() {
        [] => Err(ProviderError::permanent(format!("{provider_id}: the subscriber has no device tokens"))),
        tokens => Ok(tokens),
    }
}

/// The per-token answers of one push message folded into one answer, for a caller of `send` with
/// several tokens: accepted when any device took it (the first such answer), else the first error.
pub(crate) fn one_answer(answers: Vec<DeviceAnswer>) -> Result<Accepted, ProviderError> {
    let mut first_error = None;
    for answer in answers {
        match answer.answer {
            Ok(accepted) => return Ok(accepted),
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| ProviderError::permanent("the push message had no device tokens")))
}

fn object(value: &Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::providers::tests::delivery;

    #[test]
    fn the_provider_overrides_win_over_the_push_ones_and_data_merges_over_the_payload() {
        let mut push = delivery("apns", json!({}));
        push.payload = json!({"plan": "pro", "orderId": "A-1"});
        push.overrides = json!({
            "push": {"sound": "default", "badge": 1, "title": "From push", "data": {"orderId": "A-2"}},
            "apns": {"badge": "3", "mutableContent": 1},
            "fcm": {"sound": "ignored"},
        });

        let message = PushMessage::of(&push);

        assert_eq!(message.title.as_deref(), Some("From push"));
        assert_eq!(message.body, "<p>Hi Ada</p>");
        assert_eq!(Value::Object(message.data.clone()), json!({"plan": "pro", "orderId": "A-2"}));
        assert_eq!(message.text("sound"), Some("default"));
        assert_eq!(message.number("badge"), Some(3));
        assert!(message.flag("mutableContent") && !message.flag("contentAvailable"));
        assert_eq!(message.value("nothing"), None);
    }

    #[test]
    fn without_overrides_the_step_content_and_the_payload_are_sent() {
        let mut push = delivery("one-signal", json!({}));
        push.title = Some(String::new());
        let message = PushMessage::of(&push);
        assert_eq!((message.title, message.body.as_str()), (None, "<p>Hi Ada</p>"));
        assert_eq!(Value::Object(message.data), json!({"plan": "pro"}));
    }
}
