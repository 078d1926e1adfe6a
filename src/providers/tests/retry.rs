//! The retry schedule, as a property over many samples (the jitter is random).

use std::time::Duration;

use crate::providers::retry_delay;

const SAMPLES: usize = 2000;

/// The step of `attempt` before jitter: 1 s doubling, capped at 60 s.
fn step(attempt: u32) -> Duration {
    Duration::from_secs(2u64.saturating_pow(attempt.saturating_sub(1)).min(60))
}

fn samples(attempt: u32) -> Vec<Duration> {
    (0..SAMPLES).map(|_| retry_delay(attempt)).collect()
}

#[test]
fn every_delay_lies_between_half_the_step_and_the_step() {
    for attempt in 0..=12 {
        let (low, high) = (step(attempt) / 2, step(attempt));
        for delay in samples(attempt) {
            assert!(low <= delay && delay <= high, "attempt {attempt}: {delay:?} outside {low:?}..={high:?}");
        }
    }
}

#[test]
fn delays_grow_until_the_cap() {
    for attempt in 1..8 {
        let longest = samples(attempt).into_iter().max().unwrap();
        let shortest_next = samples(attempt + 1).into_iter().min().unwrap();
        assert!(longest <= shortest_next, "attempt {attempt}: {longest:?} > next {shortest_next:?}");
    }
    assert!(samples(3).iter().sum::<Duration>() > samples(2).iter().sum::<Duration>());
}

#[test]
fn delays_are_capped_at_a_minute_even_for_huge_attempts() {
    for attempt in [7, 8, 30, 64, u32::MAX] {
        assert!(samples(attempt)
            .into_iter()
            .all(|delay| delay >= Duration::from_secs(30) && delay <= Duration::from_secs(60)));
    }
}

#[test]
fn delays_are_jittered() {
    let delays = samples(4);
    let distinct: std::collections::HashSet<_> = delays.iter().collect();
    assert!(distinct.len() > 100, "only {} distinct delays", distinct.len());
}
