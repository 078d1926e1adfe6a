//! The delay step. Its first run computes when it ends and parks the job (`delayed`, `run_at` = the end);
//! when the job is claimed again at that time the step completes and the next one is queued.
//!
//! Regular delays count `amount` `unit`s, where weeks are 7 days and months are calendar months in the
//! subscriber's timezone (UTC if none); `overrides.delay` (`{amount, unit}`) in the trigger wins over the
//! step's controls. Scheduled delays read an ISO 8601 instant from the payload at `delayPath`: a past
//! instant runs at once with a warning; a missing or unparsable one fails the step and cancels the rest.
//! With `extendToSchedule`, a delay ending outside the subscriber's schedule waits for it (see `schedule`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{payload_value, Outcome, StepInput};
use crate::engine::details::{instant_text, Detail, DetailSource, DetailStatus};
use crate::workflow::controls::{read, DelayControls};
use crate::workflow::{JobStatus, TimeSpan};

pub fn run(input: &StepInput<'_>) -> Outcome {
    let job = input.job;
    // The end is recorded when the delay starts, so a run after a crash does not start it over.
    if job.result.as_ref().is_some_and(|result| result.get("delayedUntil").is_some()) {
        let warning = match input.extend_ended_wait(JobStatus::Delayed) {
            Ok(warning) => warning,
            Err(extended) => return *extended,
        };
        let mut outcome = Outcome::completed(job);
        outcome.details.extend(warning);
        return outcome.detail(Detail::internal(job, DetailStatus::Success, "Delay finished"));
    }
    if let Err(outcome) = input.check_filters() {
        return *outcome;
    }
    let controls: DelayControls = read(input.step().controls());
    let timezone = input.timezone();
    let end = if controls.is_scheduled() {
        match scheduled_end(&controls, input.payload()) {
            Ok(end) if end <= input.now => {
                let detail = format!("The scheduled time {} is in the past; continuing at once", instant_text(end));
                return Outcome::completed(job).detail(Detail::new(
                    job,
                    DetailStatus::Warning,
                    DetailSource::Payload,
                    detail,
                ));
            }
            Ok(end) => end,
            Err(reason) => {
                let mut outcome = Outcome::failed_because(job, DetailSource::Payload, reason);
                outcome.stop_following = true;
                return outcome;
            }
        }
    } else {
        // The trigger's `overrides.delay` wins over the step's controls.
        let (span, given) = match input.overrides().get("delay").filter(|delay| delay.is_object()) {
            Some(spec) => (TimeSpan::read(spec), spec.clone()),
            None => (controls.span(), input.step().controls().clone()),
        };
        match span.and_then(|span| span.end_after(input.now, timezone)) {
            Some(end) => end,
            None => {
                let reason = format!("The delay needs an amount and a unit (seconds..months), got {given}");
                return Outcome::failed_because(job, DetailSource::Internal, reason);
            }
        }
    };
    let mut outcome = Outcome::park(job, JobStatus::Delayed, end).detail(Detail::internal(
        job,
        DetailStatus::Pending,
        format!("Delayed until {}", instant_text(end)),
    ));
    outcome.result = Some(serde_json::json!({ "delayedUntil": end }));
    input.fit_wait_to_schedule(outcome)
}

fn scheduled_end(controls: &DelayControls, payload: &Value) -> Result<DateTime<Utc>, String> {
    let path =
        controls.delay_path.as_deref().filter(|path| !path.is_empty()).ok_or("The scheduled delay has no delayPath")?;
    let Some(value) = payload_value(payload, path) else {
        return Err(format!("The payload has no {path} for the scheduled delay"));
    };
    value
        .as_str()
        .and_then(|text| DateTime::parse_from_rfc3339(text).ok())
        .map(|instant| instant.with_timezone(&Utc))
        .ok_or_else(|| format!("payload.{path} is not an ISO 8601 date-time: {value}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn scheduled_delays_read_a_dotted_payload_path() {
        let controls: DelayControls = read(&json!({"type": "scheduled", "delayPath": "send.at"}));
        assert_eq!(
            scheduled_end(&controls, &json!({"send": {"at": "2026-05-01T08:00:00+02:00"}})),
            Ok(at("2026-05-01T06:00:00Z"))
        );
        assert!(scheduled_end(&controls, &json!({})).unwrap_err().contains("has no send.at"));
        assert!(scheduled_end(&controls, &json!({"send": {"at": "tomorrow"}}))
            .unwrap_err()
            .contains("not an ISO 8601"));
    }
}
