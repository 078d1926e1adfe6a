//! What can go wrong with a delivery, sorted by what the engine should do next: retry the same
//! integration, give up on the message, or move on to the channel's next integration.

use std::time::Duration;

use thiserror::Error;

/// A failed delivery. `Display` is the human detail recorded in the execution details: the provider's
/// own error text where it gave one, never a credential.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    /// Network error, timeout, 429 or 5xx: the same request may succeed later, no sooner than
    /// `retry_after` when the provider said so (`Retry-After`).
    #[error("{message}")]
    Transient { message: String, raw: Option<String>, retry_after: Option<Duration> },
    /// The message cannot be delivered as it is (a bad address, a rejected body): retrying, or another
    /// integration, cannot help.
    #[error("{message}")]
    Permanent { message: String, raw: Option<String> },
    /// The integration itself is wrong: refused credentials (401, 403), a missing credential such as the
    /// sender, a TLS or login failure. This integration cannot send anything; the next one may.
    #[error("the integration is misconfigured: {message}")]
    Misconfigured { message: String, raw: Option<String> },
    /// The destination no longer exists: an uninstalled app's device token (FCM `UNREGISTERED`, APNs 410),
    /// a deleted chat webhook (Slack 404/410, Discord 10015). Permanent for this destination, which the
    /// engine removes from the subscriber's channel credentials so that no later message tries it.
    #[error("{message}")]
    DeadDestination { message: String, raw: Option<String> },
    /// A provider without an adapter (yet); as final for this integration as `Misconfigured`.
    #[error("provider `{provider_id}` is not supported yet")]
    Unsupported { provider_id: String },
}

impl ProviderError {
    pub fn transient(message: impl Into<String>) -> Self {
        Self::Transient { message: message.into(), raw: None, retry_after: None }
    }

    pub fn permanent(message: impl Into<String>) -> Self {
        Self::Permanent { message: message.into(), raw: None }
    }

    pub fn misconfigured(message: impl Into<String>) -> Self {
        Self::Misconfigured { message: message.into(), raw: None }
    }

    pub fn dead_destination(message: impl Into<String>) -> Self {
        Self::DeadDestination { message: message.into(), raw: None }
    }

    /// Whether the engine should retry (with backoff) rather than fail the step.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Transient { .. })
    }

    /// Whether the fault is the integration's rather than the message's: the engine moves on to the
    /// channel's next integration.
    pub fn is_integration_fault(&self) -> bool {
        matches!(self, Self::Misconfigured { .. } | Self::Unsupported { .. })
    }

    /// How long the provider asked us to wait before trying again, when it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Transient { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The provider's answer body (truncated), when there was one.
    pub fn raw(&self) -> Option<&str> {
        match self {
            Self::Transient { raw, .. }
            | Self::Permanent { raw, .. }
            | Self::Misconfigured { raw, .. }
            | Self::DeadDestination { raw, .. } => raw.as_deref(),
            Self::Unsupported { .. } => None,
        }
    }
}
