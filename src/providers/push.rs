//! What every push adapter reads from a delivery, by the same rules:
//! - the device token: a push adapter's [`super::Provider::send`] is called with one token at a time
//!   (see [`super::Provider::send_each`]);
//! - the overrides: `overrides.push` (for every push provider), then the provider's own
//!   (`overrides.fcm`, `overrides.expo`) on top, key by key. An adapter reads only the keys it knows, so
//!   a key meant for another provider (APNs' `sound` in `overrides.push`) never breaks it.

use serde_json::{Map, Value};

use super::{Delivery, ProviderError};

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

/// The trigger's push overrides for `provider_key`: the `known` keys of `overrides.push`, with those of
/// `overrides.<provider_key>` on top.
pub(crate) fn push_overrides(delivery: &Delivery, provider_key: &str, known: &[&str]) -> Map<String, Value> {
    let mut merged = Map::new();
    for layer in [&delivery.overrides["push"], &delivery.overrides[provider_key]] {
        let entries = layer.as_object().into_iter().flatten();
        merged.extend(entries.filter(|(key, _)| known.contains(&key.as_str())).map(|(k, v)| (k.clone(), v.clone())));
    }
    merged
}

/// The notification's title and body: the overrides' `title` and `body` when they are strings, else the
/// step's rendered ones.
pub(crate) fn title_and_body(delivery: &Delivery, overrides: &Map<String, Value>) -> (String, String) {
    let text = |key: &str| overrides.get(key).and_then(Value::as_str).map(str::to_owned);
    let title = text("title").or_else(|| delivery.title.clone()).unwrap_or_default();
    (title, text("body").unwrap_or_else(|| delivery.content.clone()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::providers::tests::delivery;

    #[test]
    fn the_provider_overrides_win_over_the_push_ones_and_unknown_keys_stay_out() {
        let mut push = delivery("push-webhook", json!({}));
        push.overrides = json!({"push": {"title": "Generic", "sound": "ping", "badge": 2},
                                "fcm": {"title": "For FCM", "android": {"priority": "high"}},
                                "expo": {"badge": 5}});

        let overrides = push_overrides(&push, "fcm", &["title", "body", "android"]);

        assert_eq!(Value::Object(overrides.clone()), json!({"title": "For FCM", "android": {"priority": "high"}}));
        assert_eq!(title_and_body(&push, &overrides), ("For FCM".to_owned(), "<p>Hi Ada</p>".to_owned()));
        assert_eq!(title_and_body(&push, &Map::new()), ("Hello".to_owned(), "<p>Hi Ada</p>".to_owned()));
    }

    #[test]
    fn a_send_takes_exactly_one_device_token() {
        let mut push = delivery("push-webhook", json!({}));
        assert!(one_device_token("fcm", &push).unwrap_err().to_string().contains("send_each"));
        push.to.device_tokens = vec!["token-a".into()];
        assert_eq!(one_device_token("fcm", &push), Ok("token-a"));
        push.to.device_tokens.clear();
        assert_eq!(one_device_token("fcm", &push).unwrap_err().to_string(), "fcm: the subscriber has no device tokens");
    }
}
