//! The delay step. Its first run computes when it ends and parks the job (`delayed`, `run_at` = the end);
//! when the job is claimed again at that time the step completes and the next one is queued.
//!
//! Regular delays count `amount` `unit`s, where weeks are 7 days and months are calendar months in the
//! subscriber's timezone (UTC if none); `overrides.delay` (`{amount, unit}`) in the trigger wins over the
//! step's controls. Scheduled delays read an ISO 8601 instant from the payload at `delayPath`: a past
//! instant runs at once with a warning; a missing or unparsable one fails the step and cancels the rest.
//! With `extendToSchedule`, a delay ending outside the subscriber's schedule waits for it (see `schedule`).

use chrono::{DateTime, Months, TimeDelta, Utc};
use chrono_tz::Tz;
use serde_json::Value;

use super::{payload_value, Outcome, StepInput};
use crate::domain::preferences::resolve_local;
use crate::engine::details::{instant_text, Detail, DetailSource, DetailStatus};
use crate::engine::jobs::{status, StepView};

pub fn run(input: &StepInput<'_>) -> Outcome {
    let job = input.job;
    // The end is recorded when the delay starts, so a run after a crash does not start it over.
    if job.result.as_ref().is_some_and(|result| result.get("delayedUntil").is_some()) {
        let warning = match input.extend_ended_wait(status::DELAYED) {
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
    let controls = StepView(&job.step).controls();
    let timezone = input.timezone();
    let end = if controls["type"] == "scheduled" {
        match scheduled_end(controls, &job.payload) {
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
        let spec = job.overrides.get("delay").filter(|delay| delay.is_object()).unwrap_or(controls);
        match regular_end(spec, input.now, timezone) {
            Some(end) => end,
            None => {
                let reason = format!("The delay needs an amount and a unit (seconds..months), got {spec}");
                return Outcome::failed_because(job, DetailSource::Internal, reason);
            }
        }
    };
    let mut outcome = Outcome::park(job, status::DELAYED, end).detail(Detail::internal(
        job,
        DetailStatus::Pending,
        format!("Delayed until {}", instant_text(end)),
    ));
    outcome.result = Some(serde_json::json!({ "delayedUntil": end }));
    input.fit_wait_to_schedule(outcome)
}

/// `now` plus `amount` `unit`s; months are calendar months in `timezone`.
pub fn regular_end(spec: &Value, now: DateTime<Utc>, timezone: Tz) -> Option<DateTime<Utc>> {
    let amount = spec["amount"].as_f64().filter(|amount| *amount >= 0.0 && amount.fract() == 0.0)? as i64;
    let seconds = |factor: i64| now.checked_add_signed(TimeDelta::try_seconds(amount.checked_mul(factor)?)?);
    match spec["unit"].as_str()? {
        "seconds" => seconds(1),
        "minutes" => seconds(60),
        "hours" => seconds(3_600),
        "days" => seconds(86_400),
        "weeks" => seconds(7 * 86_400),
        "months" => {
            let local = now.with_timezone(&timezone).naive_local();
            let shifted = local.checked_add_months(Months::new(u32::try_from(amount).ok()?))?;
            Some(resolve_local(timezone, shifted))
        }
        _ => None,
    }
}

fn scheduled_end(controls: &Value, payload: &Value) -> Result<DateTime<Utc>, String> {
    let path =
        controls["delayPath"].as_str().filter(|path| !path.is_empty()).ok_or("The scheduled delay has no delayPath")?;
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
    use chrono::TimeZone;
    use serde_json::json;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn every_unit_counts_as_documented() {
        let now = at("2026-01-31T10:00:00Z");
        let cases = [
            ("seconds", 30, "2026-01-31T10:00:30Z"),
            ("minutes", 5, "2026-01-31T10:05:00Z"),
            ("hours", 2, "2026-01-31T12:00:00Z"),
            ("days", 1, "2026-02-01T10:00:00Z"),
            ("weeks", 2, "2026-02-14T10:00:00Z"),
            ("months", 1, "2026-02-28T10:00:00Z"),
        ];
        for (unit, amount, expected) in cases {
            let end = regular_end(&json!({"amount": amount, "unit": unit}), now, Tz::UTC);
            assert_eq!(end, Some(at(expected)), "{amount} {unit}");
        }
        assert_eq!(regular_end(&json!({"amount": 1, "unit": "fortnights"}), now, Tz::UTC), None);
        assert_eq!(regular_end(&json!({"amount": -1, "unit": "days"}), now, Tz::UTC), None);
    }

    #[test]
    fn months_are_calendar_months_in_the_subscribers_timezone_across_dst() {
        // 09:00 in New York on 1 March (EST, UTC-5) → 09:00 on 1 April (EDT, UTC-4).
        let now = Tz::America__New_York.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap().with_timezone(&Utc);
        let end = regular_end(&json!({"amount": 1, "unit": "months"}), now, Tz::America__New_York).unwrap();
        assert_eq!(end, at("2026-04-01T13:00:00Z"));
    }

    #[test]
    fn scheduled_delays_read_a_dotted_payload_path() {
        let controls = json!({"type": "scheduled", "delayPath": "send.at"});
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
