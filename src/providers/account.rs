//! Credentials an adapter cannot send without.

use serde_json::Value;

use super::credentials::credential;
use super::ProviderError;

/// Credential `key`; an integration without it is misconfigured.
pub(crate) fn required<'a>(provider_id: &str, credentials: &'a Value, key: &str) -> Result<&'a str, ProviderError> {
    credential(credentials, key)
        .ok_or_else(|| ProviderError::misconfigured(format!("{provider_id} integration has no `{key}` credential")))
}

/// The `accountSid` and `token` of a provider that authenticates with Basic `accountSid:token` and names
/// the account in its paths (Twilio, Plivo). The id goes into the path, so it must be a plain word.
pub(crate) fn account<'a>(provider_id: &str, credentials: &'a Value) -> Result<(&'a str, &'a str), ProviderError> {
    let account = required(provider_id, credentials, "accountSid")?;
    if !account.bytes().all(|byte| byte.is_ascii_alphanumeric()) {
        return Err(ProviderError::misconfigured(format!(
            "{provider_id} `accountSid` must be letters and digits only"
        )));
    }
    Ok((account, required(provider_id, credentials, "token")?))
}
