//! Load generator for Herald's trigger path.
//!
//! Sends `--triggers` triggers of `--workflow` over REST, gRPC or gRPC streams, closed loop (`--concurrency` in
//! flight) or open loop (`--rate` per second on a fixed schedule, latency from the scheduled time),
//! then polls `GET /v1/messages` until every in-app message of the accepted triggers exists. Reports
//! trigger latency and throughput, and trigger→message latency and delivery throughput (from each
//! message's `createdAt`, so Herald and this process must share a clock: run both on one host).
//!
//! `cargo run --release --bin loadgen -- --protocol grpc --rate 2000`

mod args;
mod client;
mod messages;
mod report;
mod run;
mod stats;
mod stream;

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;

use crate::args::{Args, Protocol, RequestKind};
use crate::client::TriggerClient;
use crate::messages::Listing;
use crate::report::{Report, Setup};
use crate::run::Plan;
use crate::stream::TriggerStreams;

/// jemalloc, as the server: the load generator shares the benchmark's two cores with Herald and
/// PostgreSQL, and glibc's malloc and free were a third of its CPU (perf, 20,000 REST triggers:
/// `_int_malloc`, `_int_free`, `malloc_consolidate`, `unlink_chunk`), CPU the server then lacked.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(report) if report.ok => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(error) => {
            eprintln!("loadgen: {error:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(args: Args) -> anyhow::Result<Report> {
    args.validate().map_err(anyhow::Error::msg)?;
    let api_key = args.resolve_api_key().map_err(anyhow::Error::msg)?;
    let timeout = Duration::from_secs(args.request_timeout_secs);
    let concurrency = args.concurrency as usize;
    let client = match (args.request, args.protocol) {
        (RequestKind::Read, _) => TriggerClient::read(&args.url, Some(&api_key), concurrency, timeout)?,
        (RequestKind::Unauthenticated, _) => TriggerClient::read(&args.url, None, concurrency, timeout)?,
        (RequestKind::Call, _) => {
            let call = args.call.as_ref().expect("validated: --request call has --call");
            TriggerClient::call(&args.url, call, args.body.as_deref(), Some(&api_key), concurrency, timeout)?
        }
        (RequestKind::Trigger, Protocol::Rest) => {
            TriggerClient::rest(&args.url, &api_key, concurrency, timeout, args.idempotency_keys)?
        }
        (RequestKind::Trigger, Protocol::Grpc) => {
            let connections = args.grpc_connections as usize;
            TriggerClient::grpc(&args.url, &api_key, connections, timeout, args.idempotency_keys).await?
        }
        (RequestKind::Trigger, Protocol::GrpcStream) => {
            let connections = args.grpc_connections as usize;
            TriggerClient::GrpcStream(TriggerStreams::open(&args.url, &api_key, connections, timeout).await?)
        }
    };
    let plan = Plan {
        run_id: format!("{:08x}", rand::random::<u32>()),
        workflow: args.workflow.clone(),
        triggers: args.triggers,
        concurrency,
        rate: args.rate,
        recipients_per_trigger: args.recipients_per_trigger,
        subscribers: args.subscribers,
        note: "x".repeat(args.payload_bytes as usize).into(),
    };
    let setup = Setup {
        run_id: plan.run_id.clone(),
        url: args.url.clone(),
        protocol: args.protocol,
        request: args.request,
        call: args.call.clone(),
        mode: if args.rate.is_some() { "open loop" } else { "closed loop" },
        workflow: args.workflow.clone(),
        triggers: args.triggers,
        concurrency: args.concurrency,
        target_rate_per_s: args.rate,
        subscribers: args.subscribers,
        recipients_per_trigger: args.recipients_per_trigger,
    };
    eprintln!("loadgen: run {}: {} triggers, {}", setup.run_id, setup.triggers, setup.mode);

    let phase = run::send_all(Arc::new(client), &plan, true).await;
    let triggers = report::triggers(&phase);

    let delivery = if args.wait() {
        let accepted: Vec<_> = phase.sent.iter().filter(|sent| sent.outcome.is_ok()).collect();
        let expected: Vec<String> = accepted.iter().map(|sent| sent.transaction_id.clone()).collect();
        let sent_at: HashMap<String, _> =
            accepted.iter().map(|sent| (sent.transaction_id.clone(), sent.sent_at)).collect();
        eprintln!(
            "loadgen: waiting for {} in-app messages",
            expected.len() as u64 * u64::from(plan.recipients_per_trigger)
        );
        let listing = Listing::new(&args.url, &api_key, timeout)?;
        let observed =
            listing.wait(&expected, plan.recipients_per_trigger, Duration::from_secs(args.wait_timeout_secs)).await;
        let first_send = phase.sent.iter().map(|sent| sent.sent_at).min().unwrap_or(phase.started_at);
        Some(report::delivery(&sent_at, first_send, plan.recipients_per_trigger, &observed))
    } else {
        None
    };

    let report = Report::new(setup, triggers, delivery);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.text());
    }
    Ok(report)
}
