//! One token bucket: `rate` tokens a second, holding at most one second of them (the burst).

use std::time::{Duration, Instant};

/// A bucket's answer to a request for tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    pub allowed: bool,
    /// Whole tokens left after this request.
    pub remaining: u64,
    /// Until the bucket is full again.
    pub reset: Duration,
    /// Until the request would be allowed (zero when it is).
    pub retry_after: Duration,
}

#[derive(Debug, Clone)]
pub struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl Bucket {
    /// A full bucket.
    pub fn full(rate: f64, now: Instant) -> Self {
        Self { tokens: rate, updated: now }
    }

    /// Takes `cost` tokens if there are enough. A cost above the burst (a bulk trigger of more events
    /// than a second's worth) is allowed from a full bucket and leaves it in debt, so it waits its
    /// time like any other instead of being refused forever.
    pub fn take(&mut self, rate: f64, cost: f64, now: Instant) -> Verdict {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.tokens = (self.tokens + elapsed * rate).min(rate);
        self.updated = now;
        let needed = cost.min(rate);
        let allowed = self.tokens >= needed;
        if allowed {
            self.tokens -= cost;
        }
        let seconds = |tokens: f64| Duration::from_secs_f64((tokens.max(0.0) / rate).max(0.0));
        Verdict {
            allowed,
            remaining: self.tokens.max(0.0).floor() as u64,
            reset: seconds(rate - self.tokens),
            retry_after: if allowed { Duration::ZERO } else { seconds(needed - self.tokens) },
        }
    }

    /// Whether the bucket has refilled completely by `now` (an idle bucket can be forgotten).
    pub fn is_full(&self, rate: f64, now: Instant) -> bool {
        self.tokens + now.saturating_duration_since(self.updated).as_secs_f64() * rate >= rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_allows_one_second_of_requests_then_refuses_until_it_refills() {
        let start = Instant::now();
        let mut bucket = Bucket::full(4.0, start);
        let remaining: Vec<u64> = (0..4).map(|_| bucket.take(4.0, 1.0, start).remaining).collect();
        assert_eq!(remaining, [3, 2, 1, 0]);
        let refused = bucket.take(4.0, 1.0, start);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after, Duration::from_millis(250));
        assert_eq!(refused.reset, Duration::from_secs(1));
        let later = bucket.take(4.0, 1.0, start + Duration::from_millis(250));
        assert!(later.allowed);
        assert!(bucket.is_full(4.0, start + Duration::from_secs(2)));
    }

    #[test]
    fn a_cost_above_the_burst_runs_from_a_full_bucket_and_leaves_a_debt() {
        let start = Instant::now();
        let mut bucket = Bucket::full(10.0, start);
        assert!(bucket.take(10.0, 25.0, start).allowed);
        let next = bucket.take(10.0, 1.0, start);
        assert!(!next.allowed);
        // 15 tokens of debt and 1 to take: 1.6 s.
        assert_eq!(next.retry_after, Duration::from_millis(1600));
    }
}
