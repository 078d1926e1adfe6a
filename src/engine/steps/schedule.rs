//! The subscriber's weekly schedule as steps see it. Email, SMS, push and chat steps outside it are
//! canceled. Delay and digest steps whose controls set `extendToSchedule` move the end of their wait to
//! the schedule's next open slot instead, at most [`MAX_SCHEDULE_EXTENSIONS`] times per job (counted in
//! `scheduleExtensionsCount`). In-app steps and critical workflows are exempt. Times are read in the
//! subscriber's timezone, so open hours stay put across DST changes.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use super::{Outcome, StepInput};
use crate::domain::preferences::Schedule;
use crate::engine::details::{instant_text, Detail, DetailStatus};
use crate::workflow::JobStatus;

/// How many times one delay or digest job may be moved to the subscriber's schedule.
pub const MAX_SCHEDULE_EXTENSIONS: i32 = 3;

/// What the schedule makes of a wait ending at a given time.
enum Fit {
    /// Inside the schedule, or the step does not extend.
    Keep,
    /// Moved to the next open slot, the job's `count`th extension.
    Extend { until: DateTime<Utc>, count: i32 },
    /// Outside the schedule, but already extended as often as allowed.
    LimitReached,
}

impl<'a> StepInput<'a> {
    /// The subscriber's enabled schedule and timezone; `None` for critical workflows.
    fn schedule(&self) -> Option<(&'a Schedule, Tz)> {
        if self.critical() {
            return None;
        }
        let preferences = self.batch.preferences.get(&(self.job.subscriber_id, self.job.workflow_id))?;
        let schedule = preferences.schedule.as_ref().filter(|schedule| schedule.is_enabled)?;
        Some((schedule, self.timezone()))
    }

    /// A channel step (not in-app) outside the schedule: `Err(outcome)`, the job canceled.
    pub(super) fn check_schedule(&self) -> Result<(), Box<Outcome>> {
        let Some((schedule, timezone)) = self.schedule() else { return Ok(()) };
        if schedule.is_open_at(self.now, timezone) {
            return Ok(());
        }
        let next = schedule
            .next_open_at(self.now, timezone)
            .map_or("it has no open hours".to_string(), |next| format!("it opens next at {}", instant_text(next)));
        let detail = format!("Step canceled: outside the subscriber's schedule (timezone {timezone}; {next})");
        let job = self.job;
        Err(Box::new(Outcome::new(job, JobStatus::Canceled).detail(Detail::internal(
            job,
            DetailStatus::Warning,
            detail,
        ))))
    }

    fn fit(&self, end: DateTime<Utc>) -> Fit {
        if !self.step().extends_to_schedule() {
            return Fit::Keep;
        }
        let Some((schedule, timezone)) = self.schedule() else { return Fit::Keep };
        if schedule.is_open_at(end, timezone) {
            return Fit::Keep;
        }
        if self.job.schedule_extensions_count >= MAX_SCHEDULE_EXTENSIONS {
            return Fit::LimitReached;
        }
        match schedule.next_open_at(end, timezone) {
            Some(until) => Fit::Extend { until, count: self.job.schedule_extensions_count + 1 },
            None => Fit::Keep,
        }
    }

    /// A wait about to start (`outcome.run_at` is its end): with `extendToSchedule`, an end outside the
    /// schedule moves to the next open slot.
    pub(super) fn fit_wait_to_schedule(&self, mut outcome: Outcome) -> Outcome {
        let Some(end) = outcome.run_at else { return outcome };
        if let Fit::Extend { until, count } = self.fit(end) {
            outcome.run_at = Some(until);
            outcome.schedule_extensions = Some(count);
            outcome.details.push(extension_detail(self, end, until, count));
        }
        outcome
    }

    /// A wait that has just ended outside the schedule (it changed since the wait began) waits again,
    /// with `status`, for the next open slot: `Err(outcome)`. Past the extension limit it goes on with a
    /// warning, which `Ok` carries.
    pub(super) fn extend_ended_wait(&self, status: JobStatus) -> Result<Option<Detail>, Box<Outcome>> {
        let job = self.job;
        match self.fit(self.now) {
            Fit::Keep => Ok(None),
            Fit::LimitReached => Ok(Some(Detail::internal(
                job,
                DetailStatus::Warning,
                format!(
                    "Outside the subscriber's schedule, but already extended {MAX_SCHEDULE_EXTENSIONS} times; going on"
                ),
            ))),
            Fit::Extend { until, count } => {
                let mut outcome =
                    Outcome::park(job, status, until).detail(extension_detail(self, self.now, until, count));
                outcome.schedule_extensions = Some(count);
                Err(Box::new(outcome))
            }
        }
    }
}

fn extension_detail(input: &StepInput<'_>, end: DateTime<Utc>, until: DateTime<Utc>, count: i32) -> Detail {
    Detail::internal(
        input.job,
        DetailStatus::Pending,
        format!(
            "Extended to the subscriber's schedule: {} is outside it, waiting until {} (extension {count} of \
             {MAX_SCHEDULE_EXTENSIONS})",
            instant_text(end),
            instant_text(until)
        ),
    )
}
