//! `getstream`, two ways.
//!
//! **Stream Chat API** (when the integration has `apiKey` and `secretKey`): `POST
//! {baseUrl | https://chat.stream-io-api.com}/channels/<type>/<id>/message?api_key=<apiKey>` with a server
//! token (a JWT `{"server": true}` signed HS256 with `secretKey`) in `Authorization` and
//! `stream-auth-type: jwt`; JSON `{"message": {"text", "user_id", ...customData}}`. The channel is the
//! subscriber's `channel` credential, written `<type>:<id>` (Stream's own channel id notation, its
//! `cid`); a bare id is a channel of type `messaging`. The message is sent as the integration's `user`
//! (a Stream user id; server-side sends must name one). Success: `201 {"message": {"id", …}, "duration"}`;
//! `message.id` is recorded. Errors are `{"code", "message", "StatusCode", "more_info"}`:
//! - code 5 or 40 (or a 401/403): the key, secret or token is wrong, misconfigured;
//! - code 16 or a 404 (`Can't find channel …`): the subscriber's channel is gone, a dead destination;
//! - 429 (code 9): transient until `X-RateLimit-Reset` (a Unix time in seconds), else `Retry-After`;
//!   5xx transient; anything else (code 4, bad input…) permanent.
//!
//! **The reference service's wire shape** (only a `webhookUrl`, the subscriber's or the integration's):
//! `POST <webhookUrl>` with JSON `{"text", "headers": {"X-API-KEY": <apiKey>}}`. The key ends up *inside*
//! the body, as the reference service sends it (it passes the headers as the body's data); Stream itself
//! has no incoming-webhook URL, so this reaches whatever relay the URL names. No id is recorded (the
//! reference reads one from a header that is never there). Errors are sorted by status, for the webhook's
//! owner.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::hmac;
use serde_json::{json, Value};

use super::account::required;
use super::chat::{with_custom_data, Webhook};
use super::credentials::credential;
use super::endpoint::endpoint;
use super::http::{coded, ErrorKind};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "getstream";
const API: &str = "https://chat.stream-io-api.com";
/// The channel type of a `channel` credential that names only an id.
const DEFAULT_CHANNEL_TYPE: &str = "messaging";

pub(crate) struct GetStream {
    pub(crate) http: Http,
}

/// Whether the integration's credentials select the Stream Chat API (else the reference's generic POST).
pub(crate) fn uses_chat_api(credentials: &Value) -> bool {
    credential(credentials, "apiKey").is_some() && credential(credentials, "secretKey").is_some()
}

#[tonic::async_trait]
impl Provider for GetStream {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        if uses_chat_api(&delivery.credentials) {
            self.send_to_channel(delivery).await
        } else {
            self.send_to_webhook(delivery).await
        }
    }
}

impl GetStream {
    async fn send_to_channel(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let credentials = &delivery.credentials;
        let api_key = required(ID, credentials, "apiKey")?;
        let secret = required(ID, credentials, "secretKey")?;
        let user_id = required(ID, credentials, "user")?;
        let Some(cid) = delivery.to.chat_channel.as_deref().filter(|cid| !cid.is_empty()) else {
            return Err(ProviderError::permanent(format!("{ID}: the subscriber has no channel (`type:id`)")));
        };
        let (channel_type, channel_id) = channel(cid)?;
        let path = format!("/channels/{channel_type}/{channel_id}/message");
        let mut url = endpoint(ID, credentials, API, &path, &self.http.settings)?;
        url.query_pairs_mut().append_pair("api_key", api_key);
        let message = with_custom_data(json!({"text": delivery.content, "user_id": user_id}), delivery);
        let request = self
            .http
            .client
            .post(url)
            .header("Authorization", server_token(secret))
            .header("stream-auth-type", "jwt")
            .json(&json!({"message": message}));
        let answer = self.http.fetch(ID, request).await?;
        if answer.status.is_success() {
            return Ok(answer.body.accepted("message.id"));
        }
        let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
        let code = json["code"].as_i64();
        let kind = match (answer.status.as_u16(), code) {
            (_, Some(5 | 40)) | (401 | 403, _) => ErrorKind::Misconfigured,
            (_, Some(16)) | (404, _) => ErrorKind::DeadDestination,
            (429, _) | (_, Some(9)) => ErrorKind::Transient,
            _ => ErrorKind::of_status(answer.status),
        };
        let code_text = code.map(|code| code.to_string());
        let text = coded(code_text.as_deref(), json["message"].as_str()).or_else(|| answer.error_text(&[]));
        let mut err = answer.error_saying(ID, kind, text);
        if let (ProviderError::Transient { retry_after, .. }, Some(reset)) =
            (&mut err, answer.header("x-ratelimit-reset").and_then(|reset| reset.trim().parse::<u64>().ok()))
        {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
            *retry_after = Some(Duration::from_secs(reset.saturating_sub(now).max(1)));
        }
        Err(err)
    }

    async fn send_to_webhook(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let webhook = Webhook::of(ID, delivery)?;
        let api_key = credential(&delivery.credentials, "apiKey");
        let body = json!({"text": delivery.content, "headers": {"X-API-KEY": api_key}});
        let answer = self.http.fetch(ID, self.http.client.post(webhook.url).json(&body)).await?;
        if answer.status.is_success() {
            return Ok(answer.body.accepted_as(None));
        }
        Err(answer.error(ID, webhook.owner.kind(ErrorKind::of_status(answer.status)), &["message", "error"]))
    }
}

/// `type:id` (a bare `id` is a `messaging` channel), each part as Stream allows it: letters, digits, `-`,
/// `_` (and `!` in ids, for distinct channels); anything else cannot name a channel, permanent.
fn channel(cid: &str) -> Result<(&str, &str), ProviderError> {
    let (channel_type, id) = cid.split_once(':').unwrap_or((DEFAULT_CHANNEL_TYPE, cid));
    let valid = |part: &str, extra: &[u8]| {
        !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b) || extra.contains(&b))
    };
    if valid(channel_type, b"") && valid(id, b"!@") {
        Ok((channel_type, id))
    } else {
        Err(ProviderError::permanent(format!("{ID}: the subscriber's channel `{cid}` is not `type:id`")))
    }
}

/// Stream's server-side token: a JWT `{"server": true}` signed HS256 with the API secret.
pub(crate) fn server_token(secret: &str) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = URL_SAFE_NO_PAD.encode(br#"{"server":true}"#);
    let signing_input = format!("{header}.{claims}");
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes()), signing_input.as_bytes());
    format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_channel_is_type_colon_id_and_a_bare_id_is_messaging() {
        assert_eq!(channel("team:general").unwrap(), ("team", "general"));
        assert_eq!(channel("general").unwrap(), ("messaging", "general"));
        assert!(channel("team:gen/../x").is_err());
        assert!(channel(":x").is_err());
    }

    #[test]
    fn the_server_token_verifies_under_the_secret() {
        let token = server_token("s3cret");
        let (input, signature) = token.rsplit_once('.').unwrap();
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"s3cret");
        let signature = URL_SAFE_NO_PAD.decode(signature).unwrap();
        assert!(hmac::verify(&key, input.as_bytes(), &signature).is_ok());
        assert!(hmac::verify(&hmac::Key::new(hmac::HMAC_SHA256, b"other"), input.as_bytes(), &signature).is_err());
    }
}
