//! How a provider's HTTP answer is sorted, the same way for every HTTP adapter: 2xx accepted; 401 and
//! 403 a misconfigured integration; 408, 429 and 5xx transient, no sooner than `Retry-After`; any other
//! status permanent. The error carries the provider's own error text when its body has one.

use std::error::Error as _;
use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{RequestBuilder, Response, StatusCode};
use serde_json::Value;

use super::answer::Answer;
use super::outbound::{refusal_in, OutboundPolicy, Refused};
use super::registry::Http;
use super::ProviderError;

impl Http {
    /// Sends a request built on one of this value's clients and reads the answer (see [`fetch`]).
    pub(crate) async fn fetch(&self, provider_id: &str, request: RequestBuilder) -> Result<HttpAnswer, ProviderError> {
        fetch(provider_id, &self.settings.outbound, request).await
    }
}

/// Sends a request built on a client of `outbound` (whose resolver checks host names) and reads the
/// answer; a URL whose host is a refused IP address is not sent at all. No answer is [`request_failed`].
pub(crate) async fn fetch(
    provider_id: &str,
    outbound: &OutboundPolicy,
    request: RequestBuilder,
) -> Result<HttpAnswer, ProviderError> {
    let (client, request) = request.build_split();
    let request = request.map_err(|err| request_failed(provider_id, "", err))?;
    outbound.check_url(request.url()).map_err(|refused| refused_destination(provider_id, &refused))?;
    let host = request.url().host_str().unwrap_or_default().to_owned();
    let response = client.execute(request).await.map_err(|err| request_failed(provider_id, &host, err))?;
    Ok(HttpAnswer::read(&host, response).await)
}

/// A destination the outbound policy refuses: permanent, since the same URL is refused again until the
/// operator changes `HERALD_OUTBOUND_ALLOW` (and retrying would only knock on the same door).
pub(crate) fn refused_destination(provider_id: &str, refused: &Refused) -> ProviderError {
    ProviderError::permanent(format!("{provider_id}: {refused}"))
}

/// A provider's answer before it is sorted.
pub(crate) struct HttpAnswer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Answer,
    host: String,
}

impl HttpAnswer {
    pub(crate) async fn read(host: &str, response: Response) -> Self {
        let status = response.status();
        let headers = response.headers().clone();
        Self { status, headers, body: Answer::read(response).await, host: host.to_owned() }
    }

    /// Sorted by status. `error_paths`: where the provider's JSON error body keeps its message, tried in
    /// order (`errors.0.message`, `message`…); a plain-text error body is quoted as it is.
    pub(crate) fn sorted(self, provider_id: &str, error_paths: &[&str]) -> Result<Answer, ProviderError> {
        if self.status.is_success() {
            return Ok(self.body);
        }
        let kind = ErrorKind::of_status(self.status);
        Err(self.error(provider_id, kind, error_paths))
    }

    /// The text of response header `name` when it has a non-empty one (an id some providers answer in a
    /// header, such as SendGrid's `X-Message-Id`).
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        let value = self.headers.get(name)?.to_str().ok()?.trim();
        (!value.is_empty()).then(|| value.to_owned())
    }

    /// This answer as an error of `kind` (for providers that fail with a 2xx, or sort by their own codes).
    pub(crate) fn error(&self, provider_id: &str, kind: ErrorKind, error_paths: &[&str]) -> ProviderError {
        self.error_saying(provider_id, kind, self.error_text(error_paths))
    }

    /// This answer as an error of `kind` that quotes `text`, the provider's error as the adapter read it
    /// (from an XML body, a header, a code and a message…).
    pub(crate) fn error_saying(&self, provider_id: &str, kind: ErrorKind, text: Option<String>) -> ProviderError {
        let mut message = format!("{provider_id}: HTTP {} from {}", self.status, self.host);
        if let Some(text) = text {
            message.push_str(": ");
            message.push_str(&text);
        }
        kind.error(message, self.body.raw(), self.retry_after())
    }

    /// How long the provider asked us to wait (`Retry-After`), when it said.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        retry_after(&self.headers, Utc::now())
    }

    /// The provider's error text: the first string at one of `error_paths` of a JSON body, else a short
    /// plain-text body.
    pub(crate) fn error_text(&self, error_paths: &[&str]) -> Option<String> {
        let text = self.body.text();
        match serde_json::from_str::<Value>(text) {
            Ok(json) => {
                error_paths.iter().find_map(|path| super::answer::dotted(&json, path)?.as_str().map(str::to_owned))
            }
            Err(_) => Some(text.trim()).filter(|text| !text.is_empty() && text.len() <= 200).map(str::to_owned),
        }
    }
}

/// A provider's error as `<code>: <message>`, or whichever of the two it gave.
pub(crate) fn coded(code: Option<&str>, message: Option<&str>) -> Option<String> {
    match (code.filter(|code| !code.is_empty()), message.filter(|message| !message.is_empty())) {
        (Some(code), Some(message)) => Some(format!("{code}: {message}")),
        (code, message) => code.or(message).map(str::to_owned),
    }
}

/// What a failed answer means for the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    Transient,
    Permanent,
    Misconfigured,
    /// The device token or webhook is gone (see [`ProviderError::DeadDestination`]).
    DeadDestination,
}

impl ErrorKind {
    /// The error of this kind; `retry_after` counts only for a transient one.
    pub(crate) fn error(self, message: String, raw: Option<String>, retry_after: Option<Duration>) -> ProviderError {
        match self {
            Self::Transient => ProviderError::Transient { message, raw, retry_after },
            Self::Permanent => ProviderError::Permanent { message, raw },
            Self::Misconfigured => ProviderError::Misconfigured { message, raw },
            Self::DeadDestination => ProviderError::DeadDestination { message, raw },
        }
    }

    pub(crate) fn of_status(status: StatusCode) -> Self {
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Self::Misconfigured,
            StatusCode::REQUEST_TIMEOUT | StatusCode::TOO_MANY_REQUESTS => Self::Transient,
            status if status.is_server_error() => Self::Transient,
            _ => Self::Permanent,
        }
    }
}

/// `err` with `note` after its message: what the provider's own text leaves out (an error code, a hint
/// at the likely cause).
pub(crate) fn noted(mut err: ProviderError, note: &str) -> ProviderError {
    match &mut err {
        ProviderError::Transient { message, .. }
        | ProviderError::Permanent { message, .. }
        | ProviderError::Misconfigured { message, .. }
        | ProviderError::DeadDestination { message, .. } => {
            message.push_str(" (");
            message.push_str(note);
            message.push(')');
        }
        ProviderError::Unsupported { .. } => {}
    }
    err
}

/// `Retry-After` as a wait from `now`: delay seconds, or an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap, now: DateTime<Utc>) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = DateTime::parse_from_rfc2822(value).ok()?.with_timezone(&Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

/// No answer at all. A destination the outbound policy refused (at resolution) is [`refused_destination`];
/// anything else that went wrong on the way (connect, timeout, send) may pass on a retry;
/// only a request reqwest could not build is our own permanent fault.
pub(crate) fn request_failed(provider_id: &str, host: &str, err: reqwest::Error) -> ProviderError {
    if let Some(refused) = refusal_in(&err) {
        return refused_destination(provider_id, refused);
    }
    // Webhook URLs often carry a token in their path: name the host only.
    let err = err.without_url();
    let mut message = format!("{provider_id}: request to {host} failed: {err}");
    let mut source = err.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    if err.is_builder() {
        ProviderError::permanent(message)
    } else {
        ProviderError::transient(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = DateTime::parse_from_rfc3339("2026-11-24T10:00:00Z").unwrap().with_timezone(&Utc);
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers, now), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("30"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(30)));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("Tue, 24 Nov 2026 10:02:00 GMT"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(120)));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("Tue, 24 Nov 2026 09:00:00 GMT"));
        assert_eq!(retry_after(&headers, now), Some(Duration::ZERO), "a date in the past: at once");
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers, now), None);
    }

    #[test]
    fn statuses_sort_into_kinds() {
        for (status, kind) in [
            (400, ErrorKind::Permanent),
            (401, ErrorKind::Misconfigured),
            (403, ErrorKind::Misconfigured),
            (404, ErrorKind::Permanent),
            (408, ErrorKind::Transient),
            (422, ErrorKind::Permanent),
            (429, ErrorKind::Transient),
            (500, ErrorKind::Transient),
            (503, ErrorKind::Transient),
            (302, ErrorKind::Permanent),
        ] {
            assert_eq!(ErrorKind::of_status(StatusCode::from_u16(status).unwrap()), kind, "{status}");
        }
    }
}
