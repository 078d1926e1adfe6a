//! Delivery adapters: how a rendered email, SMS, chat or push message leaves Herald.
//!
//! The engine builds a [`Delivery`], picks the adapter with [`Providers::get`] (by the integration's
//! provider id) and calls [`Provider::send`]. The answer is either [`Accepted`] or a [`ProviderError`] that
//! says whether trying again can help: [`ProviderError::is_transient`] errors are retried after
//! [`retry_delay`], up to [`DEFAULT_MAX_ATTEMPTS`] tries; everything else fails the step at once.
//!
//! # Adapters
//!
//! Every adapter but one is an HTTP POST (see each module for its shape):
//! - Herald's own webhooks, a signed JSON body (below): `email-webhook`, `chat-webhook`, `push-webhook` and
//!   `generic-sms`;
//! - providers' own APIs, each with its own authentication and an optional `baseUrl` (see `endpoint`):
//!   email through `resend`, `sendgrid`, `mailgun` (a multipart form; EU domains need its EU `baseUrl`),
//!   `postmark` and `ses` (Amazon SES v2); SMS through `twilio`, `nexmo` (Vonage), `plivo` and `sns`
//!   (Amazon SNS); the AWS ones are signed with SigV4 (`sigv4`);
//! - chat providers' webhooks, the subscriber's own (its channel credentials' `webhookUrl`) or else the
//!   integration's: `slack` (an incoming webhook, or `chat.postMessage` with a bot token to the
//!   subscriber's `channel`; `svc-slack` is the same, without the reference service's hosted OAuth app),
//!   `discord`, `msteams` (a Workflows webhook, an Adaptive Card), `mattermost`, `zulip` (its
//!   Slack-compatible incoming webhook), `ryver`, `grafana-on-call` (a Formatted Webhook alert),
//!   `rocket-chat` (`chat.sendMessage` to the subscriber's room on the server her `webhookUrl` names),
//!   `getstream` (Stream Chat's send-message API to the subscriber's `type:id` channel with a server JWT,
//!   or the reference service's generic POST to a `webhookUrl`); and
//!   `whatsapp-business` (the WhatsApp Cloud API, to the subscriber's phone). A webhook or channel that
//!   is gone is a [`ProviderError::DeadDestination`] when it is the
//!   subscriber's, and makes the integration misconfigured when it is the integration's (module `chat`).
//! - push through `apns` (HTTP/2, a signed provider token per team) and `one-signal` (all of a message's
//!   device tokens in one request), both reading the trigger's push overrides the same way (`push`).
//! - push through `fcm` (Firebase Cloud Messaging v1: a service account's OAuth token, cached; one request
//!   per device token) and `expo` (every token of a message in one request).
//! - push through `pushpad` (every uid of a message in one request; a uid without a subscription is
//!   left out of the answer, a dead destination) and `pusher-beams` (every Beams user id of a message in
//!   one publish; Beams reports nothing per user); `appio` (IO's profile check, then the message, per
//!   fiscal code; a citizen without IO or who turned the service off is a dead destination).
//!
//! A push message has an answer per device token ([`Provider::send_each`]); a token the provider says
//! is gone is a [`ProviderError::DeadDestination`], which the engine removes from the subscriber.
//!
//! `nodemailer` ("Custom SMTP") speaks SMTP to the integration's own server (module `smtp`: TLS modes,
//! connection pooling, how replies are sorted).
//!
//! Every other provider id, known to the spec or not, is [`ProviderError::Unsupported`] until it has an
//! adapter.
//!
//! # What a receiver of Herald's own webhooks gets
//!
//! Headers on every webhook request:
//! * `content-type: application/json`
//! * `idempotency-key: <messageId>`: the same for every retry of one message, so a receiver that saw it
//!   already can answer 2xx without delivering twice;
//! * `x-herald-timestamp: <unix seconds>`;
//! * `x-herald-signature: v1=<hex>` when the integration has a non-empty `secretKey`. The hex is
//!   HMAC-SHA256 keyed by the secret over `"<timestamp>.<raw body bytes>"` (see [`signature`]). A receiver
//!   verifies by recomputing it from the header timestamp and the body exactly as received, comparing in
//!   constant time, and rejecting timestamps too far from its clock (replay).
//!
//! Redirects are not followed: a 3xx is a permanent error, so a signed body never goes to a host the
//! integration did not name.
//!
//! Every connection is subject to the outbound policy (module `outbound`, `HERALD_OUTBOUND_ALLOW`): a
//! destination that is not publicly routable is refused, a permanent error naming the address.

mod account;
mod answer;
mod apns;
mod appio;
mod aws;
mod chat;
mod chat_webhook;
mod credentials;
mod discord;
mod email_webhook;
mod endpoint;
mod error;
mod expo;
mod fcm;
mod generic_sms;
mod getstream;
mod grafana_on_call;
mod http;
mod mailgun;
mod mattermost;
mod message;
mod msteams;
mod nexmo;
mod one_signal;
mod outbound;
mod plivo;
mod postmark;
mod push;
mod push_webhook;
mod pusher_beams;
mod pushpad;
mod registry;
mod resend;
mod retry;
mod rocket_chat;
mod ryver;
mod sendgrid;
mod ses;
mod signed_post;
mod sigv4;
mod slack;
mod smtp;
mod sns;
mod twilio;
mod whatsapp_business;
mod zulip;

#[cfg(test)]
mod tests;

use std::fmt;

use serde_json::Value;
use uuid::Uuid;

use crate::workflow::StepKind;

pub(crate) use endpoint::integration_base;
pub use endpoint::ProviderSettings;
pub use error::ProviderError;
pub use message::{EmailMessage, Mailbox, SmsMessage};
pub(crate) use outbound::refusal_in;
pub use outbound::{InvalidAllowEntry, OutboundPolicy};
pub use registry::Providers;
pub use retry::{retry_delay, DEFAULT_MAX_ATTEMPTS};
pub use signed_post::signature;

/// The channels that go through a provider (in-app messages stay in Herald).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    Email,
    Sms,
    Chat,
    Push,
}

impl Channel {
    /// The API's spelling of the channel.
    pub fn as_str(self) -> &'static str {
        self.step_kind().as_str()
    }

    /// The kind of the steps that deliver on this channel.
    pub fn step_kind(self) -> StepKind {
        match self {
            Self::Email => StepKind::Email,
            Self::Sms => StepKind::Sms,
            Self::Chat => StepKind::Chat,
            Self::Push => StepKind::Push,
        }
    }
}

/// Where one message goes: the subscriber's addresses for the channel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Destination {
    pub email: Option<String>,
    pub phone: Option<String>,
    /// The subscriber's own chat webhook (from its channel credentials); wins over the integration's.
    pub webhook_url: Option<String>,
    /// The subscriber's chat channel (its channel credentials' `channel`): a Slack channel id for the bot
    /// mode, a Mattermost channel override.
    pub chat_channel: Option<String>,
    pub device_tokens: Vec<String>,
    /// The subscriber's own Grafana OnCall alert fields (its channel credentials'), which win over the
    /// integration's.
    pub alert: AlertFields,
}

/// A Grafana OnCall alert's fields, as a subscriber's channel credentials name them (`alertUid`, `title`,
/// `imageUrl`, `state`, `externalUrl`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlertFields {
    pub alert_uid: Option<String>,
    pub title: Option<String>,
    pub image_url: Option<String>,
    pub state: Option<String>,
    pub external_url: Option<String>,
}

/// One message to send.
#[derive(Clone)]
pub struct Delivery {
    pub channel: Channel,
    pub provider_id: String,
    /// The integration's decrypted credentials, with the spec's camelCase keys (`webhookUrl`, `secretKey`…).
    pub credentials: Value,
    /// Sent as the `idempotency-key` header so a receiver can deduplicate retries.
    pub message_id: Uuid,
    pub transaction_id: String,
    pub to: Destination,
    pub subject: Option<String>,
    pub title: Option<String>,
    /// The rendered body (html for email).
    pub content: String,
    /// Email: the plain-text alternative of `content`.
    pub text: Option<String>,
    /// Email: the step's `senderName`, between the trigger's overrides and the integration's.
    pub sender_name: Option<String>,
    /// The workflow's identifier, for providers that tag messages with it.
    pub workflow_identifier: Option<String>,
    /// The subscriber's `subscriberId`.
    pub subscriber_id: String,
    pub payload: Value,
    /// Provider overrides from the trigger; may be `{}`.
    pub overrides: Value,
    /// Herald's delivery-status webhook for the integration, when `HERALD_PUBLIC_URL` says where
    /// providers reach Herald; for providers that take a callback per message (Twilio).
    pub status_callback_url: Option<String>,
}

// By hand so that a logged delivery never shows the integration's secrets.
impl fmt::Debug for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Delivery")
            .field("channel", &self.channel)
            .field("provider_id", &self.provider_id)
            .field("credentials", &"<redacted>")
            .field("message_id", &self.message_id)
            .field("transaction_id", &self.transaction_id)
            .field("to", &self.to)
            .field("subject", &self.subject)
            .field("title", &self.title)
            .field("content", &self.content)
            .field("text", &self.text)
            .field("sender_name", &self.sender_name)
            .field("workflow_identifier", &self.workflow_identifier)
            .field("subscriber_id", &self.subscriber_id)
            .field("payload", &self.payload)
            .field("overrides", &self.overrides)
            .field("status_callback_url", &self.status_callback_url)
            .finish()
    }
}

/// The provider took the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// The provider's id for the message, when its answer names one.
    pub provider_message_id: Option<String>,
    /// The provider's answer body, truncated, for the execution detail.
    pub raw: Option<String>,
}

/// Whether chat messages through `provider_id` with the integration's `credentials` go to the subscriber's
/// `channel` when it has one (Slack with a bot token; Rocket.Chat's room), rather than to a webhook; a dead destination is
/// then that channel.
pub fn posts_to_chat_channel(provider_id: &str, credentials: &Value) -> bool {
    provider_id == "rocket-chat"
        || (provider_id == "getstream" && getstream::uses_chat_api(credentials))
        || (matches!(provider_id, "slack" | "svc-slack") && slack::bot_token(credentials).is_some())
}

impl Delivery {
    /// The same message for one of its device tokens.
    pub fn to_device(&self, token: &str) -> Delivery {
        let mut one = self.clone();
        one.to.device_tokens = vec![token.to_owned()];
        one
    }
}

/// What the provider answered for one device token of a push message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceAnswer {
    pub token: String,
    pub answer: Result<Accepted, ProviderError>,
}

/// One delivery adapter.
#[tonic::async_trait]
pub trait Provider: Send + Sync {
    /// Sends the message. A push message goes through [`Provider::send_each`] instead, which calls this
    /// with one device token at a time unless the adapter sends them together.
    async fn send(&self, delivery: &Delivery) -> Result<Accepted, ProviderError>;

    /// Sends a push message to each of its device tokens, each with its own answer, in the order of
    /// `delivery.to.device_tokens`. By default one [`Provider::send`] per token, all at once (they share
    /// the client's connections: one HTTP/2 connection multiplexes them); an adapter whose provider takes
    /// many tokens in one request overrides it.
    async fn send_each(&self, delivery: &Delivery) -> Vec<DeviceAnswer> {
        let sends = delivery.to.device_tokens.iter().map(|token| async move {
            DeviceAnswer { token: token.clone(), answer: self.send(&delivery.to_device(token)).await }
        });
        futures_util::future::join_all(sends).await
    }
}
