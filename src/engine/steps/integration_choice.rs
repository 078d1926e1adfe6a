//! Which integration a channel step sends through, and which one next when it fails.
//!
//! The candidates, in order: the integration the trigger's overrides name
//! (`overrides.steps.<stepId>.integrationIdentifier`, else `overrides.<channel>.integrationIdentifier`),
//! alone; otherwise every active integration of the channel whose `conditions` (step filters on the
//! subscriber and the payload) match, the primary first, then the oldest. Conditions that cannot be read
//! never match: an integration restricted in a way Herald does not understand is not used.
//!
//! Failover: when an integration fails at the integration level (refused credentials, a missing sender,
//! an unsupported provider) or uses up its attempts on transient errors, the job records it in
//! `result.failedIntegrations` and runs again at once with the next candidate, attempts counted afresh.

use serde_json::{json, Value};
use uuid::Uuid;

use super::context::subscriber_view;
use super::StepInput;
use crate::domain::integrations::Integration;
use crate::engine::jobs::Job;
use crate::providers::Channel;
use crate::workflow::filters::{parse_filters, step_passes, FilterContext};

/// Result key listing the integrations this job gave up on.
const FAILED: &str = "failedIntegrations";

/// The integration to use now, and the one to fail over to.
pub struct Choice<'a> {
    pub current: &'a Integration,
    pub next: Option<&'a Integration>,
}

/// The integrations earlier runs of `job` gave up on.
pub fn failed_integrations(job: &Job) -> Vec<Uuid> {
    let failed = job.result.as_ref().and_then(|result| result.get(FAILED)).and_then(Value::as_array);
    failed.into_iter().flatten().filter_map(|id| id.as_str()?.parse().ok()).collect()
}

/// The job's result once `integration` is given up on too.
pub fn result_with_failed(job: &Job, integration: &Integration) -> Value {
    let mut failed = failed_integrations(job);
    failed.push(integration.row.id);
    json!({ FAILED: failed })
}

/// The first candidate not given up on yet, and the one after it; `Err` says why there is none.
pub fn choose<'a>(input: &StepInput<'a>, channel: Channel) -> Result<Choice<'a>, String> {
    let failed = failed_integrations(input.job);
    let mut remaining =
        candidates(input, channel)?.into_iter().filter(|integration| !failed.contains(&integration.row.id));
    match remaining.next() {
        Some(current) => Ok(Choice { current, next: remaining.next() }),
        None => {
            Err(format!("Every {} integration failed ({} tried); none is left to try", channel.as_str(), failed.len()))
        }
    }
}

fn candidates<'a>(input: &StepInput<'a>, channel: Channel) -> Result<Vec<&'a Integration>, String> {
    let job = input.job;
    let of_channel: Vec<&Integration> = input
        .batch
        .integrations
        .iter()
        .filter(|integration| integration.row.environment_id == job.environment_id)
        .filter(|integration| integration.row.channel == channel.as_str())
        .collect();
    let overrides = input.overrides();
    let named = overrides["steps"][input.step().step_id()]["integrationIdentifier"]
        .as_str()
        .or_else(|| overrides[channel.as_str()]["integrationIdentifier"].as_str());
    if let Some(identifier) = named {
        let integration = of_channel.into_iter().find(|integration| integration.row.identifier == identifier);
        return integration.map(|integration| vec![integration]).ok_or_else(|| {
            format!(
                "The integration {identifier} named by the trigger's overrides is not an active {} integration",
                channel.as_str()
            )
        });
    }
    if of_channel.is_empty() {
        return Err(format!("No active {} integration in this environment", channel.as_str()));
    }
    let unconditional = |conditions: &Value| conditions.is_null() || conditions.as_array().is_some_and(Vec::is_empty);
    // The subscriber's JSON is built only when some integration has conditions to evaluate.
    let subscriber = if of_channel.iter().all(|integration| unconditional(&integration.row.conditions)) {
        Value::Null
    } else {
        input.subscriber().map_or(Value::Null, subscriber_view)
    };
    let context = FilterContext { subscriber: &subscriber, payload: input.payload() };
    let mut matching: Vec<&Integration> = of_channel
        .into_iter()
        .filter(|integration| {
            let conditions = &integration.row.conditions;
            unconditional(conditions)
                || parse_filters(conditions).is_ok_and(|filters| step_passes(&filters, &context).passed)
        })
        .collect();
    if matching.is_empty() {
        return Err(format!("No active {} integration's conditions match this notification", channel.as_str()));
    }
    // A stable sort keeps the oldest-first order of the rest.
    matching.sort_by_key(|integration| !integration.row.is_primary);
    Ok(matching)
}
