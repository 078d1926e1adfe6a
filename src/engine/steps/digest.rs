//! The digest step. Its first run works out the window its event belongs to: the key (the payload's
//! value at `digestKey`) and when the window would close (see `window`). It then asks to join that
//! key's open window; the worker decides, under a lock per key, whether the job opens the window
//! (`delayed` until it closes), merges into an open one (`merged`, pointing at it), or, for a backoff
//! digest with no recent event, goes on at once (`skipped`). See `worker::digest`.
//!
//! When the window closes the job is claimed again: it collects its own payload and those merged into
//! it, in arrival order, as the digest's `events`, and the steps after it see them as `step.events`.

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::{payload_value, Outcome, StepInput};
use crate::engine::details::{instant_text, Detail, DetailSource, DetailStatus};
use crate::workflow::controls::{read, DigestControls, DigestType, TimedControls};
use crate::workflow::{JobStatus, TimeSpan, WindowRule};

/// A digest job asking for its key's open window.
#[derive(Debug, Clone, PartialEq)]
pub struct DigestArrival {
    /// The window key (see [`key_value`]).
    pub key: String,
    /// Backoff digests only: events of the key created at or after this instant are recent, so this
    /// one is digested; with none it goes on at once.
    pub recent_since: Option<DateTime<Utc>>,
}

/// Result key recording the window's end: a job that has it is closing its window.
const WINDOW_END: &str = "windowEnd";

/// Whether a digest job's result says its window has opened (so its next run closes it).
pub fn window_opened(result: Option<&Value>) -> bool {
    result.is_some_and(|result| result.get(WINDOW_END).is_some())
}

pub fn run(input: &StepInput<'_>) -> Outcome {
    let job = input.job;
    let controls: DigestControls = read(input.step().controls());
    if window_opened(job.result.as_ref()) {
        return close_window(input, &controls);
    }
    if let Err(outcome) = input.check_filters() {
        return *outcome;
    }
    let rule = match WindowRule::from_controls(&controls) {
        Ok(rule) => rule,
        Err(reason) => return Outcome::failed_because(job, DetailSource::Internal, reason),
    };
    let timezone = input.timezone();
    let Some(end) = rule.window_end(input.now, timezone) else {
        let reason =
            format!("The digest window cannot be computed from the step's controls {}", input.step().controls());
        return Outcome::failed_because(job, DetailSource::Internal, reason);
    };
    let recent_since = if controls.form() == DigestType::Backoff {
        let look_back = controls.look_back().and_then(|window| TimeSpan::of(window.amount, window.unit));
        match look_back.and_then(|span| span.end_after(job.created_at, timezone)) {
            Some(look_back_end) => Some(job.created_at - (look_back_end - job.created_at)),
            None => {
                let reason = format!(
                    "A backoff digest needs a lookBackWindow with an amount and a unit, got {}",
                    input.step().controls()
                );
                return Outcome::failed_because(job, DetailSource::Internal, reason);
            }
        }
    } else {
        None
    };
    let key = key_value(&controls, input.payload());
    let mut outcome = Outcome::park(job, JobStatus::Delayed, end).detail(Detail::internal(
        job,
        DetailStatus::Pending,
        format!("Digest window opened until {}", instant_text(end)),
    ));
    outcome.result = Some(json!({ WINDOW_END: end }));
    outcome.digest = Some(metadata(&controls, &rule, vec![input.payload().clone()]));
    outcome.digest_key = Some(key.clone());
    outcome.digest_arrival = Some(DigestArrival { key, recent_since });
    input.fit_wait_to_schedule(outcome)
}

/// The window is over: the digest completes with every event merged into it.
fn close_window(input: &StepInput<'_>, controls: &DigestControls) -> Outcome {
    let job = input.job;
    let warning = match input.extend_ended_wait(JobStatus::Queued) {
        Ok(warning) => warning,
        Err(extended) => return *extended,
    };
    let events = input.batch.digest_events.get(&job.id).cloned().unwrap_or_else(|| vec![input.payload().clone()]);
    let count = events.len();
    let mut outcome = Outcome::completed(job);
    outcome.details.extend(warning);
    let detail = format!("Digest window closed with {count} event{}", if count == 1 { "" } else { "s" });
    let rule = WindowRule::from_controls(controls).unwrap_or(WindowRule::Fixed(controls.span()));
    outcome.digest = Some(metadata(controls, &rule, events));
    let window_end = job.result.as_ref().map_or(Value::Null, |result| result[WINDOW_END].clone());
    outcome.result = Some(json!({ WINDOW_END: window_end, "total_count": count }));
    outcome.detail(Detail::internal(job, DetailStatus::Success, detail))
}

/// The window key of an event: `""` for a step without `digestKey`, otherwise the JSON text of the
/// payload's value at that dotted path (`null` when absent), so `"1"` and `1` never share a window.
pub fn key_value(controls: &DigestControls, payload: &Value) -> String {
    let Some(path) = controls.key_path() else { return String::new() };
    let path = path.strip_prefix("payload.").unwrap_or(path);
    payload_value(payload, path).unwrap_or(&Value::Null).to_string()
}

/// The job's digest metadata (the API's `DigestMetadata`).
fn metadata(controls: &DigestControls, rule: &WindowRule, events: Vec<Value>) -> Value {
    let form = controls.form();
    let mut metadata = Map::new();
    metadata.insert("type".into(), json!(form));
    if let Some(key) = &controls.digest_key {
        metadata.insert("digestKey".into(), json!(key));
    }
    if let Some(amount) = controls.amount {
        metadata.insert("amount".into(), json!(amount));
    }
    if let Some(unit) = controls.unit {
        metadata.insert("unit".into(), json!(unit));
    }
    if form == DigestType::Backoff {
        metadata.insert("backoff".into(), json!(true));
        if let Some(window) = controls.look_back() {
            metadata.insert("backoffAmount".into(), json!(window.amount));
            metadata.insert("backoffUnit".into(), json!(window.unit));
        }
    }
    if form == DigestType::Timed {
        let timed = controls.timed.clone().unwrap_or_default();
        metadata.insert("timed".into(), timed_metadata(timed, rule.cron_expression()));
    }
    metadata.insert("events".into(), Value::Array(events));
    Value::Object(metadata)
}

/// The `timed` settings as the API shows them: month days as numbers, plus the cron expression used.
fn timed_metadata(timed: TimedControls, cron_expression: Option<&str>) -> Value {
    let month_days: Option<Vec<i64>> =
        timed.month_days.as_ref().map(|days| days.iter().filter_map(|day| day.parse().ok()).collect());
    let mut shown = serde_json::to_value(TimedControls { month_days: None, ..timed }).unwrap_or_default();
    if let Some(days) = month_days {
        shown["monthDays"] = json!(days);
    }
    if let Some(expression) = cron_expression {
        shown["cronExpression"] = json!(expression);
    }
    shown
}

/// What a step sees of the nearest digest before it (its notification's finished digest jobs, by
/// position): `step.digest`, `step.events`, `step.total_count`; `{}` when there is none.
pub fn step_context(digests: Option<&Vec<(i32, Value)>>, position: i32) -> Value {
    let nearest = digests.and_then(|digests| {
        digests.iter().filter(|(at, _)| *at < position).max_by_key(|(at, _)| *at).map(|(_, digest)| digest)
    });
    let Some(digest) = nearest else { return json!({}) };
    let events = digest["events"].as_array().cloned().unwrap_or_default();
    let count = events.len();
    json!({
        "digest": { "eventCount": count, "events": events },
        "events": events,
        "total_count": count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_never_mix_types_or_missing_values() {
        let controls: DigestControls = read(&json!({"digestKey": "post.id"}));
        assert_eq!(key_value(&controls, &json!({"post": {"id": "1"}})), "\"1\"");
        assert_eq!(key_value(&controls, &json!({"post": {"id": 1}})), "1");
        assert_eq!(key_value(&controls, &json!({})), "null");
        let prefixed: DigestControls = read(&json!({"digestKey": "payload.post.id"}));
        assert_eq!(key_value(&prefixed, &json!({"post": {"id": 1}})), "1");
        assert_eq!(key_value(&DigestControls::default(), &json!({"post": {"id": 1}})), "");
    }

    #[test]
    fn later_steps_see_the_nearest_digest_before_them() {
        let digests = vec![(1, json!({"events": [{"n": 1}, {"n": 2}]})), (3, json!({"events": [{"n": 3}]}))];
        assert_eq!(step_context(Some(&digests), 1), json!({}));
        let second = step_context(Some(&digests), 2);
        assert_eq!(second["total_count"], 2);
        assert_eq!(second["events"], json!([{"n": 1}, {"n": 2}]));
        assert_eq!(second["digest"]["eventCount"], 2);
        assert_eq!(step_context(Some(&digests), 4)["events"], json!([{"n": 3}]));
        assert_eq!(step_context(None, 4), json!({}));
    }

    #[test]
    fn metadata_shows_the_spec_fields() {
        let backoff: DigestControls =
            read(&json!({"type": "backoff", "amount": 5, "unit": "minutes", "digestKey": "postId",
                             "lookBackWindow": {"amount": 1, "unit": "minutes"}}));
        let rule = WindowRule::from_controls(&backoff).unwrap();
        assert_eq!(
            metadata(&backoff, &rule, vec![json!({"a": 1})]),
            json!({"type": "backoff", "amount": 5, "unit": "minutes", "digestKey": "postId", "backoff": true,
                   "backoffAmount": 1, "backoffUnit": "minutes", "events": [{"a": 1}]})
        );
        let timed: DigestControls = read(&json!({"type": "timed", "cron": "0 9 * * 1"}));
        let rule = WindowRule::from_controls(&timed).unwrap();
        assert_eq!(metadata(&timed, &rule, vec![])["timed"], json!({"cronExpression": "0 9 * * 1"}));
    }
}
