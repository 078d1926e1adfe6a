//! The one HTTP request every adapter makes: a signed JSON POST, and the sorting of its answer into
//! accepted, transient or permanent.

use hmac::{Hmac, Mac};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use reqwest::Url;
use serde_json::Value;
use sha2::Sha256;

use super::answer::Answer;
use super::credentials::credential;
use super::http::{refused_destination, request_failed, HttpAnswer};
use super::registry::Http;
use super::{Delivery, ProviderError};

const IDEMPOTENCY_KEY: &str = "idempotency-key";
const TIMESTAMP: &str = "x-herald-timestamp";
const SIGNATURE: &str = "x-herald-signature";

/// The signature of a request: lowercase hex of HMAC-SHA256 keyed by `secret` over
/// `"<timestamp>.<body>"`. Sent as `x-herald-signature: v1=<this>` beside `x-herald-timestamp: <timestamp>`.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// One signed POST of `body` for `delivery`: idempotency key from its message id, signed with its
/// integration's `secretKey` when there is one.
pub(crate) struct SignedPost<'a> {
    provider_id: &'a str,
    url: Url,
    body: &'a Value,
    delivery: &'a Delivery,
    headers: HeaderMap,
}

impl<'a> SignedPost<'a> {
    pub(crate) fn new(provider_id: &'a str, delivery: &'a Delivery, url: Url, body: &'a Value) -> Self {
        Self { provider_id, url, body, delivery, headers: HeaderMap::new() }
    }

    /// Adds a header named and valued by the integration, so both may be invalid, or may try to replace
    /// one of the headers receivers rely on.
    pub(crate) fn header(mut self, name: &str, value: &str) -> Result<Self, ProviderError> {
        let provider_id = self.provider_id;
        let invalid = |what: &str| ProviderError::permanent(format!("{provider_id}: {what}"));
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid(&format!("`{name}` is not a valid header name")))?;
        if name == CONTENT_TYPE || [IDEMPOTENCY_KEY, TIMESTAMP, SIGNATURE].contains(&name.as_str()) {
            return Err(invalid(&format!("the header `{name}` is Herald's own")));
        }
        let value = HeaderValue::from_str(value)
            .map_err(|_| invalid(&format!("the value for `{name}` is not a valid header")))?;
        self.headers.insert(name, value);
        Ok(self)
    }

    /// Posts and sorts the answer the way every HTTP adapter does (see `http`).
    pub(crate) async fn send(self, http: &Http) -> Result<Answer, ProviderError> {
        http.settings
            .outbound
            .check_url(&self.url)
            .map_err(|refused| refused_destination(self.provider_id, &refused))?;
        let host = self.url.host_str().unwrap_or_default().to_owned();
        // Serialized once: the signature must cover exactly the bytes that go on the wire.
        let body = serde_json::to_vec(self.body).expect("a JSON value always serializes");
        let timestamp = chrono::Utc::now().timestamp();

        let mut request = http
            .client
            .post(self.url)
            .headers(self.headers)
            .header(CONTENT_TYPE, "application/json")
            .header(IDEMPOTENCY_KEY, self.delivery.message_id.to_string())
            .header(TIMESTAMP, timestamp.to_string());
        if let Some(secret) = credential(&self.delivery.credentials, "secretKey") {
            request = request.header(SIGNATURE, format!("v1={}", signature(secret, timestamp, &body)));
        }

        let response = request.body(body).send().await.map_err(|err| request_failed(self.provider_id, &host, err))?;
        HttpAnswer::read(&host, response).await.sorted(self.provider_id, &[])
    }
}
