//! Percentiles and rates, on latencies in microseconds.

use serde::Serialize;

/// Percentiles of one latency distribution, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: usize,
    pub min_ms: f64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// Nearest-rank percentile (`q` in 0..=1) of ascending `sorted`: the smallest value with at least
/// `q` of the values at or below it. `None` when empty.
pub fn percentile(sorted: &[i64], q: f64) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.saturating_sub(1).min(sorted.len() - 1)])
}

/// Summary of `micros` (sorted in place); `None` when empty.
pub fn summarize(micros: &mut [i64]) -> Option<LatencySummary> {
    micros.sort_unstable();
    let p = |q| percentile(micros, q).map(to_ms);
    let sum: i128 = micros.iter().map(|&v| i128::from(v)).sum();
    Some(LatencySummary {
        count: micros.len(),
        min_ms: to_ms(*micros.first()?),
        mean_ms: round3(sum as f64 / micros.len() as f64 / 1000.0),
        p50_ms: p(0.50)?,
        p90_ms: p(0.90)?,
        p99_ms: p(0.99)?,
        max_ms: to_ms(*micros.last()?),
    })
}

/// Events per second over `span_micros`; `None` for an empty or non-positive span.
pub fn per_second(count: u64, span_micros: i64) -> Option<f64> {
    (span_micros > 0).then(|| round3(count as f64 * 1_000_000.0 / span_micros as f64))
}

fn to_ms(micros: i64) -> f64 {
    round3(micros as f64 / 1000.0)
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<i64> = (1..=100).collect();
        assert_eq!(percentile(&values, 0.5), Some(50));
        assert_eq!(percentile(&values, 0.9), Some(90));
        assert_eq!(percentile(&values, 0.99), Some(99));
        assert_eq!(percentile(&values, 1.0), Some(100));
        assert_eq!(percentile(&values, 0.0), Some(1));
        assert_eq!(percentile(&[7], 0.99), Some(7));
        assert_eq!(percentile(&[1, 2, 3, 4], 0.5), Some(2));
        assert_eq!(percentile(&[1, 2, 3, 4], 0.51), Some(3));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn summary_sorts_and_converts_to_ms() {
        let mut micros = vec![3_000, 1_000, 2_000, 10_500, -500];
        let summary = summarize(&mut micros).unwrap();
        assert_eq!(summary.count, 5);
        assert_eq!(summary.min_ms, -0.5);
        assert_eq!(summary.p50_ms, 2.0);
        assert_eq!(summary.p90_ms, 10.5);
        assert_eq!(summary.p99_ms, 10.5);
        assert_eq!(summary.max_ms, 10.5);
        assert_eq!(summary.mean_ms, 3.2);
        assert_eq!(summarize(&mut []), None);
    }

    #[test]
    fn rates() {
        assert_eq!(per_second(500, 250_000), Some(2000.0));
        assert_eq!(per_second(1, 3_000_000), Some(0.333));
        assert_eq!(per_second(10, 0), None);
        assert_eq!(per_second(10, -1), None);
    }
}
