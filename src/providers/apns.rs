//! `apns`: Apple Push Notification service with token authentication, one request per device token,
//! over HTTP/2 (APNs speaks nothing else).
//!
//! Credentials, as the reference service names them: `secretKey` (the text of the `.p8` key), `apiKey`
//! (its key id), `projectName` (the team id), `applicationId` (the bundle id, sent as `apns-topic`) and
//! `secure` (production; without it the sandbox, as the reference service defaults).
//!
//! Request: `POST {baseUrl | https://api.push.apple.com | https://api.sandbox.push.apple.com}/3/device/<token>`
//! with `authorization: bearer <provider token>` (see `token`), `apns-topic`, `apns-push-type` (`alert`),
//! `apns-priority` (10; 5 for a background push), `apns-collapse-id` (Herald's message id, so a retried
//! notification replaces rather than repeats itself on the device) and `apns-expiration` when given. Body:
//! `{"aps": {"alert": {"title", "subtitle"?, "body"}, "sound"?, "badge"?, "category"?, "thread-id"?,
//! "content-available"?, "mutable-content"?}, …custom data}`, the custom data being the trigger's payload
//! (see `push`). Overrides (`overrides.push`, then `overrides.apns`), with the reference service's names:
//! `title`, `body`, `subtitle`, `sound` (a name or Apple's critical-sound object), `badge`, `category`,
//! `threadId`, `contentAvailable`, `mutableContent`, `data`, `aps` (an object merged into `aps` as Apple
//! spells it, e.g. `interruption-level`), and for the headers `pushType`, `priority`, `expiry` (unix
//! seconds), `collapseId`, `topic`.
//!
//! Answers: `200` with an empty body and the `apns-id` header, recorded as the provider message id.
//! Errors are `{"reason"}` (plus `"timestamp"` on 410):
//! - 410 (`Unregistered`, `ExpiredToken`) and 400 `BadDeviceToken` / `DeviceTokenNotForTopic`: the token
//!   is dead ([`ProviderError::DeadDestination`]); `BadDeviceToken` is also what a token of the other
//!   environment gets, which the error says;
//! - 403 `ExpiredProviderToken`: the token is renewed once and the send retried once;
//! - other 403s (`InvalidProviderToken`, `MissingProviderToken`…): a misconfigured integration;
//! - 429 (`TooManyRequests`, `TooManyProviderTokenUpdates`) and 5xx: transient, after `Retry-After` if
//!   any; every other status (400, 404, 405, 413) permanent.
//!
//! Each signing key (team id and key id) has its own HTTP/2 client: APNs does not take tokens of several
//! teams on one connection, and one long-lived connection per team and host carries every concurrent send
//! (HTTP/2 multiplexes them) instead of a handshake per message.

mod token;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};
use reqwest::{Client, StatusCode, Url};
use serde_json::{json, Map, Value};

use self::token::ProviderTokens;
use super::account::required;
use super::credentials::flag;
use super::endpoint::endpoint;
use super::http::{fetch, noted, ErrorKind, HttpAnswer};
use super::outbound::OutboundPolicy;
use super::push::{device_tokens, one_answer, PushMessage};
use super::registry::client_builder;
use super::{Accepted, Delivery, Provider, ProviderError, ProviderSettings};

const ID: &str = "apns";
const PRODUCTION: &str = "https://api.push.apple.com";
const SANDBOX: &str = "https://api.sandbox.push.apple.com";

pub(crate) struct Apns {
    settings: ProviderSettings,
    /// By (team id, key id). Never removed: an entry per signing key ever used, which is a handful.
    accounts: Mutex<HashMap<(String, String), Arc<Account>>>,
}

/// What one signing key sends with.
struct Account {
    tokens: ProviderTokens,
    client: Client,
}

impl Apns {
    pub(crate) fn new(settings: ProviderSettings) -> Self {
        Self { settings, accounts: Mutex::new(HashMap::new()) }
    }

    /// The account of `config`'s signing key, set up on its first use, and again when the key behind
    /// the same key id changed.
    fn account(&self, config: &Config<'_>) -> Result<Arc<Account>, ProviderError> {
        let mut accounts = self.accounts.lock().expect("the accounts lock is never poisoned");
        let id = (config.team_id.to_owned(), config.key_id.to_owned());
        if let Some(account) = accounts.get(&id).filter(|account| account.tokens.signs_with(config.p8)) {
            return Ok(account.clone());
        }
        let account = Arc::new(Account {
            tokens: ProviderTokens::new(config.team_id, config.key_id, config.p8)?,
            client: http2_client(&self.settings.outbound),
        });
        accounts.insert(id, account.clone());
        Ok(account)
    }
}

#[tonic::async_trait]
impl Provider for Apns {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let token = match device_tokens(ID, delivery)? {
            [token] => token,
            _ => return one_answer(self.send_each(delivery).await),
        };
        let config = Config::of(&delivery.credentials)?;
        let url = device_url(&delivery.credentials, token, &self.settings)?;
        let notification = Notification::of(delivery, &config)?;
        let account = self.account(&config)?;
        let jwt = account.tokens.token()?;
        let mut answer = notification.post(&self.settings.outbound, &account.client, &url, &jwt).await?;
        if is_expired_token(&answer) {
            let renewed = account.tokens.renew(&jwt)?;
            answer = notification.post(&self.settings.outbound, &account.client, &url, &renewed).await?;
        }
        sorted(answer)
    }
}

/// The integration's credentials.
struct Config<'a> {
    p8: &'a str,
    key_id: &'a str,
    team_id: &'a str,
    bundle_id: &'a str,
}

impl<'a> Config<'a> {
    fn of(credentials: &'a Value) -> Result<Self, ProviderError> {
        Ok(Self {
            p8: required(ID, credentials, "secretKey")?,
            key_id: required(ID, credentials, "apiKey")?,
            team_id: required(ID, credentials, "projectName")?,
            bundle_id: required(ID, credentials, "applicationId")?,
        })
    }
}

/// `/3/device/<token>` at the integration's `baseUrl`, else on the production host when `secure` is set
/// and the sandbox host when not. The token is one path segment, escaped: whatever it holds, APNs judges it.
fn device_url(credentials: &Value, token: &str, settings: &ProviderSettings) -> Result<Url, ProviderError> {
    let host = if flag(credentials, "secure") { PRODUCTION } else { SANDBOX };
    let mut url = endpoint(ID, credentials, host, "/3/device/", settings)?;
    url.path_segments_mut().expect("an http(s) URL has a path").pop_if_empty().push(token);
    Ok(url)
}

/// The request for every device token of a delivery, but for the token itself and the authorization.
struct Notification {
    headers: HeaderMap,
    body: Value,
}

impl Notification {
    fn of(delivery: &Delivery, config: &Config<'_>) -> Result<Self, ProviderError> {
        let message = PushMessage::of(delivery);
        let push_type = message.text("pushType").unwrap_or("alert");
        let background = push_type == "background";
        // Apple refuses priority 10 for a background push.
        let priority = message.number("priority").unwrap_or(if background { 5 } else { 10 });
        let message_id = delivery.message_id.to_string();
        let mut headers = HeaderMap::new();
        let topic = message.text("topic").unwrap_or(config.bundle_id);
        let topic = HeaderValue::from_str(topic)
            .map_err(|_| ProviderError::misconfigured(format!("{ID} `applicationId` is not a valid bundle id")))?;
        headers.insert("apns-topic", topic);
        let mut set = |name: &'static str, value: &str| {
            let value = HeaderValue::from_str(value)
                .map_err(|_| ProviderError::permanent(format!("{ID}: the {name} override is not a header value")))?;
            headers.insert(HeaderName::from_static(name), value);
            Ok::<_, ProviderError>(())
        };
        set("apns-push-type", push_type)?;
        set("apns-priority", &priority.to_string())?;
        set("apns-collapse-id", message.text("collapseId").unwrap_or(&message_id))?;
        if let Some(expiry) = message.number("expiry") {
            set("apns-expiration", &expiry.to_string())?;
        }
        Ok(Self { headers, body: payload(&message, background) })
    }

    async fn post(
        &self,
        outbound: &OutboundPolicy,
        client: &Client,
        url: &Url,
        jwt: &str,
    ) -> Result<HttpAnswer, ProviderError> {
        let request = client
            .post(url.clone())
            .headers(self.headers.clone())
            .header(AUTHORIZATION, format!("bearer {jwt}"))
            .json(&self.body);
        fetch(ID, outbound, request).await
    }
}

/// The JSON payload: `aps` as Apple reads it, next to the custom data. A background push carries no
/// alert (Apple would not deliver it as one).
fn payload(message: &PushMessage, background: bool) -> Value {
    let mut aps = Map::new();
    if !background {
        let mut alert = Map::new();
        if let Some(title) = &message.title {
            alert.insert("title".into(), json!(title));
        }
        if let Some(subtitle) = message.text("subtitle") {
            alert.insert("subtitle".into(), json!(subtitle));
        }
        alert.insert("body".into(), json!(message.body));
        aps.insert("alert".into(), Value::Object(alert));
    }
    if let Some(sound) = message.value("sound").filter(|sound| sound.is_string() || sound.is_object()) {
        aps.insert("sound".into(), sound.clone());
    }
    if let Some(badge) = message.number("badge") {
        aps.insert("badge".into(), json!(badge));
    }
    if let Some(category) = message.text("category") {
        aps.insert("category".into(), json!(category));
    }
    if let Some(thread) = message.text("threadId") {
        aps.insert("thread-id".into(), json!(thread));
    }
    if message.flag("contentAvailable") || background {
        aps.insert("content-available".into(), json!(1));
    }
    if message.flag("mutableContent") {
        aps.insert("mutable-content".into(), json!(1));
    }
    if let Some(Value::Object(extra)) = message.value("aps") {
        aps.extend(extra.clone());
    }
    // `aps` is Apple's: a payload key of that name gives way.
    let mut body = message.data.clone();
    body.insert("aps".into(), Value::Object(aps));
    Value::Object(body)
}

fn is_expired_token(answer: &HttpAnswer) -> bool {
    answer.status == StatusCode::FORBIDDEN && answer.body.value("reason").as_deref() == Some("ExpiredProviderToken")
}

fn sorted(answer: HttpAnswer) -> Result<Accepted, ProviderError> {
    if answer.status.is_success() {
        let apns_id = answer.header("apns-id");
        return Ok(answer.body.accepted_as(apns_id));
    }
    let reason = answer.body.value("reason");
    let kind = match (answer.status, reason.as_deref()) {
        (StatusCode::GONE, _) | (StatusCode::BAD_REQUEST, Some("BadDeviceToken" | "DeviceTokenNotForTopic")) => {
            ErrorKind::DeadDestination
        }
        (status, _) => ErrorKind::of_status(status),
    };
    let err = answer.error(ID, kind, &["reason"]);
    Err(match reason.as_deref() {
        Some("BadDeviceToken") => {
            noted(err, "APNs also answers this for a token of the other environment, sandbox or production")
        }
        Some("ExpiredProviderToken") => noted(err, "refused again just after renewal: check the server's clock"),
        _ => err,
    })
}

/// A client that speaks only HTTP/2: over TLS it offers only `h2` (ALPN); to a plain `http://` base
/// (a local fake on loopback) it starts HTTP/2 without asking (prior knowledge, h2c).
fn http2_client(outbound: &Arc<OutboundPolicy>) -> Client {
    client_builder(outbound)
        .http2_prior_knowledge()
        // Apple asks providers to keep their connection open rather than reconnect for each burst;
        // pings keep a quiet one alive through NATs and find a dead one before a send does.
        .http2_keep_alive_interval(Duration::from_secs(60))
        .http2_keep_alive_while_idle(true)
        .pool_idle_timeout(Duration::from_secs(60 * 60))
        .build()
        .expect("the HTTP client's TLS backend initializes")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn secure_chooses_the_production_host_and_base_url_wins_over_both() {
        let settings = ProviderSettings::default();
        let url = |credentials: Value| device_url(&credentials, "a1b2", &settings).unwrap().to_string();

        assert_eq!(url(json!({})), "https://api.sandbox.push.apple.com/3/device/a1b2");
        assert_eq!(url(json!({"secure": false})), "https://api.sandbox.push.apple.com/3/device/a1b2");
        assert_eq!(url(json!({"secure": true})), "https://api.push.apple.com/3/device/a1b2");
        assert_eq!(url(json!({"secure": "true"})), "https://api.push.apple.com/3/device/a1b2");
        assert_eq!(
            url(json!({"secure": true, "baseUrl": "http://127.0.0.1:8443"})),
            "http://127.0.0.1:8443/3/device/a1b2"
        );
        assert!(device_url(&json!({"baseUrl": "http://apns.internal"}), "a1b2", &settings).is_err());
    }

    #[test]
    fn a_token_stays_one_path_segment() {
        let url = device_url(&json!({}), "../x?y", &ProviderSettings::default()).unwrap();
        assert_eq!(url.path(), "/3/device/..%2Fx%3Fy");
        assert_eq!(url.query(), None);
    }
}
