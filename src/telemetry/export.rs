//! The OTLP span exporter, configured by the standard `OTEL_*` variables: the endpoint
//! (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`),
//! `OTEL_EXPORTER_OTLP_HEADERS`, `…_TIMEOUT`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*` (read by the exporter and the SDK themselves).

use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

/// The only protocol built in: OTLP over HTTP with protobuf bodies (no second gRPC client stack).
const PROTOCOL: &str = "http/protobuf";

/// The tracer provider, or `None` when no endpoint is configured (or `OTEL_SDK_DISABLED=true`).
pub fn tracer_provider() -> anyhow::Result<Option<SdkTracerProvider>> {
    let configured = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|value| !value.trim().is_empty()));
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"));
    if !configured || disabled {
        return Ok(None);
    }
    for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
        if let Ok(protocol) = std::env::var(name) {
            // Another protocol would reach a collector port speaking something else and lose every span
            // in silence: refuse to start instead.
            anyhow::ensure!(
                protocol.trim() == PROTOCOL,
                "{name}={protocol}: Herald exports traces with {PROTOCOL} only (a collector's port 4318)"
            );
        }
    }
    let exporter = SpanExporter::builder().with_http().with_protocol(Protocol::HttpBinary).build()?;
    Ok(Some(SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource()).build()))
}

/// The process as traces name it: `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`),
/// else `herald` rather than the SDK's `unknown_service`.
fn resource() -> Resource {
    let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|name| !name.trim().is_empty())
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|attributes| attributes.contains("service.name="));
    let builder = Resource::builder();
    if named {
        builder.build()
    } else {
        builder.with_service_name("herald").build()
    }
}
