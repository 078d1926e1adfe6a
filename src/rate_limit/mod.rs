//! Rate limits: a token bucket per environment and per kind of request ([`RouteClass`]), refilled at
//! the configured rate ([`RateLimitSettings`]) with a one-second burst. Several API processes on one
//! database each hold local buckets at `limit / N`, N being the live API processes counted by a
//! heartbeat ([`processes`]): no database round trip per request.
//!
//! Every limited answer carries `X-RateLimit-Limit` (the environment's rate for this kind of request,
//! per second), `X-RateLimit-Remaining` (requests left in the current burst) and `X-RateLimit-Reset`
//! (seconds until the burst is whole again); a request over the limit is a 429 with `Retry-After`
//! (gRPC: RESOURCE_EXHAUSTED with a `google.rpc.RetryInfo` detail). A trigger stream (gRPC
//! `StreamTriggerEvents`) is paced instead: each of its triggers waits for its token ([`RateLimits::pace`]).

mod bucket;
pub mod processes;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use prost::Message;
use uuid::Uuid;

use crate::app::{AppState, MAX_REQUEST_BYTES};
use crate::config::RateLimitSettings;
use crate::domain::tenancy::Tenant;
use crate::error::render::is_grpc;
use crate::error::AppError;
use crate::proto::herald::v1 as pb;
use bucket::{Bucket, Verdict};

const LIMIT_HEADER: HeaderName = HeaderName::from_static("x-ratelimit-limit");
const REMAINING_HEADER: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
const RESET_HEADER: HeaderName = HeaderName::from_static("x-ratelimit-reset");
/// Idle (full) buckets are forgotten once this many are held.
const MAX_BUCKETS: usize = 10_000;

/// The kinds of request limited separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteClass {
    Trigger,
    /// Counts its events.
    BulkTrigger,
    Write,
    Read,
}

impl RouteClass {
    /// The class of a request by transport, method and path.
    pub fn of(method: &Method, path: &str, grpc: bool) -> Self {
        if grpc {
            return match path.rsplit('/').next().unwrap_or_default() {
                "TriggerEvent" => RouteClass::Trigger,
                "TriggerEventBulk" => RouteClass::BulkTrigger,
                name if ["Get", "List", "Search", "Count"].iter().any(|verb| name.starts_with(verb)) => {
                    RouteClass::Read
                }
                _ => RouteClass::Write,
            };
        }
        match (method, path) {
            (&Method::POST, "/v1/events/trigger") => RouteClass::Trigger,
            (&Method::POST, "/v1/events/trigger/bulk") => RouteClass::BulkTrigger,
            (&Method::GET | &Method::HEAD, _) => RouteClass::Read,
            _ => RouteClass::Write,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            RouteClass::Trigger => "trigger",
            RouteClass::BulkTrigger => "bulk trigger event",
            RouteClass::Write => "write",
            RouteClass::Read => "read",
        }
    }
}

/// The buckets of this process.
#[derive(Clone)]
pub struct RateLimits {
    settings: RateLimitSettings,
    /// Live API processes on the database (kept by [`processes::heartbeat`]); at least 1.
    processes: Arc<AtomicU32>,
    buckets: Arc<Mutex<HashMap<(Uuid, RouteClass), Bucket>>>,
}

impl RateLimits {
    pub fn new(settings: RateLimitSettings) -> Self {
        Self { settings, processes: Arc::new(AtomicU32::new(1)), buckets: Default::default() }
    }

    /// The live-process count the heartbeat keeps.
    pub fn processes(&self) -> Arc<AtomicU32> {
        self.processes.clone()
    }

    /// The environment-wide rate of `class`, None when it is not limited.
    fn limit(&self, class: RouteClass) -> Option<u32> {
        let limit = match class {
            RouteClass::Trigger | RouteClass::BulkTrigger => self.settings.triggers,
            RouteClass::Write => self.settings.writes,
            RouteClass::Read => self.settings.reads,
        };
        (limit > 0).then_some(limit)
    }

    /// Takes `cost` tokens from this process's bucket of (environment, class).
    fn take(&self, environment_id: Uuid, class: RouteClass, cost: u32, limit: u32) -> Verdict {
        let processes = self.processes.load(Ordering::Relaxed).max(1);
        let rate = f64::from(limit) / f64::from(processes);
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("never poisoned");
        if buckets.len() >= MAX_BUCKETS {
            buckets.retain(|(_, class), bucket| {
                self.limit(*class).is_some_and(|limit| !bucket.is_full(f64::from(limit) / f64::from(processes), now))
            });
        }
        let bucket = buckets.entry((environment_id, class)).or_insert_with(|| Bucket::full(rate, now));
        let mut verdict = bucket.take(rate, f64::from(cost), now);
        // This process holds 1/N of the environment's tokens: report the environment's.
        verdict.remaining = (verdict.remaining * u64::from(processes)).min(u64::from(limit));
        verdict
    }

    /// Waits until `environment_id` may make one more request of `class`, then takes its token: a
    /// stream is paced by the limit where a call is refused by it.
    pub async fn pace(&self, environment_id: Uuid, class: RouteClass) {
        let Some(limit) = self.limit(class) else {
            return;
        };
        loop {
            let verdict = self.take(environment_id, class, 1, limit);
            if verdict.allowed {
                return;
            }
            tokio::time::sleep(verdict.retry_after).await;
        }
    }
}

/// The middleware (after authentication): answers 429 over the limit, adds the headers to every answer.
pub async fn limit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let Some(tenant) = request.extensions().get::<Tenant>().copied() else {
        return next.run(request).await;
    };
    let grpc = is_grpc(&request);
    let class = RouteClass::of(request.method(), request.uri().path(), grpc);
    let Some(limit) = state.rate_limits.limit(class) else {
        return next.run(request).await;
    };
    let (request, cost) = match class {
        RouteClass::BulkTrigger => match bulk_events(request, grpc).await {
            Ok(counted) => counted,
            Err(error) => return refuse(error, grpc),
        },
        _ => (request, 1),
    };
    let verdict = state.rate_limits.take(tenant.environment_id, class, cost, limit);
    let mut response = if verdict.allowed {
        next.run(request).await
    } else {
        let message = format!(
            "Too many requests: this environment may make {limit} {}s a second; retry in {} ms",
            class.describe(),
            verdict.retry_after.as_millis().max(1)
        );
        refuse(AppError::RateLimited { message, retry_after: verdict.retry_after }, grpc)
    };
    add_headers(response.headers_mut(), limit, &verdict);
    response
}

fn refuse(error: AppError, grpc: bool) -> Response {
    if grpc {
        tonic::Status::from(error).into_http()
    } else {
        error.into_response()
    }
}

fn add_headers(headers: &mut HeaderMap, limit: u32, verdict: &Verdict) {
    headers.insert(LIMIT_HEADER, HeaderValue::from(limit));
    headers.insert(REMAINING_HEADER, HeaderValue::from(verdict.remaining));
    headers.insert(RESET_HEADER, HeaderValue::from(whole_seconds(verdict.reset)));
}

/// Rounded up: a client waiting this long finds what was promised.
fn whole_seconds(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

/// The number of events of a bulk trigger (at least 1: a body the handler will refuse costs one
/// request), with the request rebuilt around the body read to count them.
async fn bulk_events(request: Request, grpc: bool) -> Result<(Request, u32), AppError> {
    let (parts, body) = request.into_parts();
    // A gRPC message is framed (5 bytes) and the frame is not counted by its own limit.
    let bytes = axum::body::to_bytes(body, MAX_REQUEST_BYTES + 5)
        .await
        .map_err(|_| AppError::PayloadTooLarge("Request body is too large".into()))?;
    let events = if grpc {
        bytes
            .get(5..)
            .and_then(|message| pb::TriggerEventBulkRequest::decode(message).ok())
            .map(|bulk| bulk.events.len())
    } else {
        serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|body| body.get("events").and_then(|events| events.as_array()).map(Vec::len))
    };
    let cost = u32::try_from(events.unwrap_or(1).max(1)).unwrap_or(u32::MAX);
    Ok((Request::from_parts(parts, Body::from(bytes)), cost))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_fall_into_their_class_by_transport_method_and_path() {
        let rest = |method: Method, path: &str| RouteClass::of(&method, path, false);
        assert_eq!(rest(Method::POST, "/v1/events/trigger"), RouteClass::Trigger);
        assert_eq!(rest(Method::POST, "/v1/events/trigger/bulk"), RouteClass::BulkTrigger);
        assert_eq!(rest(Method::DELETE, "/v1/events/trigger/tx-1"), RouteClass::Write);
        assert_eq!(rest(Method::GET, "/v2/subscribers"), RouteClass::Read);
        let grpc = |path: &str| RouteClass::of(&Method::POST, path, true);
        assert_eq!(grpc("/herald.v1.EventsService/TriggerEvent"), RouteClass::Trigger);
        assert_eq!(grpc("/herald.v1.EventsService/TriggerEventBulk"), RouteClass::BulkTrigger);
        assert_eq!(grpc("/herald.v1.SubscribersService/SearchSubscribers"), RouteClass::Read);
        assert_eq!(grpc("/herald.v1.SubscribersService/UpdateSubscriber"), RouteClass::Write);
    }

    #[test]
    fn each_process_takes_its_share_and_reports_the_environments_remaining() {
        let limits = RateLimits::new(RateLimitSettings { triggers: 10, writes: 0, reads: 5 });
        assert_eq!(limits.limit(RouteClass::Write), None);
        limits.processes.store(2, Ordering::Relaxed);
        let environment = Uuid::now_v7();
        let verdicts: Vec<Verdict> = (0..6).map(|_| limits.take(environment, RouteClass::Trigger, 1, 10)).collect();
        assert_eq!(verdicts.iter().filter(|verdict| verdict.allowed).count(), 5);
        assert_eq!(verdicts[0].remaining, 8);
        // Buckets are per environment and per class.
        assert!(limits.take(Uuid::now_v7(), RouteClass::Trigger, 1, 10).allowed);
        assert!(limits.take(environment, RouteClass::Read, 1, 5).allowed);
    }
}
