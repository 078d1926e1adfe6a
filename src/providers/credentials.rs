//! Reading what an adapter needs from the integration's credentials.

use reqwest::Url;
use serde_json::Value;

use super::ProviderError;

/// A credential that is a non-empty string; `""` counts as absent (forms send it for "unset").
pub(crate) fn credential<'a>(credentials: &'a Value, key: &str) -> Option<&'a str> {
    credentials.get(key)?.as_str().filter(|value| !value.is_empty())
}

/// A yes/no credential: `true` or `"true"` (any case; forms send strings); anything else, or none, is no.
pub(crate) fn flag(credentials: &Value, key: &str) -> bool {
    match credentials.get(key) {
        Some(Value::Bool(on)) => *on,
        Some(Value::String(on)) => on.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// The URL in credential `key`, which the adapter cannot do without.
pub(crate) fn required_url(provider_id: &str, credentials: &Value, key: &str) -> Result<Url, ProviderError> {
    let url = credential(credentials, key)
        .ok_or_else(|| ProviderError::permanent(format!("{provider_id} integration has no {key}")))?;
    target_url(provider_id, key, url)
}

/// Parses a destination URL, naming `what` it is in the error (`webhookUrl`, `baseUrl`…). Only http(s):
/// anything else would be a request reqwest cannot make, every time.
pub(crate) fn target_url(provider_id: &str, what: &str, url: &str) -> Result<Url, ProviderError> {
    match Url::parse(url) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host_str().is_some() => Ok(url),
        _ => Err(ProviderError::permanent(format!("{provider_id} {what} is not a valid http(s) URL"))),
    }
}
