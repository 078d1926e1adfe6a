//! `generic-sms`: an SMS as JSON to any HTTP gateway, configured entirely by the integration.
//!
//! * URL: `baseUrl`, else `webhookUrl`.
//! * Body: `{to, from, content, messageId, transactionId}` (`to` is the subscriber's phone, `from` the
//!   integration's, null when unset).
//! * `apiKey`, when set, goes in the header named by `apiKeyRequestHeader` (default `x-api-key`).
//! * Provider message id: the JSON answer's value at `idPath` (dotted, numeric segments index arrays;
//!   default `id`), since every gateway nests it differently.

use serde_json::json;

use super::credentials::{credential, target_url};
use super::registry::Http;
use super::signed_post::SignedPost;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "generic-sms";
const DEFAULT_API_KEY_HEADER: &str = "x-api-key";
const DEFAULT_ID_PATH: &str = "id";

pub(crate) struct GenericSms {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for GenericSms {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let url = match (credential(credentials, "baseUrl"), credential(credentials, "webhookUrl")) {
            (Some(url), _) => target_url(ID, "baseUrl", url)?,
            (None, Some(url)) => target_url(ID, "webhookUrl", url)?,
            (None, None) => {
                return Err(ProviderError::permanent(format!("{ID} integration has no baseUrl or webhookUrl")))
            }
        };
        let to = delivery
            .to
            .phone
            .as_deref()
            .ok_or_else(|| ProviderError::permanent(format!("{ID}: the subscriber has no phone number")))?;
        let body = json!({
            "to": to,
            "from": credential(credentials, "from"),
            "content": delivery.content,
            "messageId": delivery.message_id,
            "transactionId": delivery.transaction_id,
        });

        let mut post = SignedPost::new(ID, delivery, url, &body);
        if let Some(api_key) = credential(credentials, "apiKey") {
            let header = credential(credentials, "apiKeyRequestHeader").unwrap_or(DEFAULT_API_KEY_HEADER);
            post = post.header(header, api_key)?;
        }
        let answer = post.send(&self.http).await?;
        Ok(answer.accepted(credential(credentials, "idPath").unwrap_or(DEFAULT_ID_PATH)))
    }
}
