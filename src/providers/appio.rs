//! `appio` (IO, the Italian public-administration app, run by PagoPA): two requests per device token,
//! both with `Ocp-Apim-Subscription-Key: <apiKey>` and JSON, to `{baseUrl | https://api.io.pagopa.it/api/v1}`
//! (the integration's `baseUrl` is the whole API base, path included; the reference service's
//! `AppIOBaseUrl` is not an integration credential here):
//! 1. `POST /profiles` `{"fiscal_code"}`: `200 {"sender_allowed", "preferred_languages"}`;
//! 2. `POST /messages` `{"fiscal_code", "content": {"subject", "markdown"}}`: `201 {"id"}`, recorded.
//!
//! The device token is the citizen's fiscal code. The key is the integration's `apiKey`, else the
//! trigger's `overrides.appio.apiKey` (where the reference service reads it). The subject is the push
//! title and the markdown its body (`overrides.push`/`overrides.appio` `title` and `body` win); IO wants
//! 10–120 and 80–10000 characters, checked before sending (permanent, nothing sent).
//!
//! Answers: a `404` profile (no IO user) or `sender_allowed: false` (the citizen turned this service off)
//! is a dead destination, the token is removed; `401`/`403` misconfigured; `429` and 5xx (`500` "The
//! message cannot be delivered") transient; any other (`400` ProblemJson `{type, title, status,
//! detail}`) permanent.

use reqwest::Url;
use serde_json::{json, Value};

use super::credentials::credential;
use super::endpoint::integration_base;
use super::http::{ErrorKind, HttpAnswer};
use super::push::{one_device_token, PushMessage};
use super::registry::Http;
use super::{Accepted, Delivery, Provider, ProviderError};

const ID: &str = "appio";
const API: &str = "https://api.io.pagopa.it/api/v1";
const ERROR_PATHS: &[&str] = &["detail", "title", "message"];
const SUBJECT: (usize, usize) = (10, 120);
const MARKDOWN: (usize, usize) = (80, 10_000);

pub(crate) struct AppIo {
    pub(crate) http: Http,
}

#[tonic::async_trait]
impl Provider for AppIo {
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError> {
        let fiscal_code = one_device_token(ID, delivery)?;
        let api_key = credential(&delivery.credentials, "apiKey")
            .or_else(|| delivery.overrides[ID]["apiKey"].as_str().filter(|key| !key.is_empty()))
            .ok_or_else(|| {
                ProviderError::misconfigured(format!("{ID} integration has no `apiKey` (nor overrides.appio.apiKey)"))
            })?;
        let push = PushMessage::of(delivery);
        let subject = push.title.clone().unwrap_or_default();
        within(&subject, "subject (the title)", SUBJECT)?;
        within(&push.body, "markdown (the body)", MARKDOWN)?;
        let base = integration_base(ID, &delivery.credentials, &self.http.settings)?
            .unwrap_or_else(|| Url::parse(API).expect("IO's base URL is valid"));

        let profile = self.post(&base, "/profiles", api_key, &json!({"fiscal_code": fiscal_code})).await?;
        let allowed = serde_json::from_str::<Value>(profile.body.text()).unwrap_or_default()["sender_allowed"] == true;
        if !profile.status.is_success() || !allowed {
            let kind = match profile.status.as_u16() {
                404 => ErrorKind::DeadDestination,
                200..=299 => {
                    return Err(ProviderError::DeadDestination {
                        message: format!("{ID}: the citizen does not allow messages from this service"),
                        raw: Some(profile.body.text().to_owned()),
                    })
                }
                _ => ErrorKind::of_status(profile.status),
            };
            return Err(profile.error(ID, kind, ERROR_PATHS));
        }

        let body = json!({"fiscal_code": fiscal_code, "content": {"subject": subject, "markdown": push.body}});
        let message = self.post(&base, "/messages", api_key, &body).await?;
        if message.status.is_success() {
            return Ok(message.body.accepted("id"));
        }
        Err(message.error(ID, ErrorKind::of_status(message.status), ERROR_PATHS))
    }
}

impl AppIo {
    async fn post(&self, base: &Url, path: &str, api_key: &str, body: &Value) -> Result<HttpAnswer, ProviderError> {
        let mut url = base.clone();
        url.set_path(&format!("{}{path}", base.path().trim_end_matches('/')));
        let request = self.http.client.post(url).header("Ocp-Apim-Subscription-Key", api_key).json(body);
        self.http.fetch(ID, request).await
    }
}

/// `text` has between `min` and `max` characters, as IO requires.
fn within(text: &str, what: &str, (min, max): (usize, usize)) -> Result<(), ProviderError> {
    let length = text.chars().count();
    if (min..=max).contains(&length) {
        Ok(())
    } else {
        Err(ProviderError::permanent(format!("{ID}: the {what} has {length} characters; IO wants {min} to {max}")))
    }
}
