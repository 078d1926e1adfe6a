//! W3C trace context: continuing a caller's trace (the `traceparent` header of a REST or gRPC request),
//! carrying a trigger's context to its jobs (stored as a `traceparent` string), and naming the trace
//! in the logs (the `trace_id` and `span_id` fields of the request and job spans).

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry::Context;
use opentelemetry_http::HeaderExtractor;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::field::display;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::enabled;

const TRACEPARENT: &str = "traceparent";

/// Makes `span` (a request's) a child of the caller's span when `headers` carry a valid `traceparent`,
/// and records its ids.
pub fn continue_from_headers(span: &Span, headers: &http::HeaderMap) {
    if enabled() {
        adopt(span, TraceContextPropagator::new().extract(&HeaderExtractor(headers)));
    }
}

/// Makes `span` (a job's) a child of the stored `traceparent`, the request that triggered the job, and
/// records its ids.
pub fn continue_from(span: &Span, traceparent: Option<&str>) {
    if !enabled() {
        return;
    }
    let parent = match traceparent {
        Some(traceparent) => {
            let carrier = HashMap::from([(TRACEPARENT.to_owned(), traceparent.to_owned())]);
            TraceContextPropagator::new().extract(&carrier)
        }
        None => Context::new(),
    };
    adopt(span, parent);
}

/// The `traceparent` of the current span, for what it starts to continue its trace later.
pub fn current_traceparent() -> Option<String> {
    if !enabled() {
        return None;
    }
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&Span::current().context(), &mut carrier);
    carrier.remove(TRACEPARENT)
}

/// A malformed or absent `traceparent` leaves `span` the root of a new trace.
fn adopt(span: &Span, parent: Context) {
    if parent.span().span_context().is_valid() {
        // It fails only for a span the exporter does not see (filtered out): nothing to continue then.
        let _ = span.set_parent(parent);
    }
    let context = span.context();
    let current = context.span();
    let ids = current.span_context();
    if ids.is_valid() {
        span.record("trace_id", display(ids.trace_id()));
        span.record("span_id", display(ids.span_id()));
    }
}
