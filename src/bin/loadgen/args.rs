//! Command-line options of the load generator and the plan derived from them.

use std::path::{Path, PathBuf};

use clap::Parser;
use serde::Serialize;

/// Which API the triggers go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// `POST /v1/events/trigger` (JSON over HTTP/1.1).
    Rest,
    /// `herald.v1.EventsService/TriggerEvent` (h2c).
    Grpc,
    /// `herald.v1.EventsService/StreamTriggerEvents`: one stream per `--grpc-connections`.
    #[serde(rename = "grpc-stream")]
    GrpcStream,
}

/// What each request of the run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RequestKind {
    /// A trigger of `--workflow`.
    Trigger,
    /// An authenticated `GET /v1/environments/me` (REST): what authentication and a small read cost.
    Read,
    /// `GET /v1/environments/me` without a key: a 401 Herald answers without the database, the
    /// baseline other rates are divided by (the machine is noisy; ratios are not).
    Unauthenticated,
    /// Any authenticated REST call (`--call "METHOD /path"`, optional `--body`), answered 2xx: the
    /// other parts of a mixed load (reads, marks, set-primary) run beside a trigger run.
    Call,
}

/// Measures Herald's trigger path: trigger latency and throughput, then (optionally) how long the
/// triggered in-app messages take to exist.
#[derive(Debug, Clone, Parser)]
#[command(name = "loadgen", version, args_override_self = true)]
pub struct Args {
    /// Base URL of Herald (REST and gRPC share it).
    #[arg(long, default_value = "http://127.0.0.1:3000")]
    pub url: String,

    /// API key; when unset, read from --api-key-file.
    #[arg(long, env = "HERALD_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,

    /// File holding the API key (the one `herald` writes on its first start).
    #[arg(long, default_value = ".herald/api-key")]
    pub api_key_file: PathBuf,

    /// What to send: triggers, or the requests that measure authentication (no message wait).
    #[arg(long, value_enum, default_value_t = RequestKind::Trigger)]
    pub request: RequestKind,

    /// API used for the triggers.
    #[arg(long, value_enum, default_value_t = Protocol::Rest)]
    pub protocol: Protocol,

    /// Maximum number of trigger requests in flight.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub concurrency: u32,

    /// Total number of triggers to send.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub triggers: u64,

    /// Target triggers per second. When set, triggers are sent on a fixed schedule (open loop) and
    /// latency is measured from each trigger's scheduled time; when unset, closed loop.
    #[arg(long, value_parser = parse_rate)]
    pub rate: Option<f64>,

    /// Trigger identifier of the workflow to run.
    #[arg(long, default_value = "welcome")]
    pub workflow: String,

    /// Number of distinct subscriber ids (`loadgen-<n>`) the triggers cycle through.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub subscribers: u64,

    /// Recipients of each trigger (each yields one in-app message per in-app step).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub recipients_per_trigger: u32,

    /// Characters of filler text in each trigger's payload (a `note` field), for payloads of a
    /// realistic size; none by default.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub payload_bytes: u32,

    /// Wait until every expected in-app message exists (the default).
    #[arg(long, overrides_with = "no_wait")]
    pub wait_for_messages: bool,

    /// Do not wait for the messages; report the trigger phase only.
    #[arg(long, overrides_with = "wait_for_messages")]
    pub no_wait: bool,

    /// How long to wait for the messages after the last trigger answered.
    #[arg(long, default_value_t = 120)]
    pub wait_timeout_secs: u64,

    /// Timeout of each HTTP or gRPC request, in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_secs: u64,

    /// gRPC connections (HTTP/2) the requests are spread over.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub grpc_connections: u32,

    /// `--request call`: the method and path, e.g. `"POST /v1/integrations/<id>/set-primary"`.
    /// `{subscriber}` in the path or body stands for request n's subscriber (`loadgen-<n mod
    /// --subscribers>`).
    #[arg(long, value_parser = parse_call)]
    pub call: Option<Call>,

    /// `--request call`: the JSON body.
    #[arg(long)]
    pub body: Option<String>,

    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Send every trigger with an `Idempotency-Key` of its own (its transactionId), as the official SDKs
    /// send a fresh key on every call: measures what the key costs.
    #[arg(long)]
    pub idempotency_keys: bool,
}

impl Args {
    /// Whether to wait for the messages after the trigger phase.
    pub fn wait(&self) -> bool {
        // The two flags override each other, so at most one is set.
        self.request == RequestKind::Trigger && (self.wait_for_messages || !self.no_wait)
    }

    /// Checks combinations clap cannot express.
    pub fn validate(&self) -> Result<(), String> {
        if self.request != RequestKind::Trigger && self.protocol != Protocol::Rest {
            return Err("--request read and --request unauthenticated are REST requests: use --protocol rest".into());
        }
        if self.protocol == Protocol::GrpcStream && self.idempotency_keys {
            return Err(
                "--idempotency-keys: a trigger stream takes none (its triggers' transactionIds are their keys)".into(),
            );
        }
        if (self.request == RequestKind::Call) != self.call.is_some() {
            return Err("--call goes with --request call, and --request call needs --call".into());
        }
        if let Some(body) = &self.body {
            serde_json::from_str::<serde_json::Value>(body).map_err(|error| format!("--body is not JSON: {error}"))?;
        }
        if u64::from(self.recipients_per_trigger) > self.subscribers {
            return Err(format!(
                "--recipients-per-trigger ({}) exceeds --subscribers ({}): recipients of a trigger must be distinct",
                self.recipients_per_trigger, self.subscribers
            ));
        }
        Ok(())
    }

    /// The API key: --api-key / HERALD_API_KEY, else the first line of --api-key-file.
    pub fn resolve_api_key(&self) -> Result<String, String> {
        match &self.api_key {
            Some(key) => non_empty_key(key, "--api-key"),
            None => read_key_file(&self.api_key_file),
        }
    }
}

/// A REST call of `--request call`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Call {
    pub method: String,
    pub path: String,
}

fn parse_call(value: &str) -> Result<Call, String> {
    match value.split_once(' ') {
        Some((method, path)) if path.starts_with('/') && reqwest::Method::from_bytes(method.as_bytes()).is_ok() => {
            Ok(Call { method: method.to_owned(), path: path.to_owned() })
        }
        _ => Err(format!("expected \"METHOD /path\", got {value:?}")),
    }
}

fn parse_rate(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(format!("expected a positive number of triggers per second, got {value:?}")),
    }
}

fn non_empty_key(key: &str, source: &str) -> Result<String, String> {
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("the API key from {source} is empty"));
    }
    Ok(key.to_owned())
}

fn read_key_file(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("no --api-key or HERALD_API_KEY, and cannot read {}: {error}", path.display()))?;
    non_empty_key(text.lines().next().unwrap_or(""), &path.display().to_string())
}

/// Subscriber ids of trigger `n`: `recipients` consecutive ids (modulo `subscribers`), so that every
/// subscriber receives about as many triggers and the ids of one trigger are distinct.
pub fn recipients_of(n: u64, recipients: u32, subscribers: u64) -> Vec<String> {
    let first = n.wrapping_mul(u64::from(recipients));
    (0..u64::from(recipients)).map(|j| format!("loadgen-{}", first.wrapping_add(j) % subscribers)).collect()
}

/// Transaction id of trigger `n` in run `run_id`.
pub fn transaction_id(run_id: &str, n: u64) -> String {
    format!("lg-{run_id}-{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("loadgen").chain(args.iter().copied()))
    }

    #[test]
    fn defaults() {
        let args = parse(&[]).unwrap();
        assert_eq!(args.url, "http://127.0.0.1:3000");
        assert_eq!(args.protocol, Protocol::Rest);
        assert_eq!(args.request, RequestKind::Trigger);
        assert_eq!(
            (args.concurrency, args.triggers, args.subscribers, args.recipients_per_trigger),
            (64, 20_000, 1000, 1)
        );
        assert_eq!(args.rate, None);
        assert_eq!(args.workflow, "welcome");
        assert!(args.wait());
        assert_eq!(args.wait_timeout_secs, 120);
        assert_eq!(args.api_key_file, PathBuf::from(".herald/api-key"));
        assert!(!args.json);
    }

    #[test]
    fn explicit_options() {
        let args = parse(&[
            "--protocol",
            "grpc",
            "--rate",
            "2000",
            "--concurrency",
            "8",
            "--triggers",
            "10",
            "--recipients-per-trigger",
            "3",
            "--no-wait",
            "--json",
        ])
        .unwrap();
        assert_eq!(args.protocol, Protocol::Grpc);
        assert_eq!(args.rate, Some(2000.0));
        assert_eq!((args.concurrency, args.triggers, args.recipients_per_trigger), (8, 10, 3));
        assert!(!args.wait());
        assert!(args.json);
    }

    #[test]
    fn a_trigger_stream_takes_no_idempotency_keys() {
        let stream = parse(&["--protocol", "grpc-stream", "--grpc-connections", "4"]).unwrap();
        assert_eq!((stream.protocol, stream.grpc_connections), (Protocol::GrpcStream, 4));
        assert!(stream.validate().is_ok());
        let keyed = parse(&["--protocol", "grpc-stream", "--idempotency-keys"]).unwrap();
        assert!(keyed.validate().unwrap_err().contains("takes none"));
    }

    #[test]
    fn authentication_probes_are_rest_requests_that_wait_for_no_message() {
        let read = parse(&["--request", "read"]).unwrap();
        assert_eq!(read.request, RequestKind::Read);
        assert!(read.validate().is_ok());
        assert!(!read.wait());
        let grpc = parse(&["--request", "unauthenticated", "--protocol", "grpc"]).unwrap();
        assert!(grpc.validate().unwrap_err().contains("--protocol rest"));
    }

    #[test]
    fn a_call_names_its_method_and_path() {
        let call = parse(&["--request", "call", "--call", "POST /v1/x/set-primary", "--body", "{}"]).unwrap();
        assert_eq!(call.call, Some(Call { method: "POST".into(), path: "/v1/x/set-primary".into() }));
        assert!(call.validate().is_ok());
        assert!(!call.wait());
        assert!(parse(&["--call", "POST"]).is_err());
        assert!(parse(&["--call", "POST v1/x"]).is_err());
        assert!(parse(&["--request", "call"]).unwrap().validate().unwrap_err().contains("--call"));
        assert!(parse(&["--call", "GET /v1/x"]).unwrap().validate().unwrap_err().contains("--request call"));
        let bad_body = parse(&["--request", "call", "--call", "GET /v1/x", "--body", "{"]).unwrap();
        assert!(bad_body.validate().unwrap_err().contains("not JSON"));
    }

    #[test]
    fn a_repeated_option_takes_the_last_value() {
        assert_eq!(parse(&["--concurrency", "64", "--concurrency", "8"]).unwrap().concurrency, 8);
    }

    #[test]
    fn wait_flags_last_one_wins() {
        assert!(!parse(&["--wait-for-messages", "--no-wait"]).unwrap().wait());
        assert!(parse(&["--no-wait", "--wait-for-messages"]).unwrap().wait());
    }

    #[test]
    fn rejects_bad_values() {
        for bad in [
            &["--rate", "0"][..],
            &["--rate", "-5"],
            &["--rate", "fast"],
            &["--concurrency", "0"],
            &["--triggers", "0"],
            &["--protocol", "soap"],
            &["--recipients-per-trigger", "1001"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
        let too_many_recipients = parse(&["--subscribers", "2", "--recipients-per-trigger", "3"]).unwrap();
        assert!(too_many_recipients.validate().is_err());
    }

    #[test]
    fn api_key_from_option_or_file() {
        let args = parse(&["--api-key", " key-1 \n"]).unwrap();
        assert_eq!(args.resolve_api_key().unwrap(), "key-1");

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("api-key");
        std::fs::write(&file, "key-2\n").unwrap();
        let mut args = parse(&["--api-key-file", file.to_str().unwrap()]).unwrap();
        args.api_key = None; // HERALD_API_KEY may be set where the tests run
        assert_eq!(args.resolve_api_key().unwrap(), "key-2");

        args.api_key_file = dir.path().join("missing");
        assert!(args.resolve_api_key().unwrap_err().contains("cannot read"));
    }

    #[test]
    fn recipients_cycle_through_distinct_subscribers() {
        assert_eq!(recipients_of(0, 1, 1000), ["loadgen-0"]);
        assert_eq!(recipients_of(1234, 1, 1000), ["loadgen-234"]);
        assert_eq!(recipients_of(1, 3, 4), ["loadgen-3", "loadgen-0", "loadgen-1"]);
        assert_eq!(transaction_id("ab12", 7), "lg-ab12-7");
    }
}
