//! What AWS's error codes mean for a delivery, for `ses` (JSON errors) and `sns` (XML errors) alike.
//! Throttling and AWS's internal errors pass on a retry; a refused key or signature, or a key without
//! the permission, is the integration's fault; any other code is sorted by its HTTP status (a 400
//! `MessageRejected`, `OptedOut`… is permanent).

use reqwest::StatusCode;

use super::http::{coded, ErrorKind, HttpAnswer};
use super::ProviderError;

const TRANSIENT: &[&str] = &[
    "TooManyRequestsException",
    "Throttling",
    "ThrottlingException",
    "Throttled",
    "ThrottledException",
    "KMSThrottling",
    "KMSThrottlingException",
    "InternalError",
    "InternalErrorException",
    "InternalFailure",
    "ServiceUnavailable",
    "ServiceUnavailableException",
];

const MISCONFIGURED: &[&str] = &[
    "UnrecognizedClientException",
    "InvalidClientTokenId",
    "InvalidSignatureException",
    "SignatureDoesNotMatch",
    "IncompleteSignature",
    "IncompleteSignatureException",
    "MissingAuthenticationToken",
    "MissingAuthenticationTokenException",
    "AccessDenied",
    "AccessDeniedException",
    "AuthorizationError",
    "AuthorizationErrorException",
];

/// The error code without an `ns#` prefix or a `:url` suffix (`com.amazonaws.ses#MessageRejected`,
/// `MessageRejected:http://internal.amazon.com/…` are both `MessageRejected`).
pub(crate) fn error_code(raw: &str) -> &str {
    let code = raw.split_once(':').map_or(raw, |(code, _)| code);
    code.rsplit_once('#').map_or(code, |(_, code)| code).trim()
}

/// What `code` (already through [`error_code`]) at `status` means.
pub(crate) fn error_kind(code: &str, status: StatusCode) -> ErrorKind {
    if TRANSIENT.contains(&code) {
        ErrorKind::Transient
    } else if MISCONFIGURED.contains(&code) {
        ErrorKind::Misconfigured
    } else {
        ErrorKind::of_status(status)
    }
}

/// The failed `answer` as an error quoting `code: message`.
pub(crate) fn error(provider_id: &str, answer: &HttpAnswer, code: &str, message: Option<&str>) -> ProviderError {
    answer.error_saying(provider_id, error_kind(code, answer.status), coded(Some(code), message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_lose_their_namespace_and_url() {
        assert_eq!(error_code("MessageRejected"), "MessageRejected");
        assert_eq!(error_code("com.amazonaws.sesv2#TooManyRequestsException"), "TooManyRequestsException");
        assert_eq!(
            error_code("InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/"),
            "InvalidSignatureException"
        );
        assert_eq!(error_code("aws.protocoltests#Throttling:http://x/"), "Throttling");
    }

    #[test]
    fn codes_sort_before_statuses() {
        let bad_request = StatusCode::BAD_REQUEST;
        assert_eq!(error_kind("Throttling", bad_request), ErrorKind::Transient);
        assert_eq!(error_kind("TooManyRequestsException", StatusCode::TOO_MANY_REQUESTS), ErrorKind::Transient);
        assert_eq!(error_kind("SignatureDoesNotMatch", StatusCode::FORBIDDEN), ErrorKind::Misconfigured);
        assert_eq!(error_kind("AuthorizationError", bad_request), ErrorKind::Misconfigured);
        assert_eq!(error_kind("MessageRejected", bad_request), ErrorKind::Permanent);
        assert_eq!(error_kind("OptedOut", bad_request), ErrorKind::Permanent);
        assert_eq!(error_kind("LimitExceededException", bad_request), ErrorKind::Permanent);
        assert_eq!(error_kind("", StatusCode::SERVICE_UNAVAILABLE), ErrorKind::Transient);
    }
}
