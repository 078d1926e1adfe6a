//! When to try a transient failure again.

use std::time::Duration;

use rand::Rng;

/// Tries per message (the first send plus four retries) before a transient failure fails the step.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 5;

const BASE: Duration = Duration::from_secs(1);
const CAP: Duration = Duration::from_secs(60);

/// How long to wait before retry number `attempt` (1 = the first retry; 0 is taken as 1).
///
/// Capped exponential backoff (1 s, 2 s, 4 s … 60 s) with "equal jitter": half of the step is kept and the
/// other half is random. The random half spreads retries of a burst of failures that hit one receiver at
/// once; the fixed half keeps the delay growing, so a struggling receiver gets real rest.
pub fn retry_delay(attempt: u32) -> Duration {
    // 2^6 s already exceeds the cap; stopping the exponent there also keeps the shift from overflowing.
    let exponent = attempt.saturating_sub(1).min(6);
    let step = (BASE * (1 << exponent)).min(CAP);
    let half = step / 2;
    let jitter_ms = rand::rng().random_range(0..=half.as_millis() as u64);
    half + Duration::from_millis(jitter_ms)
}
