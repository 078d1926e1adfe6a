//! Logs and traces. Log lines go to stderr, as text or JSON, filtered by `RUST_LOG`. OpenTelemetry
//! spans are exported over OTLP (HTTP, protobuf) when `OTEL_EXPORTER_OTLP_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; otherwise no OpenTelemetry layer is installed and
//! every function here returns at its first line, so traces cost nothing when off.
//!
//! The spans (Herald's own, at INFO, whatever `RUST_LOG` says):
//! - `request`: every REST and gRPC request, a child of the caller's span when the request carries a
//!   W3C `traceparent` header (gRPC: metadata);
//! - `job`: every step a worker runs, a child of the request that triggered it: the trigger stores
//!   its request's `traceparent` with each of its jobs (`jobs.traceparent`), and every job derived
//!   from it (the next steps, a delay's or digest's wait, a topic's fan-out) has it too;
//! - `provider_call`: each call to a delivery provider, inside its job.
//!
//! So one trace shows a trigger's request, each of its steps and their provider calls. The request
//! and job spans also carry `trace_id` and `span_id` fields, which the logs print with the other span
//! fields (`request_id`, `environment_id`, `transaction_id`).

mod context;
mod export;

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::level_filters::LevelFilter;
use tracing::Subscriber;
use tracing_subscriber::filter::{EnvFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

use crate::config::LogFormat;
pub use context::{continue_from, continue_from_headers, current_traceparent};

/// Whether spans are exported: set once, at start.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Whether spans are exported (an OTLP endpoint is configured).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// What [`init`] started; [`shutdown`](Self::shutdown) exports the spans still buffered.
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

/// Installs the global subscriber: the log lines (`RUST_LOG` filters them, default `info`) and, when an
/// OTLP endpoint is configured, the span exporter.
pub fn init(format: LogFormat) -> anyhow::Result<Telemetry> {
    let log_filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let provider = export::tracer_provider()?;
    match &provider {
        Some(provider) => {
            // Spans have a filter of their own: quieter logs (`RUST_LOG=warn`) keep the traces whole.
            let spans = tracing_opentelemetry::layer()
                .with_tracer(provider.tracer("herald"))
                .with_filter(Targets::new().with_target("herald", LevelFilter::INFO));
            tracing_subscriber::registry().with(log_lines(format).with_filter(log_filter)).with(spans).try_init()?;
            ENABLED.store(true, Ordering::Relaxed);
        }
        None => tracing_subscriber::registry().with(log_filter).with(log_lines(format)).try_init()?,
    }
    Ok(Telemetry { provider })
}

/// The log lines on stderr, in `format`.
fn log_lines<S>(format: LogFormat) -> Box<dyn Layer<S> + Send + Sync>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    let lines = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    match format {
        LogFormat::Text => lines.boxed(),
        LogFormat::Json => lines.json().flatten_event(true).with_current_span(true).boxed(),
    }
}

impl Telemetry {
    /// Exports what is still buffered and stops the exporter; waits at most the export timeout.
    pub async fn shutdown(self) {
        if let Some(provider) = self.provider {
            // The exporter's HTTP client blocks: off the async workers.
            let stopped = tokio::task::spawn_blocking(move || provider.shutdown()).await;
            if let Ok(Err(error)) = stopped {
                tracing::warn!(%error, "traces: the last spans could not be exported");
            }
        }
    }
}
