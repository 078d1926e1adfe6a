//! A push message's answers, one per device token. Each token is a delivery of its own: it is sent,
//! gone (the provider says the app was uninstalled: the token is removed from the subscriber), failed,
//! or not reached yet (a transient error, a refused credential).
//!
//! What the message becomes:
//! - every token settled: sent when at least one token was reached (in this run or an earlier one),
//!   otherwise an error;
//! - some tokens not reached yet and none reached at all: the first of those errors decides, as for a
//!   single-destination message (retry, fail over to the next integration, or fail);
//! - some not reached yet after others were: the job runs again for those tokens only (the settled
//!   ones are kept in the job's `result.devices`, so a retry never sends a token twice), until the
//!   attempts run out. It never fails over then: another integration would reach other devices of
//!   the subscriber, who already got the notification.

use chrono::TimeDelta;
use serde_json::{json, Map, Value};

use super::channel::{integration_name, record_answer, retry_wait, Attempt};
use super::message::{MessageStatus, MessageUpdate};
use super::{DeliveryUpdate, Outcome, StepInput};
use crate::domain::subscribers::{DeadDestination, DeadKind};
use crate::engine::details::{Detail, DetailSource, DetailStatus};
use crate::engine::jobs::Job;
use crate::providers::{DeviceAnswer, ProviderError};

/// Result key: each settled token's state (`sent`, `dead`, `failed`).
const DEVICES: &str = "devices";
const SENT: &str = "sent";

/// Whether an earlier run of `job` settled `token` (it is not sent again).
pub fn finished(job: &Job, token: &str) -> bool {
    job.result.as_ref().is_some_and(|result| result[DEVICES].get(token).is_some())
}

/// The outcome of a push message from its tokens' answers.
pub fn record(input: &StepInput<'_>, job: &Job, attempt: Attempt<'_>, answers: Vec<DeviceAnswer>) -> Outcome {
    let provider_id = attempt.integration.row.provider_id.as_str();
    let mut settled: Map<String, Value> =
        job.result.as_ref().and_then(|result| result[DEVICES].as_object().cloned()).unwrap_or_default();
    let mut details = Vec::new();
    let mut dead = Vec::new();
    let mut unreached: Vec<ProviderError> = Vec::new();
    let mut provider_message_id = None;
    let detail = |status, text: String, raw: Option<String>| {
        Detail::new(job, status, DetailSource::Credentials, text).with_raw(raw)
    };
    for DeviceAnswer { token, answer } in answers {
        let device = short(&token);
        match answer {
            Ok(accepted) => {
                let text = match &accepted.provider_message_id {
                    Some(id) => format!("Sent to device {device} (provider message id {id})"),
                    None => format!("Sent to device {device}"),
                };
                details.push(detail(DetailStatus::Success, text, accepted.raw));
                provider_message_id = provider_message_id.or(accepted.provider_message_id);
                settled.insert(token, json!(SENT));
            }
            Err(error @ ProviderError::DeadDestination { .. }) => {
                let text = match attempt.owner {
                    Some(_) => format!(
                        "Device {device} is gone ({error}); removed from the subscriber's {provider_id} credentials"
                    ),
                    None => format!("Device {device} is gone ({error})"),
                };
                details.push(detail(DetailStatus::Warning, text, error.raw().map(str::to_owned)));
                if let Some(owner) = attempt.owner {
                    dead.push(DeadDestination {
                        subscriber: owner.subscriber,
                        integration_id: owner.entry,
                        what: DeadKind::DeviceToken(token.clone()),
                    });
                }
                settled.insert(token, json!("dead"));
            }
            Err(error) if error.is_transient() || error.is_integration_fault() => {
                let text = format!("Device {device} not reached: {error}");
                details.push(detail(DetailStatus::Warning, text, error.raw().map(str::to_owned)));
                unreached.push(error);
            }
            Err(error) => {
                let text = format!("Device {device} failed: {error}");
                details.push(detail(DetailStatus::Failed, text, error.raw().map(str::to_owned)));
                settled.insert(token, json!("failed"));
            }
        }
    }
    let reached = settled.values().filter(|state| *state == SENT).count();
    let mut outcome = match unreached.into_iter().next() {
        // Nothing reached anyone: the message's fate is the error's, as with one destination.
        Some(error) if reached == 0 => record_answer(input, job, attempt, Err(error)),
        Some(error) if error.is_transient() && job.attempts < job.max_attempts => {
            let wait = retry_wait(job, &error);
            let text = format!(
                "{reached} device(s) reached; retrying the others in {} s (attempt {} of {} through {})",
                wait.as_secs(),
                job.attempts,
                job.max_attempts,
                integration_name(attempt.integration)
            );
            let retry_at = input.now + TimeDelta::from_std(wait).unwrap_or_default();
            let mut outcome = Outcome::retry(job, retry_at, error.to_string()).detail(Detail::new(
                job,
                DetailStatus::Pending,
                DetailSource::Credentials,
                text,
            ));
            outcome.result = Some(json!({ DEVICES: settled }));
            outcome.delivery_update = Some(delivery_update(&attempt, "failed", None, Some(error.to_string())));
            outcome
        }
        Some(error) => settle(job, &attempt, &settled, provider_message_id, Some(error)),
        None if reached == 0 => all_failed(job, &attempt, &settled, &details),
        None => settle(job, &attempt, &settled, provider_message_id, None),
    };
    outcome.details.splice(0..0, details);
    outcome.dead_destinations = dead;
    outcome
}

/// The message reached at least one device; `gave_up` is the error the remaining ones were left with.
fn settle(
    job: &Job,
    attempt: &Attempt<'_>,
    settled: &Map<String, Value>,
    provider_message_id: Option<String>,
    gave_up: Option<ProviderError>,
) -> Outcome {
    let reached = settled.values().filter(|state| *state == SENT).count();
    let text = match &gave_up {
        Some(error) => format!("Message sent to {reached} device(s); gave up on the others: {error}"),
        None => format!("Message sent to {reached} of {} device(s)", settled.len()),
    };
    let mut outcome =
        Outcome::completed(job).detail(Detail::new(job, DetailStatus::Success, DetailSource::Credentials, text));
    outcome.result = Some(json!({ "messageId": attempt.message_id, "status": SENT, DEVICES: settled }));
    outcome.message_update = Some(MessageUpdate {
        message_id: attempt.message_id,
        status: MessageStatus::Sent,
        error_id: None,
        error_text: None,
        delivered: true,
        provider_id: Some(attempt.integration.row.provider_id.clone()),
        provider_message_id: provider_message_id.clone(),
    });
    outcome.delivery_update = Some(delivery_update(attempt, "accepted", provider_message_id, None));
    outcome
}

/// Every token was settled and none reached: gone or refused.
fn all_failed(job: &Job, attempt: &Attempt<'_>, settled: &Map<String, Value>, details: &[Detail]) -> Outcome {
    let all_dead = settled.values().all(|state| *state == "dead");
    let (error_id, text) = if all_dead {
        ("dead_destination", "Every device token of the subscriber is gone".to_owned())
    } else {
        let last = details.last().map_or("no device answered", |detail| detail.detail.as_str());
        ("provider_error", format!("No device was reached: {last}"))
    };
    let mut outcome = Outcome::failed(job, text.clone()).detail(Detail::new(
        job,
        DetailStatus::Failed,
        DetailSource::Credentials,
        text.clone(),
    ));
    outcome.result = Some(json!({ "messageId": attempt.message_id, "status": "error", DEVICES: settled }));
    outcome.message_update = Some(MessageUpdate {
        message_id: attempt.message_id,
        status: MessageStatus::Error,
        error_id: Some(error_id.into()),
        error_text: Some(text.clone()),
        delivered: false,
        provider_id: Some(attempt.integration.row.provider_id.clone()),
        provider_message_id: None,
    });
    outcome.delivery_update = Some(delivery_update(attempt, "failed", None, Some(text)));
    outcome
}

fn delivery_update(
    attempt: &Attempt<'_>,
    status: &'static str,
    provider_message_id: Option<String>,
    error: Option<String>,
) -> DeliveryUpdate {
    DeliveryUpdate { delivery_id: attempt.delivery_id, status, provider_message_id, error, raw: None }
}

/// A device token as details show it: its last 8 characters, enough to tell a subscriber's devices
/// apart without copying a whole token into the log.
fn short(token: &str) -> String {
    let tail: String = token.chars().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect();
    if tail.len() < token.len() {
        format!("…{tail}")
    } else {
        tail
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn details_show_the_tail_of_a_long_token() {
        assert_eq!(short("fcm-token-0123456789"), "…23456789");
        assert_eq!(short("abc"), "abc");
    }
}
