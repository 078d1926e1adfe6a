//! The report: figures computed from the sending phase and the wait, as text or JSON.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::messages::Observed;
use crate::run::SendPhase;
use crate::stats::{per_second, summarize, LatencySummary};

/// How the run was configured.
#[derive(Debug, Clone, Serialize)]
pub struct Setup {
    pub run_id: String,
    pub url: String,
    pub protocol: crate::args::Protocol,
    pub request: crate::args::RequestKind,
    pub call: Option<crate::args::Call>,
    pub mode: &'static str,
    pub workflow: String,
    pub triggers: u64,
    pub concurrency: u32,
    pub target_rate_per_s: Option<f64>,
    pub subscribers: u64,
    pub recipients_per_trigger: u32,
}

/// The trigger requests.
#[derive(Debug, Clone, Serialize)]
pub struct Triggers {
    pub sent: u64,
    pub accepted: u64,
    pub failed: u64,
    pub failures: BTreeMap<String, u64>,
    /// When the first request was sent.
    pub started_at: DateTime<Utc>,
    /// The failures by the whole second after `started_at` at which each was answered (seconds
    /// without a failure are left out): tells failures a fault caused, which are answered at or
    /// soon after it however long they waited before, from the rest.
    pub failures_by_second: BTreeMap<u64, BTreeMap<String, u64>>,
    pub duration_s: f64,
    pub accepted_per_s: Option<f64>,
    /// Latency of the accepted triggers (failures are counted, not timed).
    pub latency: Option<LatencySummary>,
    pub max_dispatch_lag_ms: Option<f64>,
}

/// The in-app messages of the accepted triggers.
#[derive(Debug, Clone, Serialize)]
pub struct Delivery {
    pub expected_messages: u64,
    pub found_messages: u64,
    pub missing_messages: u64,
    pub incomplete_triggers: u64,
    pub extra_messages: u64,
    pub timed_out: bool,
    pub aborted: Option<String>,
    pub waited_s: f64,
    pub trigger_to_message_latency: Option<LatencySummary>,
    pub messages_per_s: Option<f64>,
    pub listing_errors: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub setup: Setup,
    pub triggers: Triggers,
    pub delivery: Option<Delivery>,
    /// No trigger failed and no expected message is missing.
    pub ok: bool,
}

/// Figures of the sending phase.
pub fn triggers(phase: &SendPhase) -> Triggers {
    let mut failures = BTreeMap::new();
    let mut failures_by_second: BTreeMap<u64, BTreeMap<String, u64>> = BTreeMap::new();
    let mut latencies = Vec::with_capacity(phase.sent.len());
    for sent in &phase.sent {
        match &sent.outcome {
            Ok(()) => latencies.push(i64::try_from(sent.latency.as_micros()).unwrap_or(i64::MAX)),
            Err(kind) => {
                *failures.entry(kind.clone()).or_default() += 1;
                let answered_at = sent.sent_at + chrono::Duration::from_std(sent.latency).unwrap_or_default();
                let second = (answered_at - phase.started_at).num_seconds().max(0) as u64;
                *failures_by_second.entry(second).or_default().entry(kind.clone()).or_default() += 1;
            }
        }
    }
    let failed: u64 = failures.values().sum();
    let accepted = phase.sent.len() as u64 - failed;
    Triggers {
        sent: phase.sent.len() as u64,
        accepted,
        failed,
        failures,
        started_at: phase.started_at,
        failures_by_second,
        duration_s: phase.elapsed.as_secs_f64(),
        accepted_per_s: per_second(accepted, i64::try_from(phase.elapsed.as_micros()).unwrap_or(i64::MAX)),
        latency: summarize(&mut latencies),
        max_dispatch_lag_ms: phase.max_dispatch_lag.map(|lag| lag.as_secs_f64() * 1000.0),
    }
}

/// Figures of the wait: `sent_at` holds the send time of each accepted trigger, `first_send` the
/// first send of the run, `per_trigger` the in-app messages each accepted trigger should yield.
pub fn delivery(
    sent_at: &HashMap<String, DateTime<Utc>>,
    first_send: DateTime<Utc>,
    per_trigger: u32,
    observed: &Observed,
) -> Delivery {
    let per_trigger = u64::from(per_trigger);
    let (mut found, mut extra, mut incomplete) = (0, 0, 0);
    let mut latencies = Vec::new();
    let mut last_created: Option<DateTime<Utc>> = None;
    for (transaction_id, sent) in sent_at {
        let messages = observed.messages.get(transaction_id);
        let count = messages.map_or(0, |m| m.len() as u64);
        found += count.min(per_trigger);
        extra += count.saturating_sub(per_trigger);
        incomplete += u64::from(count < per_trigger);
        for created in messages.into_iter().flat_map(HashMap::values) {
            latencies.push((*created - *sent).num_microseconds().unwrap_or(i64::MAX));
            last_created = last_created.max(Some(*created));
        }
    }
    let expected = sent_at.len() as u64 * per_trigger;
    let span = last_created.and_then(|last| (last - first_send).num_microseconds());
    Delivery {
        expected_messages: expected,
        found_messages: found,
        missing_messages: expected - found,
        incomplete_triggers: incomplete,
        extra_messages: extra,
        timed_out: observed.timed_out,
        aborted: observed.aborted.clone(),
        waited_s: observed.waited.as_secs_f64(),
        trigger_to_message_latency: summarize(&mut latencies),
        messages_per_s: span.and_then(|span| per_second(found + extra, span)),
        listing_errors: observed.errors.clone(),
    }
}

impl Report {
    pub fn new(setup: Setup, triggers: Triggers, delivery: Option<Delivery>) -> Self {
        let ok = triggers.failed == 0 && delivery.as_ref().is_none_or(|d| d.missing_messages == 0);
        Self { setup, triggers, delivery, ok }
    }

    /// The plain-text report.
    pub fn text(&self) -> String {
        let (s, t) = (&self.setup, &self.triggers);
        let mut out = String::new();
        let rate = s.target_rate_per_s.map_or(String::new(), |r| format!(" at {r}/s"));
        let protocol = match s.protocol {
            crate::args::Protocol::Rest => "REST",
            crate::args::Protocol::Grpc => "gRPC",
            crate::args::Protocol::GrpcStream => "gRPC stream",
        };
        let request = match s.request {
            crate::args::RequestKind::Trigger => format!("workflow {}", s.workflow),
            crate::args::RequestKind::Read => "requests: authenticated GET /v1/environments/me".into(),
            crate::args::RequestKind::Unauthenticated => "requests: GET /v1/environments/me without a key (401)".into(),
            crate::args::RequestKind::Call => {
                s.call.as_ref().map_or_else(String::new, |call| format!("requests: {} {}", call.method, call.path))
            }
        };
        let _ = writeln!(out, "Herald load test  run {}  {protocol} {}  {request}", s.run_id, s.url);
        let _ = writeln!(
            out,
            "  {} triggers, {}{rate}, concurrency {}, {} recipient(s) per trigger over {} subscribers",
            s.triggers, s.mode, s.concurrency, s.recipients_per_trigger, s.subscribers
        );
        let _ = writeln!(out, "Triggers");
        let _ =
            writeln!(out, "  accepted     {} of {} ({} failed) in {:.2} s", t.accepted, t.sent, t.failed, t.duration_s);
        let _ = writeln!(out, "  throughput   {} accepted triggers/s", opt(t.accepted_per_s));
        for (kind, count) in &t.failures {
            let _ = writeln!(out, "  failure      {count} × {kind}");
        }
        let _ = writeln!(out, "  latency      {}", latency(t.latency.as_ref()));
        if let Some(lag) = t.max_dispatch_lag_ms {
            let _ = writeln!(out, "  max dispatch lag behind schedule {lag:.2} ms");
        }
        if let Some(d) = &self.delivery {
            let _ = writeln!(out, "In-app messages");
            let _ = writeln!(
                out,
                "  found        {} of {} expected ({} missing, {} extra) after waiting {:.2} s{}",
                d.found_messages,
                d.expected_messages,
                d.missing_messages,
                d.extra_messages,
                d.waited_s,
                if d.timed_out { " (timed out)" } else { "" }
            );
            let _ =
                writeln!(out, "  throughput   {} messages/s from first trigger to last message", opt(d.messages_per_s));
            let _ = writeln!(out, "  trigger→message latency  {}", latency(d.trigger_to_message_latency.as_ref()));
            for (kind, count) in &d.listing_errors {
                let _ = writeln!(out, "  listing error {count} × {kind}");
            }
            if let Some(reason) = &d.aborted {
                let _ = writeln!(out, "  stopped waiting: {reason}");
            }
        }
        let _ = writeln!(out, "Result: {}", if self.ok { "OK" } else { "FAILED" });
        out
    }
}

fn opt(value: Option<f64>) -> String {
    value.map_or("n/a".into(), |v| format!("{v:.1}"))
}

fn latency(summary: Option<&LatencySummary>) -> String {
    match summary {
        Some(l) => format!(
            "p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms  (n={}, mean {:.2} ms)",
            l.p50_ms, l.p90_ms, l.p99_ms, l.max_ms, l.count, l.mean_ms
        ),
        None => "n/a".into(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::run::Sent;

    fn at(millis: i64) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(1_800_000_000_000 + millis).unwrap()
    }

    fn sent(id: &str, millis: i64, latency_ms: u64, outcome: Result<(), &str>) -> Sent {
        Sent {
            transaction_id: id.into(),
            sent_at: at(millis),
            latency: Duration::from_millis(latency_ms),
            outcome: outcome.map_err(String::from),
        }
    }

    #[test]
    fn trigger_figures() {
        let phase = SendPhase {
            sent: vec![
                sent("t0", 0, 10, Ok(())),
                sent("t1", 1, 20, Ok(())),
                sent("t2", 2, 30, Err("HTTP 500")),
                sent("t3", 3, 40, Ok(())),
            ],
            started_at: at(0),
            elapsed: Duration::from_millis(1500),
            max_dispatch_lag: None,
        };
        let figures = triggers(&phase);
        assert_eq!((figures.sent, figures.accepted, figures.failed), (4, 3, 1));
        assert_eq!(figures.failures["HTTP 500"], 1);
        assert_eq!(figures.accepted_per_s, Some(2.0));
        assert_eq!(figures.failures_by_second, BTreeMap::from([(0, BTreeMap::from([("HTTP 500".into(), 1)]))]));
        let latency = figures.latency.unwrap();
        assert_eq!((latency.count, latency.p50_ms, latency.max_ms), (3, 20.0, 40.0));
    }

    #[test]
    fn failures_are_placed_in_the_second_they_were_answered() {
        let phase = SendPhase {
            sent: vec![
                sent("t0", 900, 10, Err("HTTP 503")),
                sent("t1", 995, 10, Err("HTTP 503")),
                sent("t2", 1_500, 10, Err("timeout")),
                sent("t3", 2_000, 10, Ok(())),
                sent("t4", 120_000, 5_000, Err("HTTP 503")),
            ],
            started_at: at(0),
            elapsed: Duration::from_secs(126),
            max_dispatch_lag: None,
        };
        let by_second = triggers(&phase).failures_by_second;
        let kinds = |pairs: &[(&str, u64)]| pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect::<BTreeMap<_, _>>();
        assert_eq!(
            by_second,
            BTreeMap::from([
                (0, kinds(&[("HTTP 503", 1)])),
                (1, kinds(&[("HTTP 503", 1), ("timeout", 1)])),
                (125, kinds(&[("HTTP 503", 1)])),
            ])
        );
    }

    #[test]
    fn delivery_figures() {
        let sent_at =
            HashMap::from([("t0".to_string(), at(0)), ("t1".to_string(), at(10)), ("t2".to_string(), at(20))]);
        let mut observed = Observed::default();
        observed.messages.insert("t0".into(), HashMap::from([("m0".into(), at(50)), ("m1".into(), at(60))]));
        observed.messages.insert("t1".into(), HashMap::from([("m2".into(), at(210)), ("m3".into(), at(90))]));
        observed.messages.insert("t2".into(), HashMap::from([("m4".into(), at(100))]));
        observed.timed_out = true;
        let d = delivery(&sent_at, at(0), 2, &observed);
        assert_eq!((d.expected_messages, d.found_messages, d.missing_messages, d.incomplete_triggers), (6, 5, 1, 1));
        assert_eq!(d.extra_messages, 0);
        let latency = d.trigger_to_message_latency.clone().unwrap();
        // 50, 60, 80, 200, 80 ms
        assert_eq!((latency.p50_ms, latency.p90_ms, latency.max_ms), (80.0, 200.0, 200.0));
        // 5 messages between the first send (0) and the last message (210 ms).
        assert_eq!(d.messages_per_s, Some(23.81));

        let report = Report::new(sample_setup(), triggers(&empty_phase()), Some(d));
        assert!(!report.ok);
        let text = report.text();
        assert!(text.contains("5 of 6 expected (1 missing, 0 extra)"), "{text}");
        assert!(text.contains("(timed out)") && text.ends_with("Result: FAILED\n"), "{text}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["delivery"]["missing_messages"], 1);
        assert_eq!(json["setup"]["protocol"], "rest");
    }

    #[test]
    fn report_without_wait_is_ok_when_nothing_failed() {
        let report = Report::new(sample_setup(), triggers(&empty_phase()), None);
        assert!(report.ok);
        assert!(report.text().ends_with("Result: OK\n"));
    }

    fn empty_phase() -> SendPhase {
        SendPhase { sent: vec![], started_at: at(0), elapsed: Duration::ZERO, max_dispatch_lag: None }
    }

    fn sample_setup() -> Setup {
        Setup {
            run_id: "r".into(),
            url: "http://127.0.0.1:3000".into(),
            protocol: crate::args::Protocol::Rest,
            request: crate::args::RequestKind::Trigger,
            call: None,
            mode: "closed loop",
            workflow: "welcome".into(),
            triggers: 3,
            concurrency: 64,
            target_rate_per_s: None,
            subscribers: 1000,
            recipients_per_trigger: 2,
        }
    }
}
