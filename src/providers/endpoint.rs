//! Where an HTTP adapter sends: the provider's public API, or the integration's optional `baseUrl`,
//! which replaces scheme, host and port (a self-hosted or regional endpoint, a test's local fake); the
//! adapter still builds the path. Plain `http://` is accepted only for loopback hosts, unless the
//! operator allows it (`HERALD_PROVIDER_ALLOW_HTTP`): credentials must not cross a network in clear.

use std::net::IpAddr;
use std::sync::Arc;

use reqwest::Url;
use serde_json::Value;

use super::credentials::credential;
use super::outbound::OutboundPolicy;
use super::ProviderError;

/// What the operator allows adapters to do. Built once at start; the API process (SNS certificates) and
/// the workers share it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderSettings {
    /// Accept `http://` base URLs on any host, not only loopback ones.
    pub allow_plain_http: bool,
    /// Where outbound connections may go (`HERALD_OUTBOUND_ALLOW`); by default no non-global address.
    pub outbound: Arc<OutboundPolicy>,
}

/// The URL of `path` (which starts with `/`) at `default_base` or at the integration's `baseUrl`.
pub(crate) fn endpoint(
    provider_id: &str,
    credentials: &Value,
    default_base: &str,
    path: &str,
    settings: &ProviderSettings,
) -> Result<Url, ProviderError> {
    let base = match credential(credentials, "baseUrl") {
        Some(base) => checked_url(provider_id, "baseUrl", base, settings)?,
        None => Url::parse(default_base).expect("a provider's own base URL is valid"),
    };
    base.join(path).map_err(|_| ProviderError::permanent(format!("{provider_id}: `{path}` is not a valid path")))
}

/// The integration's `baseUrl`, checked as [`endpoint`] checks it; `None` when it has none.
pub(crate) fn integration_base(
    provider_id: &str,
    credentials: &Value,
    settings: &ProviderSettings,
) -> Result<Option<Url>, ProviderError> {
    credential(credentials, "baseUrl").map(|base| checked_url(provider_id, "baseUrl", base, settings)).transpose()
}

/// A URL from the integration's credentials (`what` names it: `baseUrl`, FCM's `token_uri`), held to
/// the same rule as a `baseUrl`: https, or plain http on loopback unless the operator allows it.
pub(crate) fn checked_url(
    provider_id: &str,
    what: &str,
    url: &str,
    settings: &ProviderSettings,
) -> Result<Url, ProviderError> {
    let invalid = |why: &str| ProviderError::misconfigured(format!("{provider_id} {what} {why}"));
    let url = Url::parse(url).map_err(|_| invalid("is not a valid URL"))?;
    let host = url.host_str().ok_or_else(|| invalid("has no host"))?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if settings.allow_plain_http || is_loopback(host) => Ok(url),
        "http" => {
            Err(invalid("must use https (plain http only for loopback hosts unless HERALD_PROVIDER_ALLOW_HTTP is set)"))
        }
        _ => Err(invalid("must be an http(s) URL")),
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn base_urls_replace_the_origin_and_plain_http_stays_on_loopback() {
        let settings = ProviderSettings::default();
        let at = |credentials: Value| {
            endpoint("sendgrid", &credentials, "https://api.sendgrid.com", "/v3/mail/send", &settings)
        };
        assert_eq!(at(json!({})).unwrap().as_str(), "https://api.sendgrid.com/v3/mail/send");
        assert_eq!(at(json!({"baseUrl": ""})).unwrap().as_str(), "https://api.sendgrid.com/v3/mail/send");
        assert_eq!(
            at(json!({"baseUrl": "https://eu.example.com:8443/ignored"})).unwrap().as_str(),
            "https://eu.example.com:8443/v3/mail/send"
        );
        for loopback in ["http://127.0.0.1:9000", "http://localhost:9000", "http://[::1]:9000"] {
            assert!(at(json!({"baseUrl": loopback})).is_ok(), "{loopback}");
        }
        let refused = at(json!({"baseUrl": "http://mail.internal:9000"})).unwrap_err();
        assert!(refused.is_integration_fault() && refused.to_string().contains("must use https"), "{refused}");
        assert!(at(json!({"baseUrl": "ftp://example.com"})).is_err());
        assert!(at(json!({"baseUrl": "not a url"})).is_err());
        let open = ProviderSettings { allow_plain_http: true, ..Default::default() };
        assert!(endpoint("sendgrid", &json!({"baseUrl": "http://mail.internal"}), "https://x", "/", &open).is_ok());
    }
}
