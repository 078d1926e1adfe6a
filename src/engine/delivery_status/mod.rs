//! Delivery status from providers: `POST /v1/webhooks/{environmentId}/{integrationId}` carries a
//! provider's delivery events for messages sent through that integration. The post has no API key:
//! the provider's own signature over it, checked with a secret of the integration, is what
//! authenticates it. One small module per provider verifies and reads its posts; [`apply`] records
//! what they say on the messages, in one transaction.
//!
//! | provider | scheme | secret |
//! |---|---|---|
//! | `sendgrid` | ECDSA P-256 / SHA-256 over timestamp + body | `secretKey` credential: the Event Webhook's verification key |
//! | `mailgun` | HMAC-SHA256 over timestamp + token, in the body | `secretKey` credential: the HTTP webhook signing key |
//! | `resend` | Svix: HMAC-SHA256 over `id.timestamp.body` | `secretKey` credential: the endpoint's `whsec_…` secret |
//! | `twilio` | HMAC-SHA1 over the URL and the sorted form fields | `token` credential: the account's auth token |
//! | `postmark` | none of its own: HTTP Basic credentials in the webhook URL | the integration's `inboundWebhookSigningKey` as the password |
//! | `ses` | Amazon SNS: RSA (SHA-1 or SHA-256) by an Amazon certificate named in the post | none: the certificate's host is checked (see `sns`) |
//!
//! Refusals: an unknown (or deleted) environment or integration is a 404; an unsigned, wrongly
//! signed or stale post (a timestamp more than five minutes off, where the scheme has one) a 401; a
//! verified post whose events cannot be read a 400. None of them changes anything. Events for a
//! message Herald does not know are accepted and ignored: providers retry every non-2xx answer.

mod apply;
mod mailgun;
mod postmark;
mod resend;
mod sendgrid;
mod ses;
mod signing;
mod sns;
mod twilio;

pub use sns::SnsCertificates;

use chrono::{DateTime, Utc};
use diesel_async::AsyncPgConnection;
use http::HeaderMap;
use uuid::Uuid;

use crate::crypto::CredentialCipher;
use crate::domain::integrations::{get_integration, Integration};
use crate::domain::tenancy::{get_environment, Tenant};
use crate::error::{AppError, AppResult};

/// Where providers post the delivery status of messages sent through `integration_id`, under
/// `public_url` (`HERALD_PUBLIC_URL`, which may carry a path prefix).
pub fn status_webhook_url(public_url: &url::Url, environment_id: Uuid, integration_id: Uuid) -> String {
    let base = public_url.as_str().trim_end_matches('/');
    format!("{base}/v1/webhooks/{environment_id}/{integration_id}")
}

/// A provider's post as Herald received it.
#[derive(Debug, Clone)]
pub struct InboundWebhook {
    /// The URL the provider called, as the provider saw it (Twilio signs it).
    pub url: String,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl InboundWebhook {
    /// A header's value, when present and text.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

/// What a provider says happened to one message.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusEvent {
    /// Herald's own message id, when the provider echoes it (SendGrid's custom args).
    pub herald_message_id: Option<Uuid>,
    /// The spellings of the provider's message id that may be stored on the message.
    pub provider_message_ids: Vec<String>,
    pub outcome: Outcome,
    /// The provider's name for the event (`delivered`, `bounce`, `email.bounced`…).
    pub event: String,
    /// The provider's explanation, for failures and delays.
    pub reason: Option<String>,
    /// When the provider says it happened.
    pub occurred_at: Option<DateTime<Utc>>,
    /// The event as the provider sent it, kept in the execution detail.
    pub raw: String,
}

/// What an event means for Herald's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Delivered to the recipient's server or handset.
    Delivered,
    /// Will not be delivered, or the recipient complained: the message becomes an error with this id
    /// (`bounced`, `delivery_failed`, `dropped`, `complained`).
    Failed { error_id: &'static str },
    /// On its way (queued, sending, deferred): recorded as a detail only.
    Pending,
}

/// What a post did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// Delivery events the post carried (engagement events such as opens are not counted).
    pub events: usize,
    /// Those that named a message Herald knows, and were recorded.
    pub recorded: usize,
}

/// Verifies a provider's post to the integration's status webhook and records its events.
pub async fn receive_delivery_status(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    sns: &SnsCertificates,
    environment_id: &str,
    integration_id: &str,
    webhook: InboundWebhook,
    now: DateTime<Utc>,
) -> AppResult<Receipt> {
    let integration = find_integration(conn, cipher, environment_id, integration_id).await?;
    let events = match integration.row.provider_id.as_str() {
        "sendgrid" => sendgrid::read(&webhook, &integration, now)?,
        "mailgun" => mailgun::read(&webhook, &integration, now)?,
        "resend" => resend::read(&webhook, &integration, now)?,
        "twilio" => twilio::read(&webhook, &integration)?,
        "postmark" => postmark::read(&webhook, &integration)?,
        "ses" => ses::read(sns.verify(&webhook, &integration).await?)?,
        other => {
            return Err(AppError::NotFound(format!(
                "Integration {integration_id} ({other}) has no delivery-status webhook"
            )))
        }
    };
    let recorded = apply::record_events(conn, &integration, &events, now).await?;
    Ok(Receipt { events: events.len(), recorded })
}

/// The live integration `integration_id` of environment `environment_id` (404 otherwise).
async fn find_integration(
    conn: &mut AsyncPgConnection,
    cipher: &CredentialCipher,
    environment_id: &str,
    integration_id: &str,
) -> AppResult<Integration> {
    let environment_uuid = Uuid::parse_str(environment_id)
        .map_err(|_| AppError::NotFound(format!("Environment with id {environment_id} not found")))?;
    let environment = get_environment(conn, environment_uuid).await?;
    let tenant = Tenant { organization_id: environment.organization_id, environment_id: environment.id };
    get_integration(conn, cipher, tenant, integration_id).await
}
