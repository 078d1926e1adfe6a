//! The process's resident memory and CPU time, read from `/proc/self` at each scrape under the names
//! every Prometheus client uses. Elsewhere than Linux they are left out.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// `/proc/<pid>/stat` counts CPU time in USER_HZ ticks, which Linux fixes at 100 per second for
/// user space on every architecture Herald builds for.
const TICKS_PER_SECOND: f64 = 100.0;

#[derive(Debug)]
pub(super) struct ProcessCollector;

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        if let Some(bytes) = resident_memory_bytes() {
            let gauge = ConstGauge::new(bytes);
            let metric = encoder.encode_descriptor(
                "process_resident_memory_bytes",
                "Resident memory size in bytes",
                None,
                gauge.metric_type(),
            )?;
            gauge.encode(metric)?;
        }
        if let Some(seconds) = cpu_seconds() {
            let counter = ConstCounter::new(seconds);
            let metric = encoder.encode_descriptor(
                "process_cpu_seconds",
                "Total user and system CPU time spent in seconds",
                None,
                counter.metric_type(),
            )?;
            counter.encode(metric)?;
        }
        Ok(())
    }
}

fn resident_memory_bytes() -> Option<i64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kilobytes = status.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    Some(kilobytes.trim().trim_end_matches("kB").trim().parse::<i64>().ok()? * 1024)
}

fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis don't.
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / TICKS_PER_SECOND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process_memory_and_cpu_time() {
        let bytes = resident_memory_bytes().expect("Linux has /proc/self/status");
        assert!(bytes > 1024 * 1024, "{bytes}");
        let busy_until = std::time::Instant::now() + std::time::Duration::from_millis(50);
        while std::time::Instant::now() < busy_until {
            std::hint::black_box(0);
        }
        assert!(cpu_seconds().expect("Linux has /proc/self/stat") > 0.0);
    }
}
