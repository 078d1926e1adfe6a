//! What can go wrong with a delivery, sorted by whether trying again can help.

use thiserror::Error;

/// A failed delivery. `Display` is the human detail recorded in the execution details.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    /// Network error, timeout, 5xx or 429: the same request may succeed later.
    #[error("{message}")]
    Transient { message: String, raw: Option<String> },
    /// Any other 4xx, or the integration lacks what the request needs: retrying cannot help.
    #[error("{message}")]
    Permanent { message: String, raw: Option<String> },
    /// A provider without an adapter (yet); as final as `Permanent`.
    #[error("provider `{provider_id}` is not supported yet")]
    Unsupported { provider_id: String },
}

impl ProviderError {
    /// Whether the engine should retry (with backoff) rather than fail the step.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Transient { .. })
    }

    /// The provider's answer body (truncated), when there was one.
    pub fn raw(&self) -> Option<&str> {
        match self {
            Self::Transient { raw, .. } | Self::Permanent { raw, .. } => raw.as_deref(),
            Self::Unsupported { .. } => None,
        }
    }

    pub(crate) fn permanent(message: impl Into<String>) -> Self {
        Self::Permanent { message: message.into(), raw: None }
    }
}
