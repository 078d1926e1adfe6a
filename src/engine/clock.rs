//! The engine's one source of time. Production reads the system clock; tests move it forward to make
//! delays and digest windows due without waiting.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};

/// System time plus an offset that only tests change. Clones share the offset.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    offset_millis: Arc<AtomicI64>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self::default()
    }

    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + TimeDelta::milliseconds(self.offset_millis.load(Ordering::Relaxed))
    }

    /// Moves this clock (and its clones) forward by `by`.
    pub fn advance(&self, by: TimeDelta) {
        self.offset_millis.fetch_add(by.num_milliseconds(), Ordering::Relaxed);
    }

    /// Sets this clock (and its clones) to `at`; it runs on from there.
    pub fn set(&self, at: DateTime<Utc>) {
        self.offset_millis.store((at - Utc::now()).num_milliseconds(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advancing_moves_every_clone() {
        let clock = Clock::system();
        let clone = clock.clone();
        clock.advance(TimeDelta::hours(2));
        let ahead = clone.now() - Utc::now();
        assert!(ahead >= TimeDelta::minutes(119) && ahead <= TimeDelta::minutes(121), "{ahead}");
    }
}
