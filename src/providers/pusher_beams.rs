//! `pusher-beams`: `POST {baseUrl | https://<instanceId>.pushnotifications.pusher.com}/publish_api/v1/
//! instances/<instanceId>/publishes/users` with `Authorization: Bearer <secretKey>` and a JSON body
//! `{"users": [...], "apns": {"aps": {"alert": {title, body}}}, "fcm": {"notification": {title, body},
//! "data"}, "web": {"notification": {title, body}, "data"}}`. Credentials: `instanceId` and `secretKey`.
//!
//! The device tokens are Beams **user ids** (bound by the app with `setUserId`). A message goes to all
//! of them in one request, at most 1,000 a request (Beams' limit); an id longer than Beams' 164
//! characters can never be one, and is refused without being sent (permanent).
//!
//! Overrides (`overrides.push`, then `overrides["pusher-beams"]`): `title`, `body`, `data` (FCM and web
//! `data`), `sound` (APNs and FCM), `badge` and `category` (APNs), `channelId` (`android_channel_id`),
//! `clickAction` (`click_action`), `color`, `icon` (FCM and web), `tag`, and `ttl` (`time_to_live`).
//!
//! Answers: `200 {"publishId"}` accepts every user of the request with that id. Beams reports nothing per
//! user (an unknown user is not an error, and it prunes dead devices itself), so there is no dead
//! destination. Errors are `{"error", "description"}`: 401 (wrong key) and 404 (no such instance)
//! misconfigure the integration; 429 and 5xx are transient after `Retry-After`; 400 and 402 (the plan's
//! limit) permanent.

use reqwest::Url;
use serde_json::{json, Map, Value};

use super::account::required;
use super::endpoint::endpoint;
use super::http::{ErrorKind, HttpAnswer};
use super::push::{device_tokens, one_answer, PushMessage};
use super::registry::Http;
use super::{Accepted, Delivery, DeviceAnswer, Provider, ProviderError};

const ID: &str = "pusher-beams";
/// The most user ids one publish may name.
const MAX_TOKENS: usize = 1_000;
/// The longest user id Beams accepts.
const MAX_USER_ID: usize = 164;
const ERROR_PATHS: &[&str] = &["description", "error"];

pub(crate) struct PusherBeams {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for PusherBeams {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        device_tokens(ID, delivery)?;
        one_answer(self.send_each(delivery).await)
    }

    async fn send_each(&self, delivery: &Delivery) -> Vec<DeviceAnswer> {
        let tokens = &delivery.to.device_tokens;
        let (url, secret) = match target(delivery, &self.http) {
            Ok(target) => target,
            Err(err) => return every(tokens, &err),
        };
        let content = body(&PushMessage::of(delivery));
        let valid: Vec<String> = tokens.iter().filter(|token| usable(token)).cloned().collect();
        let mut accepted = Vec::with_capacity(valid.len());
        for batch in valid.chunks(MAX_TOKENS) {
            let mut body = content.clone();
            body["users"] = json!(batch);
            let request = self.http.client.post(url.clone()).bearer_auth(secret).json(&body);
            accepted.extend(match self.http.fetch(ID, request).await {
                Ok(answer) => per_token(batch, answer),
                Err(err) => every(batch, &err),
            });
        }
        let mut accepted = accepted.into_iter();
        tokens
            .iter()
            .map(|token| match usable(token) {
                true => accepted.next().expect("an answer for every usable user id"),
                false => DeviceAnswer {
                    token: token.clone(),
                    answer: Err(ProviderError::permanent(format!(
                        "{ID}: a Beams user id is 1 to {MAX_USER_ID} characters; this one is {}",
                        token.chars().count()
                    ))),
                },
            })
            .collect()
    }
}

fn usable(token: &str) -> bool {
    !token.is_empty() && token.chars().count() <= MAX_USER_ID
}

fn target<'a>(delivery: &'a Delivery, http: &Http) -> Result<(Url, &'a str), ProviderError> {
    let credentials = &delivery.credentials;
    let instance = required(ID, credentials, "instanceId")?;
    let secret = required(ID, credentials, "secretKey")?;
    if !instance.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-') {
        return Err(ProviderError::misconfigured(format!("{ID} `instanceId` must be letters, digits and dashes")));
    }
    let api = format!("https://{instance}.pushnotifications.pusher.com");
    let path = format!("/publish_api/v1/instances/{instance}/publishes/users");
    Ok((endpoint(ID, credentials, &api, &path, &http.settings)?, secret))
}

/// The publish body without its users.
fn body(message: &PushMessage) -> Value {
    let mut alert = json!({"body": message.body});
    let mut notification = json!({"body": message.body});
    if let Some(title) = &message.title {
        alert["title"] = json!(title);
        notification["title"] = json!(title);
    }
    let mut aps = json!({"alert": alert});
    if let Some(badge) = message.number("badge") {
        aps["badge"] = json!(badge);
    }
    for key in ["category", "sound"] {
        if let Some(value) = message.text(key) {
            aps[key] = json!(value);
        }
    }
    let mut fcm_notification = notification.clone();
    for (ours, theirs) in [
        ("channelId", "android_channel_id"),
        ("clickAction", "click_action"),
        ("color", "color"),
        ("icon", "icon"),
        ("sound", "sound"),
        ("tag", "tag"),
    ] {
        if let Some(value) = message.text(ours) {
            fcm_notification[theirs] = json!(value);
        }
    }
    let mut web_notification = notification;
    if let Some(icon) = message.text("icon") {
        web_notification["icon"] = json!(icon);
    }
    let mut fcm = json!({"notification": fcm_notification});
    let mut web = json!({"notification": web_notification});
    for platform in [&mut fcm, &mut web] {
        if !message.data.is_empty() {
            platform["data"] = Value::Object(message.data.clone());
        }
        if let Some(ttl) = message.number("ttl") {
            platform["time_to_live"] = json!(ttl);
        }
    }
    let mut body = Map::new();
    body.insert("apns".to_owned(), json!({"aps": aps}));
    body.insert("fcm".to_owned(), fcm);
    body.insert("web".to_owned(), web);
    Value::Object(body)
}

/// One answer for each user id of a batch: Beams answers for the publish as a whole.
fn per_token(tokens: &[String], answer: HttpAnswer) -> Vec<DeviceAnswer> {
    if !answer.status.is_success() {
        let kind = match answer.status.as_u16() {
            404 => ErrorKind::Misconfigured,
            _ => ErrorKind::of_status(answer.status),
        };
        return every(tokens, &answer.error(ID, kind, ERROR_PATHS));
    }
    let json: Value = serde_json::from_str(answer.body.text()).unwrap_or_default();
    let Some(publish_id) = json["publishId"].as_str().filter(|id| !id.is_empty()) else {
        let err = answer.error_saying(ID, ErrorKind::Permanent, Some("the answer names no publishId".to_owned()));
        return every(tokens, &err);
    };
    tokens
        .iter()
        .map(|token| DeviceAnswer {
            token: token.clone(),
            answer: Ok(Accepted { provider_message_id: Some(publish_id.to_owned()), raw: answer.body.raw() }),
        })
        .collect()
}

/// `err` as the answer of each of `tokens`.
fn every(tokens: &[String], err: &ProviderError) -> Vec<DeviceAnswer> {
    tokens.iter().map(|token| DeviceAnswer { token: token.clone(), answer: Err(err.clone()) }).collect()
}
