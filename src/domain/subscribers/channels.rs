//! Chat and push credentials a subscriber holds, one entry per (provider, integration). Stored as
//! the JSON array of the API's `channels` field.

use serde::{Deserialize, Serialize};

use crate::domain::integrations::providers::providers_of;
use uuid::Uuid;

/// Providers whose credentials a subscriber can hold (the spec's 20): every chat and push provider
/// (`appio` among the push ones).
pub fn credential_providers() -> impl Iterator<Item = &'static str> {
    providers_of("chat").iter().chain(providers_of("push")).copied()
}

/// At most this many device tokens per channel entry.
pub const MAX_DEVICE_TOKENS: usize = 100;

/// One channel entry of a subscriber.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelSetting {
    pub provider_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integration_identifier: Option<String>,
    #[serde(rename = "_integrationId")]
    pub integration_id: Uuid,
    pub credentials: ChannelCredentials,
}

/// The credentials of one entry; which fields apply depends on the provider.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelCredentials {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_tokens: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert_uid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_url: Option<String>,
}
