//! What the chat adapters share: where a message goes (the subscriber's webhook, else the integration's),
//! what a failure means given whose destination it was, and the trigger's `customData`.

use reqwest::Url;
use serde_json::{Map, Value};

use super::credentials::{credential, target_url};
use super::http::ErrorKind;
use super::{Delivery, ProviderError};

/// Whose a destination (a webhook, a channel) is: that decides what a refusal or a gone destination means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// From the subscriber's channel credentials: the engine can remove it when it is gone.
    Subscriber,
    /// From the integration's credentials.
    Integration,
    /// Named by the trigger's overrides, for this message only.
    Trigger,
}

impl Owner {
    /// `kind` for a destination of this owner. A subscriber's webhook that refuses us says nothing about
    /// the integration (another integration would be refused too), so it is permanent, not misconfigured.
    /// A gone destination that is not the subscriber's cannot be removed from the subscriber: the
    /// integration's own webhook being gone makes the integration misconfigured, and a channel named by
    /// the trigger's overrides is only this message's mistake.
    pub(crate) fn kind(self, kind: ErrorKind) -> ErrorKind {
        match (self, kind) {
            (Self::Subscriber, ErrorKind::Misconfigured) => ErrorKind::Permanent,
            (Self::Integration, ErrorKind::DeadDestination) => ErrorKind::Misconfigured,
            (Self::Trigger, ErrorKind::DeadDestination) => ErrorKind::Permanent,
            (_, kind) => kind,
        }
    }
}

/// The webhook a chat message is posted to.
pub(crate) struct Webhook {
    pub(crate) url: Url,
    pub(crate) owner: Owner,
}

impl Webhook {
    /// The subscriber's own webhook (from its channel credentials), else the integration's `webhookUrl`;
    /// any http(s) URL with a host (it is the subscriber's destination, not a `baseUrl`).
    pub(crate) fn of(provider_id: &str, delivery: &Delivery) -> Result<Self, ProviderError> {
        match Self::find(provider_id, delivery)? {
            Some(webhook) => Ok(webhook),
            None => Err(ProviderError::permanent(format!(
                "{provider_id}: neither the subscriber nor the integration has a webhookUrl"
            ))),
        }
    }

    /// [`Webhook::of`], or `None` when neither has one (for an adapter with another way to send).
    pub(crate) fn find(provider_id: &str, delivery: &Delivery) -> Result<Option<Self>, ProviderError> {
        let subscriber_url = delivery.to.webhook_url.as_deref().filter(|url| !url.is_empty());
        let webhook = match (subscriber_url, credential(&delivery.credentials, "webhookUrl")) {
            (Some(url), _) => {
                Self { url: target_url(provider_id, "subscriber webhookUrl", url)?, owner: Owner::Subscriber }
            }
            (None, Some(url)) => Self { url: target_url(provider_id, "webhookUrl", url)?, owner: Owner::Integration },
            (None, None) => return Ok(None),
        };
        Ok(Some(webhook))
    }
}

/// The trigger's extra fields for the provider's body, as the reference service passes them: `overrides.chat`
/// merged with `overrides.<providerId>` (which wins), spread over the adapter's own fields (Slack `blocks`,
/// Discord `embeds`, a `username`…). `integrationIdentifier` is Herald's choice of integration, not
/// something to send.
pub(crate) fn custom_data(delivery: &Delivery) -> Map<String, Value> {
    let mut data = Map::new();
    for overrides in [&delivery.overrides["chat"], &delivery.overrides[delivery.provider_id.as_str()]] {
        if let Some(fields) = overrides.as_object() {
            data.extend(fields.iter().map(|(key, value)| (key.clone(), value.clone())));
        }
    }
    data.remove("integrationIdentifier");
    data
}

/// The JSON object `body` with the trigger's [`custom_data`] spread over it.
pub(crate) fn with_custom_data(mut body: Value, delivery: &Delivery) -> Value {
    if let Some(fields) = body.as_object_mut() {
        fields.extend(custom_data(delivery));
    }
    body
}
