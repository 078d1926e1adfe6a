//! The custom step: POSTs the step's context (payload, subscriber, actor, tenant, the results of the
//! steps before it) as JSON to its `url`, with its `headers`, and records the answer for later steps.
//! Like a provider call it is made at most once per job (see `delivery`) and retried when transient.

use std::time::Duration;

use chrono::TimeDelta;
use serde_json::{json, Value};

use super::delivery::Prepared;
use super::{DeliveryUpdate, Outcome, StepInput};
use crate::engine::details::{Detail, DetailSource, DetailStatus};
use crate::engine::render::render_controls;
use crate::engine::runtime::WorkerShared;
use crate::providers::{refusal_in, retry_delay};
use crate::workflow::controls::{read, CustomControls};

/// Longest custom-step answer kept in its result and execution detail.
const MAX_ANSWER_BYTES: usize = 16 * 1024;

pub async fn run(shared: &WorkerShared, input: &StepInput<'_>) -> Outcome {
    let job = input.job;
    if let Err(outcome) = input.check_filters() {
        return *outcome;
    }
    let context = input.render_context();
    let controls: CustomControls = match render_controls(input.step().controls(), &context) {
        Ok(rendered) => read(&rendered),
        Err(error) => return fail(input, format!("The step's url or headers could not be rendered: {error}")),
    };
    let Some(url) = controls.url.as_deref().filter(|url| url.starts_with("http://") || url.starts_with("https://"))
    else {
        return fail(input, "The custom step has no http(s) url".to_string());
    };
    // A host that is an IP address is connected to without resolving, so the client's resolver never
    // sees it: checked here (a host name is checked when the client resolves it).
    let parsed = match reqwest::Url::parse(url) {
        Ok(parsed) => parsed,
        Err(error) => return fail(input, format!("The custom step's url is not a valid URL: {error}")),
    };
    if let Err(refused) = shared.settings.providers.outbound.check_url(&parsed) {
        return fail(input, format!("The custom step's url is refused: {refused}"));
    }
    let steps: Vec<Value> = input
        .batch
        .previous_results
        .get(&job.notification_id)
        .into_iter()
        .flatten()
        .filter(|result| result.position < job.position)
        .map(|result| json!({"stepId": result.step_id, "type": result.kind, "status": result.status, "result": result.result}))
        .collect();
    let body = json!({
        "transactionId": job.transaction_id,
        "workflowId": input.workflow().map(|workflow| workflow.identifier.clone()),
        "stepId": input.step().step_id(),
        "payload": context.payload,
        "subscriber": context.subscriber,
        "actor": context.actor,
        "tenant": context.tenant,
        "steps": steps,
    });

    let delivery_id = match input.calls.prepare(shared, job, "svc", None).await {
        Ok(Prepared::Send { delivery_id, .. }) => delivery_id,
        Ok(Prepared::LeaseLost) => return Outcome::completed(job),
        Ok(Prepared::AlreadyAccepted { .. }) => {
            let detail = "Already called by an earlier attempt; not called again";
            return Outcome::completed(job).detail(Detail::new(
                job,
                DetailStatus::Success,
                DetailSource::Webhook,
                detail,
            ));
        }
        Ok(Prepared::InDoubt { .. }) => {
            let detail =
                "The worker calling the url stopped during the call; its outcome is unknown and it is not called again";
            return Outcome::completed(job).detail(Detail::new(
                job,
                DetailStatus::Warning,
                DetailSource::Webhook,
                detail,
            ));
        }
        Err(error) => return Outcome::retry(job, input.now + TimeDelta::seconds(5), error.to_string()),
    };

    let mut request = shared.http.post(parsed).json(&body).timeout(Duration::from_secs(15));
    for (name, value) in controls.headers.iter().flatten() {
        request = request.header(name.as_str(), value.as_str());
    }
    let (transient, answer) = match request.send().await {
        Ok(response) => {
            let status = response.status();
            let mut text = response.text().await.unwrap_or_default();
            text.truncate(MAX_ANSWER_BYTES);
            if status.is_success() {
                (None, text)
            } else {
                let transient = status.is_server_error() || status.as_u16() == 429;
                (Some((transient, format!("{url} answered {status}"))), text)
            }
        }
        Err(error) => match refusal_in(&error) {
            Some(refused) => (Some((false, format!("The custom step's url is refused: {refused}"))), String::new()),
            None => (Some((true, format!("calling {url} failed: {error}"))), String::new()),
        },
    };
    let raw = Some(answer.clone()).filter(|text| !text.is_empty());
    let update = |status: &'static str, error: Option<String>| DeliveryUpdate {
        delivery_id,
        status,
        provider_message_id: None,
        error,
        raw: raw.clone(),
    };
    let mut outcome = match transient {
        None => {
            let result = serde_json::from_str::<Value>(&answer).unwrap_or(Value::String(answer.clone()));
            let mut outcome = Outcome::completed(job).detail(
                Detail::new(job, DetailStatus::Success, DetailSource::Webhook, format!("{url} answered"))
                    .with_raw(raw.clone()),
            );
            outcome.result = Some(result);
            outcome.delivery_update = Some(update("accepted", None));
            return outcome;
        }
        Some((true, error)) if job.attempts < job.max_attempts => {
            let at = input.now + TimeDelta::from_std(retry_delay(job.attempts as u32)).unwrap_or_default();
            let detail = format!("{error}; retrying (attempt {} of {})", job.attempts, job.max_attempts);
            Outcome::retry(job, at, error.clone())
                .detail(Detail::new(job, DetailStatus::Warning, DetailSource::Webhook, detail).with_raw(raw.clone()))
        }
        Some((_, error)) => Outcome::failed(job, error.clone())
            .detail(Detail::new(job, DetailStatus::Failed, DetailSource::Webhook, error).with_raw(raw.clone())),
    };
    outcome.delivery_update = Some(update("failed", outcome.error.clone()));
    outcome
}

fn fail(input: &StepInput<'_>, detail: String) -> Outcome {
    let job = input.job;
    Outcome::failed_because(job, DetailSource::Internal, detail)
}
