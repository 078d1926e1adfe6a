//! Email, SMS, chat and push steps: pick the integration, check the subscriber can be reached, render,
//! store the message, then call the provider (outside any transaction) and record what it answered.

use chrono::TimeDelta;
use serde_json::{json, Value};
use uuid::Uuid;

use super::delivery::{self, Prepared};
use super::message::{MessageStatus, MessageUpdate, NewMessage};
use super::{content, DeliveryUpdate, Outcome, StepInput};
use crate::domain::integrations::Integration;
use crate::domain::subscribers::Subscriber;
use crate::engine::details::{Detail, DetailSource, DetailStatus};
use crate::engine::jobs::Job;
use crate::engine::runtime::WorkerShared;
pub use crate::providers::Channel;
use crate::providers::{retry_delay, Accepted, Delivery, Destination, ProviderError};

pub async fn run(shared: &WorkerShared, input: &StepInput<'_>, channel: Channel) -> Outcome {
    let job = input.job;
    let checks = input
        .check_filters()
        .and_then(|()| input.check_preferences(channel.as_str()))
        .and_then(|()| input.check_schedule());
    if let Err(outcome) = checks {
        return *outcome;
    }
    let integration = match pick_integration(input, channel) {
        Ok(integration) => integration,
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
    let recipient = destination_of(subscriber, channel, integration);
    let content = match content::render(channel.step_kind(), job.step.controls(), &input.render_context()) {
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

    let prepared = match delivery::prepare(shared, job, &provider_id, Some(&message)).await {
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
        payload: job.payload.clone(),
        overrides: job.overrides.clone(),
    };
    let answer = match shared.providers.get(&provider_id) {
        Ok(provider) => provider.send(&delivery).await,
        Err(unsupported) => Err(unsupported),
    };
    with_provider(record_answer(input, job, delivery_id, message_id, answer))
}

fn record_answer(
    input: &StepInput<'_>,
    job: &Job,
    delivery_id: Uuid,
    message_id: Uuid,
    answer: Result<Accepted, ProviderError>,
) -> Outcome {
    match answer {
        Ok(accepted) => {
            let mut outcome = Outcome::completed(job).detail(
                Detail::new(job, DetailStatus::Success, DetailSource::Credentials, "Message sent")
                    .with_raw(accepted.raw.clone()),
            );
            outcome.result = Some(json!({ "messageId": message_id, "status": "sent" }));
            outcome.message_update = Some(MessageUpdate {
                message_id,
                status: MessageStatus::Sent,
                error_id: None,
                error_text: None,
                delivered: true,
            });
            outcome.delivery_update = Some(DeliveryUpdate {
                delivery_id,
                status: "accepted",
                provider_message_id: accepted.provider_message_id,
                error: None,
                raw: accepted.raw,
            });
            outcome
        }
        Err(error) => {
            let raw = error.raw().map(str::to_string);
            let delivery_update = Some(DeliveryUpdate {
                delivery_id,
                status: "failed",
                provider_message_id: None,
                error: Some(error.to_string()),
                raw: raw.clone(),
            });
            let attempts_left = job.attempts < job.max_attempts;
            let mut outcome = if error.is_transient() && attempts_left {
                let retry_at = input.now + TimeDelta::from_std(retry_delay(job.attempts as u32)).unwrap_or_default();
                let detail =
                    format!("Provider error, retrying (attempt {} of {}): {error}", job.attempts, job.max_attempts);
                Outcome::retry(job, retry_at, error.to_string())
                    .detail(Detail::new(job, DetailStatus::Warning, DetailSource::Credentials, detail).with_raw(raw))
            } else {
                let detail = match (error.is_transient(), &error) {
                    (true, _) => format!("Provider error, giving up after {} attempts: {error}", job.attempts),
                    (false, _) => format!("Provider error: {error}"),
                };
                let error_id = if matches!(error, ProviderError::Unsupported { .. }) {
                    "unsupported_provider"
                } else {
                    "provider_error"
                };
                let mut outcome = Outcome::failed(job, error.to_string())
                    .detail(Detail::new(job, DetailStatus::Failed, DetailSource::Credentials, detail).with_raw(raw));
                outcome.message_update = Some(MessageUpdate {
                    message_id,
                    status: MessageStatus::Error,
                    error_id: Some(error_id.into()),
                    error_text: Some(error.to_string()),
                    delivered: false,
                });
                outcome.result = Some(json!({ "messageId": message_id, "status": "error" }));
                outcome
            };
            outcome.delivery_update = delivery_update;
            outcome
        }
    }
}

/// The integration a step uses: the one an override names (`overrides.steps.<stepId>.integrationIdentifier`,
/// else `overrides.<channel>.integrationIdentifier`), else the channel's primary (email, sms), else the
/// oldest active one.
fn pick_integration<'a>(input: &StepInput<'a>, channel: Channel) -> Result<&'a Integration, String> {
    let job = input.job;
    let mut candidates = input
        .batch
        .integrations
        .iter()
        .filter(|integration| integration.row.environment_id == job.environment_id)
        .filter(|integration| integration.row.channel == channel.as_str());
    let named = job.overrides["steps"][job.step.step_id()]["integrationIdentifier"]
        .as_str()
        .or_else(|| job.overrides[channel.as_str()]["integrationIdentifier"].as_str());
    if let Some(identifier) = named {
        return candidates.find(|integration| integration.row.identifier == identifier).ok_or_else(|| {
            format!(
                "The integration {identifier} named by the trigger's overrides is not an active {} integration",
                channel.as_str()
            )
        });
    }
    let all: Vec<&Integration> = candidates.collect();
    all.iter()
        .find(|integration| integration.row.is_primary)
        .or_else(|| all.first())
        .copied()
        .ok_or_else(|| format!("No active {} integration in this environment", channel.as_str()))
}

/// Where the subscriber receives `channel` messages of `integration`'s provider.
fn destination_of(subscriber: Option<&Subscriber>, channel: Channel, integration: &Integration) -> Destination {
    let Some(subscriber) = subscriber else { return Destination::default() };
    let settings = subscriber.channel_settings().unwrap_or_default();
    let setting = settings.iter().find(|setting| {
        setting.provider_id == integration.row.provider_id
            && setting
                .integration_identifier
                .as_ref()
                .is_none_or(|identifier| *identifier == integration.row.identifier)
    });
    match channel {
        Channel::Email => Destination { email: subscriber.email.clone(), ..Default::default() },
        Channel::Sms => Destination { phone: subscriber.phone.clone(), ..Default::default() },
        Channel::Chat => Destination {
            webhook_url: setting.and_then(|setting| setting.credentials.webhook_url.clone()),
            ..Default::default()
        },
        Channel::Push => Destination {
            device_tokens: setting.map(|setting| setting.credentials.device_tokens.clone()).unwrap_or_default(),
            ..Default::default()
        },
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
        Channel::Chat if recipient.webhook_url.is_none() && !integration_webhook => Some((
            "no_chat_webhook_url",
            format!("The subscriber has no chat webhook URL for {}", integration.row.provider_id),
        )),
        Channel::Push if recipient.device_tokens.is_empty() => Some((
            "no_device_tokens",
            format!("The subscriber has no device tokens for {}", integration.row.provider_id),
        )),
        _ => None,
    }
}
