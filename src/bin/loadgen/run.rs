//! The sending phase: closed loop (at most `concurrency` in flight, each slot sends again as soon
//! as it is answered) or open loop (a fixed schedule at `rate`, latency measured from the scheduled
//! time so that queueing in the server or in this client is not hidden).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{mpsc, Semaphore};
use tokio::time::Instant;

use crate::args::{recipients_of, transaction_id};
use crate::client::{Outcome, TriggerClient, TriggerSpec};

/// What to send.
#[derive(Debug, Clone)]
pub struct Plan {
    pub run_id: String,
    pub workflow: String,
    pub triggers: u64,
    pub concurrency: usize,
    pub rate: Option<f64>,
    pub recipients_per_trigger: u32,
    pub subscribers: u64,
    /// The payload's filler text (empty: none).
    pub note: Arc<str>,
}

/// One trigger as sent.
#[derive(Debug, Clone)]
pub struct Sent {
    pub transaction_id: String,
    /// Wall-clock time the trigger was sent (open loop: was scheduled to be sent).
    pub sent_at: DateTime<Utc>,
    /// From `sent_at` to the answer.
    pub latency: Duration,
    pub outcome: Outcome,
}

/// Everything the sending phase observed.
#[derive(Debug)]
pub struct SendPhase {
    pub sent: Vec<Sent>,
    /// Wall-clock time of the first send.
    pub started_at: DateTime<Utc>,
    /// From the first send to the last answer.
    pub elapsed: Duration,
    /// Open loop: the largest delay between a trigger's scheduled time and its actual send, which is
    /// large when the concurrency limit (or this process) could not keep up with the rate.
    pub max_dispatch_lag: Option<Duration>,
}

/// Maps `Instant`s of this run to wall-clock times, from one reading of both clocks.
#[derive(Debug, Clone, Copy)]
struct Clock {
    start: Instant,
    wall: DateTime<Utc>,
}

impl Clock {
    fn wall_at(&self, at: Instant) -> DateTime<Utc> {
        self.wall + chrono::Duration::from_std(at.saturating_duration_since(self.start)).unwrap_or_default()
    }
}

/// Scheduled offset of trigger `n` at `rate` per second.
pub fn scheduled_offset(n: u64, rate: f64) -> Duration {
    Duration::from_secs_f64(n as f64 / rate)
}

/// Sends every trigger of `plan` and collects the results, in send order.
pub async fn send_all(client: Arc<TriggerClient>, plan: &Plan, progress: bool) -> SendPhase {
    let permits = Arc::new(Semaphore::new(plan.concurrency));
    let (results, mut received) = mpsc::unbounded_channel();
    let done = Arc::new(AtomicU64::new(0));
    let reporter = progress.then(|| tokio::spawn(report_progress(done.clone(), plan.triggers)));
    let clock = Clock { start: Instant::now(), wall: Utc::now() };
    let mut max_lag = Duration::ZERO;

    for n in 0..plan.triggers {
        let scheduled = plan.rate.map(|rate| clock.start + scheduled_offset(n, rate));
        if let Some(at) = scheduled {
            tokio::time::sleep_until(at).await;
        }
        let permit = permits.clone().acquire_owned().await.expect("the semaphore is never closed");
        let origin = match scheduled {
            Some(at) => {
                max_lag = max_lag.max(Instant::now().saturating_duration_since(at));
                at
            }
            None => Instant::now(),
        };
        let spec = TriggerSpec {
            workflow: plan.workflow.clone(),
            recipients: recipients_of(n, plan.recipients_per_trigger, plan.subscribers),
            transaction_id: transaction_id(&plan.run_id, n),
            n,
            note: plan.note.clone(),
        };
        let (client, results, done) = (client.clone(), results.clone(), done.clone());
        tokio::spawn(async move {
            let outcome = client.send(&spec).await;
            let latency = origin.elapsed();
            drop(permit);
            done.fetch_add(1, Ordering::Relaxed);
            let sent_at = clock.wall_at(origin);
            let _ = results.send((n, Sent { transaction_id: spec.transaction_id, sent_at, latency, outcome }));
        });
    }
    drop(results);

    let mut sent = Vec::with_capacity(plan.triggers as usize);
    while let Some(result) = received.recv().await {
        sent.push(result);
    }
    let elapsed = clock.start.elapsed();
    if let Some(reporter) = reporter {
        reporter.abort();
    }
    sent.sort_by_key(|(n, _)| *n);
    SendPhase {
        sent: sent.into_iter().map(|(_, sent)| sent).collect(),
        started_at: clock.wall,
        elapsed,
        max_dispatch_lag: plan.rate.map(|_| max_lag),
    }
}

async fn report_progress(done: Arc<AtomicU64>, total: u64) {
    let mut ticks = tokio::time::interval(Duration::from_secs(2));
    ticks.tick().await;
    loop {
        ticks.tick().await;
        eprintln!("loadgen: {}/{total} triggers answered", done.load(Ordering::Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_evenly_spaced() {
        assert_eq!(scheduled_offset(0, 2000.0), Duration::ZERO);
        assert_eq!(scheduled_offset(1, 2000.0), Duration::from_micros(500));
        assert_eq!(scheduled_offset(4000, 2000.0), Duration::from_secs(2));
    }

    #[test]
    fn wall_clock_follows_the_monotonic_clock() {
        let clock = Clock { start: Instant::now(), wall: DateTime::from_timestamp(1_000, 0).unwrap() };
        let later = clock.start + Duration::from_millis(1500);
        assert_eq!(clock.wall_at(later), DateTime::from_timestamp(1_001, 500_000_000).unwrap());
        assert_eq!(clock.wall_at(clock.start), clock.wall);
    }
}
