//! Email, SMS, chat and push steps: pick the integration (see `integration_choice`), check the subscriber
//! can be reached, render, store the message, then call the provider (outside any transaction) and record
//! what it answered: sent; retried on a transient error after the backoff or the provider's `Retry-After`,
//! whichever is longer; failed over to the next integration when this one is misconfigured or out of
//! attempts; failed otherwise.

use chrono::TimeDelta;
use serde_json::{json, Value};
use uuid::Uuid;

use std::time::{Duration, Instant};

use tracing::Instrument;

use super::delivery::Prepared;
use super::device_answers;
use super::integration_choice::{self, Choice};
use super::message::{MessageStatus, MessageUpdate, NewMessage};
use super::{content, DeliveryUpdate, Outcome, StepInput};
use crate::domain::integrations::Integration;
use crate::domain::subscribers::{ChannelCredentials, DeadDestination, DeadKind, Subscriber};
use crate::engine::delivery_status::status_webhook_url;
use crate::engine::details::{Detail, DetailSource, DetailStatus};
use crate::engine::jobs::Job;
use crate::engine::runtime::WorkerShared;
pub use crate::providers::Channel;
use crate::providers::{
    posts_to_chat_channel, retry_delay, Accepted, AlertFields, Delivery, Destination, ProviderError,
};

/// The longest wait a provider's `Retry-After` can impose before a retry; the job's lease and the
/// notification's timeliness matter more than a provider's hour-long hint.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(15 * 60);

pub async fn run(shared: &WorkerShared, input: &StepInput<'_>, channel: Channel) -> Outcome {
    let job = input.job;
    let checks = input
        .check_filters()
        .and_then(|()| input.check_preferences(channel.as_str()))
        .and_then(|()| input.check_schedule());
    if let Err(outcome) = checks {
        return *outcome;
    }
    let Choice { current: integration, next } = match integration_choice::choose(input, channel) {
        Ok(choice) => choice,
        Err(detail) => return Outcome::failed_because(job, DetailSource::Credentials, detail),
    };
    let provider_id = integration.row.provider_id.clone();
    let mut job_with_provider = job.clone();
    job_with_provider.provider_id = provider_id.clone();
    let job = &job_with_provider;
    let with_provider = |mut outcome: Outcome| {
        outcome.provider_id = Some(provider_id.clone());
        outcome
    };

    let subscriber = input.subscriber();
    let (mut recipient, entry) = destination_of(subscriber, channel, integration);
    recipient.device_tokens.retain(|token| !device_answers::finished(job, token));
    let content = match content::render(channel.step_kind(), input.step().controls(), &input.render_context()) {
        Ok(content) => content,
        Err(error) => {
            let detail = format!("The message could not be rendered: {error}");
            return with_provider(Outcome::failed_because(job, DetailSource::Payload, detail));
        }
    };
    let (template_identifier, actor) = input.message_origin();
    let mut message = NewMessage {
        id: Uuid::now_v7(),
        channel: channel.as_str().into(),
        template_identifier,
        actor,
        payload: input.payload().clone(),
        overrides: input.overrides().clone(),
        subject: content.subject.clone().filter(|_| channel == Channel::Email),
        content: Some(Value::String(content.body.clone())),
        title: content.subject.clone().filter(|_| channel == Channel::Push),
        cta: json!({}),
        email: recipient.email.clone(),
        phone: recipient.phone.clone(),
        direct_webhook_url: recipient.webhook_url.clone(),
        device_tokens: recipient.device_tokens.clone(),
        provider_id: Some(provider_id.clone()),
        status: MessageStatus::Sent,
        error_id: None,
        error_text: None,
        delivered: false,
    };
    if let Some((error_id, error_text)) = unreachable(channel, &recipient, integration) {
        message.status = MessageStatus::Warning;
        message.error_id = Some(error_id.into());
        message.error_text = Some(error_text.clone());
        let mut outcome = Outcome::failed(job, error_text.clone()).detail(Detail::new(
            job,
            DetailStatus::Warning,
            DetailSource::Payload,
            error_text,
        ));
        outcome.new_message = Some(message);
        return with_provider(outcome);
    }

    let prepared = match input.calls.prepare(shared, job, &provider_id, Some(&message)).await {
        Ok(prepared) => prepared,
        Err(error) => {
            let retry_at = input.now + TimeDelta::seconds(5);
            return with_provider(Outcome::retry(job, retry_at, format!("could not record the delivery: {error}")));
        }
    };
    let (delivery_id, message_id) = match prepared {
        Prepared::Send { delivery_id, message_id } => (delivery_id, message_id.unwrap_or(message.id)),
        Prepared::LeaseLost => return Outcome::completed(job),
        Prepared::AlreadyAccepted { .. } => {
            let detail = "Already delivered by an earlier attempt; not sent again";
            return with_provider(Outcome::completed(job).detail(Detail::internal(job, DetailStatus::Success, detail)));
        }
        Prepared::InDoubt { message_id } => {
            let detail = "The worker sending this message stopped during the provider call; its outcome is unknown \
                          and it is not sent again";
            let mut outcome = Outcome::completed(job).detail(Detail::internal(job, DetailStatus::Warning, detail));
            outcome.message_update = message_id.map(|message_id| MessageUpdate {
                message_id,
                status: MessageStatus::Warning,
                error_id: Some("delivery_outcome_unknown".into()),
                error_text: Some(detail.into()),
                delivered: false,
                provider_id: Some(provider_id.clone()),
                provider_message_id: None,
            });
            return with_provider(outcome);
        }
    };

    let delivery = Delivery {
        channel,
        provider_id: provider_id.clone(),
        credentials: integration.credentials.clone(),
        message_id,
        transaction_id: job.transaction_id.clone(),
        to: recipient,
        subject: content.subject.clone(),
        title: content.subject,
        content: content.body,
        text: content.text,
        sender_name: content.sender_name,
        workflow_identifier: input.workflow().map(|workflow| workflow.identifier.clone()),
        subscriber_id: subscriber.map(|subscriber| subscriber.subscriber_id.clone()).unwrap_or_default(),
        payload: input.payload().clone(),
        overrides: input.overrides().clone(),
        status_callback_url: shared
            .settings
            .public_url
            .as_ref()
            .map(|base| status_webhook_url(base, job.environment_id, integration.row.id)),
    };
    let owner = subscriber.zip(entry).map(|(subscriber, entry)| Owner { subscriber: subscriber.id, entry });
    let attempt = Attempt { delivery_id, message_id, integration, next, owner };
    let provider = match shared.providers.get(&provider_id) {
        Ok(provider) => provider,
        Err(unsupported) => return with_provider(record_answer(input, job, attempt, Err(unsupported))),
    };
    let metrics = &shared.engine.metrics;
    let call = tracing::info_span!(
        "provider_call",
        provider_id = %provider_id,
        channel = channel.as_str(),
        outcome = tracing::field::Empty
    );
    let started = Instant::now();
    let outcome = if channel == Channel::Push {
        let answers = provider.send_each(&delivery).instrument(call.clone()).await;
        for device in &answers {
            metrics.delivery_attempt(&provider_id, answer_label(&device.answer), started.elapsed());
        }
        let sent = answers.iter().filter(|device| device.answer.is_ok()).count();
        call.record("outcome", format!("{sent} of {} devices sent", answers.len()));
        device_answers::record(input, job, attempt, answers)
    } else {
        let answer = provider.send(&delivery).instrument(call.clone()).await;
        metrics.delivery_attempt(&provider_id, answer_label(&answer), started.elapsed());
        call.record("outcome", answer_label(&answer));
        record_answer(input, job, attempt, answer)
    };
    call.in_scope(|| tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "provider answered"));
    with_provider(outcome)
}

/// A provider's answer as the delivery metrics label it.
fn answer_label(answer: &Result<Accepted, ProviderError>) -> &'static str {
    match answer {
        Ok(_) => "sent",
        Err(ProviderError::Transient { .. }) => "transient",
        Err(ProviderError::Permanent { .. }) => "permanent",
        Err(ProviderError::Misconfigured { .. }) => "misconfigured",
        Err(ProviderError::DeadDestination { .. }) => "dead_destination",
        Err(ProviderError::Unsupported { .. }) => "unsupported",
    }
}

/// The subscriber's channel entry a destination came from: where a dead one is removed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Owner {
    pub(super) subscriber: Uuid,
    /// The entry's `_integrationId`.
    pub(super) entry: Uuid,
}

/// One provider call of a job: its delivery record, its message, the integration it went through, the
/// one to fail over to, and the subscriber's entry that named the destination.
#[derive(Clone, Copy)]
pub(super) struct Attempt<'a> {
    pub(super) delivery_id: Uuid,
    pub(super) message_id: Uuid,
    pub(super) integration: &'a Integration,
    pub(super) next: Option<&'a Integration>,
    pub(super) owner: Option<Owner>,
}

/// How long to wait before retrying after `error`: the backoff or the provider's `Retry-After`,
/// whichever is longer, capped.
pub(super) fn retry_wait(job: &Job, error: &ProviderError) -> Duration {
    retry_delay(job.attempts as u32).max(error.retry_after().unwrap_or_default()).min(MAX_RETRY_WAIT)
}

/// `Provider (integration)` as details name it.
pub(super) fn integration_name(integration: &Integration) -> String {
    format!("{} ({})", integration.row.identifier, integration.row.provider_id)
}

pub(super) fn record_answer(
    input: &StepInput<'_>,
    job: &Job,
    attempt: Attempt<'_>,
    answer: Result<Accepted, ProviderError>,
) -> Outcome {
    let Attempt { delivery_id, message_id, integration, next, owner } = attempt;
    let provider_id = Some(integration.row.provider_id.clone());
    let error = match answer {
        Ok(accepted) => {
            let detail = match &accepted.provider_message_id {
                Some(id) => format!("Message sent (provider message id {id})"),
                None => "Message sent".to_owned(),
            };
            let mut outcome = Outcome::completed(job).detail(
                Detail::new(job, DetailStatus::Success, DetailSource::Credentials, detail)
                    .with_raw(accepted.raw.clone()),
            );
            outcome.result = Some(json!({ "messageId": message_id, "status": "sent" }));
            outcome.message_update = Some(MessageUpdate {
                message_id,
                status: MessageStatus::Sent,
                error_id: None,
                error_text: None,
                delivered: true,
                provider_id,
                provider_message_id: accepted.provider_message_id.clone(),
            });
            outcome.delivery_update = Some(DeliveryUpdate {
                delivery_id,
                status: "accepted",
                provider_message_id: accepted.provider_message_id,
                error: None,
                raw: accepted.raw,
            });
            return outcome;
        }
        Err(error) => error,
    };
    let raw = error.raw().map(str::to_string);
    let failed_detail =
        |status, text: String| Detail::new(job, status, DetailSource::Credentials, text).with_raw(raw.clone());
    let attempts_left = job.attempts < job.max_attempts;
    let integration_name = integration_name(integration);
    let mut outcome = if error.is_transient() && attempts_left {
        let wait = retry_wait(job, &error);
        let retry_at = input.now + TimeDelta::from_std(wait).unwrap_or_default();
        let detail = format!(
            "Provider error, retrying in {} s (attempt {} of {} through {integration_name}): {error}",
            wait.as_secs(),
            job.attempts,
            job.max_attempts
        );
        Outcome::retry(job, retry_at, error.to_string()).detail(failed_detail(DetailStatus::Warning, detail))
    } else if let Some(next) = next.filter(|_| error.is_transient() || error.is_integration_fault()) {
        let detail = format!(
            "{integration_name} failed: {error}; failing over to {} ({})",
            next.row.identifier, next.row.provider_id
        );
        let mut outcome =
            Outcome::retry(job, input.now, error.to_string()).detail(failed_detail(DetailStatus::Warning, detail));
        outcome.result = Some(integration_choice::result_with_failed(job, integration));
        outcome.attempts = Some(0);
        outcome
    } else {
        let detail = if error.is_transient() {
            format!("Provider error, giving up after {} attempts: {error}", job.attempts)
        } else {
            format!("Provider error: {error}")
        };
        let error_id = match error {
            ProviderError::Unsupported { .. } => "unsupported_provider",
            ProviderError::Misconfigured { .. } => "integration_misconfigured",
            ProviderError::DeadDestination { .. } => "dead_destination",
            ProviderError::Transient { .. } | ProviderError::Permanent { .. } => "provider_error",
        };
        let mut outcome = Outcome::failed(job, error.to_string()).detail(failed_detail(DetailStatus::Failed, detail));
        outcome.message_update = Some(MessageUpdate {
            message_id,
            status: MessageStatus::Error,
            error_id: Some(error_id.into()),
            error_text: Some(error.to_string()),
            delivered: false,
            provider_id,
            provider_message_id: None,
        });
        outcome.result = Some(json!({ "messageId": message_id, "status": "error" }));
        // Adapters report a dead chat destination only when it is the subscriber's (the integration's own
        // webhook is the operator's to fix): its channel when the provider posts to one, else its webhook.
        if let (ProviderError::DeadDestination { .. }, Some(owner)) = (&error, owner) {
            let provider_id = integration.row.provider_id.as_str();
            let (what, named) = if posts_to_chat_channel(provider_id, &integration.credentials) {
                (DeadKind::Channel, "channel")
            } else {
                (DeadKind::WebhookUrl, "webhook URL")
            };
            outcome.dead_destinations.push(DeadDestination {
                subscriber: owner.subscriber,
                integration_id: owner.entry,
                what,
            });
            let detail =
                format!("The subscriber's {provider_id} {named} is gone; removed from their channel credentials");
            outcome = outcome.detail(Detail::new(job, DetailStatus::Warning, DetailSource::Credentials, detail));
        }
        outcome
    };
    outcome.delivery_update = Some(DeliveryUpdate {
        delivery_id,
        status: "failed",
        provider_message_id: None,
        error: Some(error.to_string()),
        raw,
    });
    outcome
}

/// Where the subscriber receives `channel` messages of `integration`'s provider, and the `_integrationId` of
/// the channel entry that said so (chat and push).
fn destination_of(
    subscriber: Option<&Subscriber>,
    channel: Channel,
    integration: &Integration,
) -> (Destination, Option<Uuid>) {
    let Some(subscriber) = subscriber else { return (Destination::default(), None) };
    let settings = subscriber.channel_settings().unwrap_or_default();
    let setting = settings.iter().find(|setting| {
        setting.provider_id == integration.row.provider_id
            && setting
                .integration_identifier
                .as_ref()
                .is_none_or(|identifier| *identifier == integration.row.identifier)
    });
    let destination = match channel {
        Channel::Email => Destination { email: subscriber.email.clone(), ..Default::default() },
        Channel::Sms => Destination { phone: subscriber.phone.clone(), ..Default::default() },
        Channel::Chat => Destination {
            webhook_url: setting.and_then(|setting| setting.credentials.webhook_url.clone()),
            chat_channel: setting.and_then(|setting| setting.credentials.channel.clone()),
            // WhatsApp sends to the subscriber's phone, not to a channel credential.
            phone: subscriber.phone.clone(),
            alert: setting.map(|setting| alert_fields(&setting.credentials)).unwrap_or_default(),
            ..Default::default()
        },
        Channel::Push => Destination {
            device_tokens: setting.map(|setting| setting.credentials.device_tokens.clone()).unwrap_or_default(),
            ..Default::default()
        },
    };
    (destination, setting.map(|setting| setting.integration_id))
}

/// The subscriber's own Grafana OnCall alert fields.
fn alert_fields(credentials: &ChannelCredentials) -> AlertFields {
    AlertFields {
        alert_uid: credentials.alert_uid.clone(),
        title: credentials.title.clone(),
        image_url: credentials.image_url.clone(),
        state: credentials.state.clone(),
        external_url: credentials.external_url.clone(),
    }
}

/// Why the subscriber cannot be reached on `channel`, as (errorId, errorText), if they cannot.
fn unreachable(channel: Channel, recipient: &Destination, integration: &Integration) -> Option<(&'static str, String)> {
    let integration_webhook = integration.credentials["webhookUrl"].as_str().is_some_and(|url| !url.is_empty());
    match channel {
        Channel::Email if recipient.email.is_none() => {
            Some(("no_subscriber_email", "The subscriber has no email address".into()))
        }
        Channel::Sms if recipient.phone.is_none() => {
            Some(("no_subscriber_phone", "The subscriber has no phone number".into()))
        }
        Channel::Chat if integration.row.provider_id == "whatsapp-business" => {
            recipient.phone.is_none().then(|| ("no_subscriber_phone", "The subscriber has no phone number".into()))
        }
        Channel::Chat
            if recipient.webhook_url.is_none()
                && !integration_webhook
                && !(recipient.chat_channel.is_some()
                    && posts_to_chat_channel(&integration.row.provider_id, &integration.credentials)) =>
        {
            Some((
                "no_chat_webhook_url",
                format!("The subscriber has no chat webhook URL for {}", integration.row.provider_id),
            ))
        }
        Channel::Push if recipient.device_tokens.is_empty() => Some((
            "no_device_tokens",
            format!("The subscriber has no device tokens for {}", integration.row.provider_id),
        )),
        _ => None,
    }
}
