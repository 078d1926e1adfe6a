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
            assert!((low..=high).contains(&delay), "attempt {attempt}: {delay:?} outside {low:?}..={high:?}");
        }
    }
}

#[test]
fn delays_grow_until_the_cap() {
    // Below the cap the step doubles, so every delay of a retry is at least every delay of the one before.
    for attempt in 1..6 {
        let longest = samples(attempt).into_iter().max().unwrap();
        let shortest_next = samples(attempt + 1).into_iter().min().unwrap();
        assert!(longest <= shortest_next, "attempt {attempt}: {longest:?} > next {shortest_next:?}");
    }
    // Where the cap cuts the doubling short (32 s, then 60 s) the ranges overlap, but the mean still grows.
    let mean = |attempt| samples(attempt).iter().sum::<Duration>() / SAMPLES as u32;
    for attempt in 1..7 {
        assert!(mean(attempt) < mean(attempt + 1), "attempt {attempt}");
    }
}

#[test]
fn delays_are_capped_at_a_minute_even_for_huge_attempts() {
    let (half_cap, cap) = (Duration::from_secs(30), Duration::from_secs(60));
    for attempt in [7, 8, 30, 64, u32::MAX] {
        assert!(samples(attempt).into_iter().all(|delay| (half_cap..=cap).contains(&delay)), "attempt {attempt}");
    }
}

#[test]
fn delays_are_jittered() {
    let delays = samples(4);
    let distinct: std::collections::HashSet<_> = delays.iter().collect();
    assert!(distinct.len() > 100, "only {} distinct delays", distinct.len());
}
