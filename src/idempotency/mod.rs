//! `Idempotency-Key` (REST) and the `idempotency-key` metadata (gRPC, the same HTTP/2 header): a
//! retried POST, PUT, PATCH or DELETE runs once. One middleware serves both transports, after
//! authentication (keys are scoped to the caller's environment, and an inbox caller's to its subscriber):
//!
//! - the first request with a key runs, and its answer (status, headers, body, and gRPC trailers) is
//!   stored byte for byte;
//! - the same request again within [`TIME_TO_LIVE`] gets that answer with `Idempotency-Replay: true`
//!   and runs nothing; while the first is still running it gets a 409; another request with the same
//!   key gets a 422; a key over [`MAX_KEY_CHARS`] is a 400;
//! - a server error (5xx, or a gRPC status a client retries) is not stored: a retry runs again.
//!
//! A keyed request runs in one transaction with the storing of its answer (`crate::db::request`): the
//! key is held by an advisory lock of that transaction, the request's writes (a trigger included: it
//! leaves the group commit for this transaction) happen in a savepoint, and the answer is written
//! before the one commit. A crash at any point therefore loses the work and the key together, and the
//! retry runs afresh; there is never work without its key, a key answered for work not done, or a key
//! left "in progress". The request runs in a task of its own, so a client that hangs up does not cut
//! it short either.
//!
//! A single trigger is the exception, for speed: it is stored by the trigger group commit, and its key
//! with it (`crate::engine::trigger::keyed`). Its batch takes the key's lock and stores the trigger's
//! outcome in the key's row, and nothing more: a retry is answered from that outcome by the same
//! handler, marked as a replay, which gives the same bytes as the first answer. (Adding the rendered
//! answer to the row as well cost PostgreSQL a second write of every keyed trigger's row, a third of
//! what the key cost; docs/performance.md.)

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::TimeDelta;
use futures_util::FutureExt;
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::panic::AssertUnwindSafe;
use tracing::Instrument;

use crate::app::{AppState, MAX_REQUEST_BYTES};
use crate::db::request::RequestTransaction;
use crate::domain::idempotency_keys::{self as store, Claim, KeyUse, StoredAnswer};
use crate::domain::inbox::InboxSubscriber;
use crate::domain::tenancy::Tenant;
use crate::engine::trigger::keyed::{self, KeyVerdict};
use crate::engine::trigger::TriggerOutcome;
use crate::error::render::{is_grpc, render_error, Rendered};
use crate::error::AppError;

/// The request header (gRPC metadata keys are the same header, lowercase on the wire).
pub const KEY_HEADER: HeaderName = HeaderName::from_static("idempotency-key");
/// Set on a replayed answer (the reference service's name).
pub const REPLAY_HEADER: HeaderName = HeaderName::from_static("idempotency-replay");
/// Longest key accepted.
pub const MAX_KEY_CHARS: usize = 255;
/// How long an answer is replayed.
pub const TIME_TO_LIVE: TimeDelta = TimeDelta::hours(24);
/// gRPC codes a client retries: like a 5xx, their answer is not stored.
const RETRIED_GRPC_CODES: [tonic::Code; 8] = [
    tonic::Code::Cancelled,
    tonic::Code::Unknown,
    tonic::Code::DeadlineExceeded,
    tonic::Code::Aborted,
    tonic::Code::Unimplemented,
    tonic::Code::Internal,
    tonic::Code::Unavailable,
    tonic::Code::DataLoss,
];
/// gRPC carries every call as a POST: the methods named so are reads, which run without a key's
/// promise as a REST GET does (a server stream, which never ends, could not even have its answer
/// stored).
const GRPC_READ_PREFIXES: [&str; 5] = ["Get", "List", "Count", "Search", "Stream"];
/// The keyed requests whose key is stored by the trigger group commit instead of a transaction of
/// their own: a single trigger, over REST and gRPC.
const GROUP_COMMITTED_PATHS: [&str; 2] = ["/v1/events/trigger", "/herald.v1.EventsService/TriggerEvent"];
/// The trigger stream: its answer is a stream, which could not be stored and replayed, and each of its
/// triggers has a transactionId that a resent trigger is refused by.
const TRIGGER_STREAM_PATH: &str = "/herald.v1.EventsService/StreamTriggerEvents";
/// Headers an answer gets again on every delivery, not stored with it.
const UNSTORED_HEADERS: [HeaderName; 3] =
    [http::header::CONTENT_LENGTH, http::header::TRANSFER_ENCODING, http::header::DATE];

/// The middleware (after authentication, before the handler).
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let tenant = request.extensions().get::<Tenant>().copied();
    let (Some(key), Some(tenant)) = (request.headers().get(&KEY_HEADER).cloned(), tenant) else {
        return next.run(request).await;
    };
    // Only writes carry a key's promise; any other method (a read, or one the route lacks and answers
    // 405 for, such as TRACE) runs as it is.
    if !matches!(*request.method(), Method::POST | Method::PUT | Method::PATCH | Method::DELETE) {
        return next.run(request).await;
    }
    let grpc = is_grpc(&request);
    if grpc && request.uri().path() == TRIGGER_STREAM_PATH {
        let error = "StreamTriggerEvents takes no idempotency-key: each trigger's transactionId is its key";
        return tonic::Status::from(AppError::BadRequest(error.into())).into_http();
    }
    if grpc && is_grpc_read(request.uri().path()) {
        return next.run(request).await;
    }
    match run_once(state, tenant, &key, request, next).await {
        Ok(response) => response,
        Err(error) if grpc => tonic::Status::from(error).into_http(),
        Err(error) => error.into_response(),
    }
}

async fn run_once(
    state: AppState,
    tenant: Tenant,
    key: &HeaderValue,
    request: Request,
    next: Next,
) -> Result<Response, AppError> {
    let key = valid_key(key)?;
    // The subscribers of an environment share its keys otherwise: one's retry could replay another's
    // answer (two `POST /v1/inbox/notifications/read` with one key and the same body).
    let key = match request.extensions().get::<InboxSubscriber>() {
        Some(subscriber) => format!("inbox:{}:{key}", subscriber.id),
        None => key,
    };
    let grpc = is_grpc(&request);
    let (parts, body) = request.into_parts();
    // A gRPC message is framed (5 bytes) and the frame is not counted by its own limit.
    let body = axum::body::to_bytes(body, MAX_REQUEST_BYTES + 5)
        .await
        .map_err(|_| AppError::PayloadTooLarge("Request body is too large".into()))?;
    let request_hash = request_hash(&parts.method, parts.uri.path_and_query().map_or("", |path| path.as_str()), &body);
    let now = state.engine.clock.now();
    let used = KeyUse { environment_id: tenant.environment_id, key, request_hash, now, expires_at: now + TIME_TO_LIVE };
    if GROUP_COMMITTED_PATHS.contains(&parts.uri.path()) {
        return run_trigger(state, used, grpc, parts, body, next).await;
    }
    run_in_transaction(state, used, grpc, Request::from_parts(parts, Body::from(body)), next).await
}

/// A keyed request in a transaction of its own: the key is claimed first, the request runs in a
/// savepoint, and its answer is stored before the one commit.
async fn run_in_transaction(
    state: AppState,
    used: KeyUse,
    grpc: bool,
    request: Request,
    next: Next,
) -> Result<Response, AppError> {
    let transaction = RequestTransaction::begin(state.pool.get().await?).await?;
    // Bound first: a guard of the connection kept in the match's scrutinee would outlive the claim
    // and make the rollback below wait for itself.
    let claim = store::claim(&mut *transaction.connection().await, &used).await;
    match claim {
        Ok(Claim::Fresh) => {}
        claim => {
            transaction.rollback().await;
            return answer_claim(claim?, &used);
        }
    }
    // In the request's span, so its log lines keep the request id and environment.
    let running = tokio::spawn(
        async move {
            let ran = AssertUnwindSafe(transaction.run(run_rendered(next, request, grpc))).catch_unwind().await;
            match ran {
                Ok(Ok(response)) => record(transaction, &used, grpc, response, Writes::InSavepoint).await,
                Ok(Err(error)) => {
                    transaction.rollback().await;
                    Err(error)
                }
                // A panic rolls back at once: the connection must not go back to the pool holding
                // the key's lock and the request's row locks. The panic layer then answers 500.
                Err(panic) => {
                    transaction.rollback().await;
                    std::panic::resume_unwind(panic)
                }
            }
        }
        .in_current_span(),
    );
    match running.await {
        Ok(answer) => answer,
        Err(failure) => std::panic::resume_unwind(failure.into_panic()),
    }
}

/// A keyed single trigger: it runs at once, its batch claims the key and stores the trigger's outcome
/// in it, and the answer follows what the batch found. Nothing needs its own task: the batch stores
/// trigger and key together whether or not the client is still there, and a retry is answered from the
/// stored outcome.
async fn run_trigger(
    state: AppState,
    used: KeyUse,
    grpc: bool,
    parts: http::request::Parts,
    body: Bytes,
    next: Next,
) -> Result<Response, AppError> {
    let request = Request::from_parts(parts.clone(), Body::from(body.clone()));
    let (response, verdict) = keyed::run(used.clone(), None, run_rendered(next.clone(), request, grpc)).await;
    match verdict {
        Some(KeyVerdict::Taken(claim)) => answer_claim(claim, &used),
        Some(KeyVerdict::Stored) => Ok(response),
        Some(KeyVerdict::Reused) => {
            let mut response = response;
            response.headers_mut().insert(REPLAY_HEADER, HeaderValue::from_static("true"));
            Ok(response)
        }
        // Refused before anything was stored (a 4xx, or an outcome such as an inactive workflow), or
        // its batch failed: its answer is stored under the key as any other request's would be, unless
        // the key turns out to hold something already.
        None => {
            let transaction = RequestTransaction::begin(state.pool.get().await?).await?;
            let claim = store::claim(&mut *transaction.connection().await, &used).await;
            match claim {
                Ok(Claim::Fresh) => record(transaction, &used, grpc, response, Writes::None).await,
                Ok(Claim::Unanswered(outcome)) => {
                    // The same trigger was stored by an earlier request whose answer was lost, and
                    // this one's checks refused it on a later state: answer the stored outcome.
                    let outcome = match TriggerOutcome::from_stored(outcome) {
                        Ok(outcome) => outcome,
                        Err(error) => {
                            transaction.rollback().await;
                            return Err(error);
                        }
                    };
                    let request = Request::from_parts(parts, Body::from(body));
                    let (response, _) =
                        keyed::run(used.clone(), Some(outcome), run_rendered(next, request, grpc)).await;
                    let mut response = record(transaction, &used, grpc, response, Writes::None).await?;
                    response.headers_mut().insert(REPLAY_HEADER, HeaderValue::from_static("true"));
                    Ok(response)
                }
                claim => {
                    transaction.rollback().await;
                    answer_claim(claim?, &used)
                }
            }
        }
    }
}

/// The request's answer, its errors rendered in the contract's shape (REST).
async fn run_rendered(next: Next, request: Request, grpc: bool) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    if grpc {
        response
    } else {
        render_error(response, &method, &path)
    }
}

/// The answer to a request whose key holds something it cannot run with.
fn answer_claim(claim: Claim, used: &KeyUse) -> Result<Response, AppError> {
    match claim {
        Claim::Done(answer) => Ok(replay(answer)),
        Claim::InFlight => Err(AppError::Conflict(format!(
            "A request with Idempotency-Key {} is still in progress; retry once it has answered",
            used.key
        ))),
        Claim::Mismatch => Err(AppError::Unprocessable(format!(
            "Idempotency-Key {} was already used for another request (method, path or body differ)",
            used.key
        ))),
        Claim::Fresh | Claim::Unanswered(_) => {
            Err(AppError::internal(format!("Idempotency-Key {} was refused while free", used.key)))
        }
    }
}

/// Whether a gRPC path (`/package.Service/Method`) names a read.
fn is_grpc_read(path: &str) -> bool {
    let method = path.rsplit('/').next().unwrap_or_default();
    GRPC_READ_PREFIXES.iter().any(|prefix| method.starts_with(prefix))
}

/// The key as text: visible ASCII, 1 to [`MAX_KEY_CHARS`] characters.
fn valid_key(key: &HeaderValue) -> Result<String, AppError> {
    let text = key.to_str().map_err(|_| AppError::BadRequest("Idempotency-Key must be visible ASCII".into()))?;
    if text.is_empty() || text.len() > MAX_KEY_CHARS {
        return Err(AppError::BadRequest(format!("Idempotency-Key must be 1 to {MAX_KEY_CHARS} characters long")));
    }
    Ok(text.to_string())
}

/// SHA-256 of method, path with query, and body: what "the same request" means.
fn request_hash(method: &Method, path_and_query: &str, body: &[u8]) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(method.as_str());
    hasher.update([0]);
    hasher.update(path_and_query);
    hasher.update([0]);
    hasher.update(body);
    hasher.finalize().to_vec()
}

/// Where the request's writes are in its transaction.
enum Writes {
    /// In a savepoint, kept or undone with the answer.
    InSavepoint,
    /// It wrote nothing there.
    None,
}

/// Ends the request's transaction as its answer says, and hands the answer on:
/// - a server error (or a gRPC status clients retry) rolls back and stores nothing: a retry runs again;
/// - a refusal (4xx, or any other gRPC error) changed nothing: its writes (if any) are undone and the
///   answer alone is stored;
/// - a success is stored with its writes, in one commit.
async fn record(
    transaction: RequestTransaction,
    used: &KeyUse,
    grpc: bool,
    response: Response,
    writes: Writes,
) -> Result<Response, AppError> {
    let (parts, body, trailers) = match collect(response).await {
        Ok(collected) => collected,
        Err(error) => {
            transaction.rollback().await;
            return Err(error);
        }
    };
    if retried_by_clients(parts.status, &parts.headers, trailers.as_ref(), grpc) {
        transaction.rollback().await;
        return Ok(Response::from_parts(parts, answer_body(body, trailers)));
    }
    let answer = stored_answer(&parts, &body, trailers.as_ref());
    let refused = refused(parts.status, &parts.headers, trailers.as_ref(), grpc);
    commit_with_answer(transaction, used, &answer, writes, refused).await?;
    Ok(Response::from_parts(parts, answer_body(body, trailers)))
}

/// An answer read whole: its head, body and trailers.
async fn collect(response: Response) -> Result<(http::response::Parts, Bytes, Option<HeaderMap>), AppError> {
    let (parts, body) = response.into_parts();
    let collected =
        body.collect().await.map_err(|error| AppError::internal(format!("reading an answer to store it: {error}")))?;
    let trailers = collected.trailers().cloned();
    Ok((parts, collected.to_bytes(), trailers))
}

fn stored_answer(parts: &http::response::Parts, body: &Bytes, trailers: Option<&HeaderMap>) -> StoredAnswer {
    StoredAnswer {
        status: parts.status.as_u16(),
        headers: header_pairs(&parts.headers),
        body: body.to_vec(),
        trailers: trailers.map(header_pairs),
    }
}

async fn commit_with_answer(
    transaction: RequestTransaction,
    used: &KeyUse,
    answer: &StoredAnswer,
    writes: Writes,
    refused: bool,
) -> Result<(), AppError> {
    let saved = async {
        match writes {
            Writes::InSavepoint if refused => transaction.undo_savepoint().await?,
            Writes::InSavepoint => transaction.keep_savepoint().await?,
            Writes::None => {}
        }
        store::save(&mut *transaction.connection().await, used, answer).await
    }
    .await;
    if let Err(error) = saved {
        transaction.rollback().await;
        return Err(error);
    }
    transaction.commit().await.map_err(|error| match error {
        AppError::Unavailable(cause) => {
            tracing::warn!(%cause, key = used.key, "database connection lost while committing a keyed request");
            AppError::OutcomeUnknown(format!(
                "The database connection was lost while this request was being committed: whether it took \
                 effect is unknown. Retry with the same Idempotency-Key ({}): its answer is replayed if it \
                 did, and it runs if it did not",
                used.key
            ))
        }
        other => other,
    })
}

/// An answer that changed nothing: a 4xx, or a gRPC error (the codes clients retry are not stored at
/// all).
fn refused(status: StatusCode, headers: &HeaderMap, trailers: Option<&HeaderMap>, grpc: bool) -> bool {
    if !grpc {
        return status.is_client_error();
    }
    grpc_code(headers, trailers).is_some_and(|code| code != tonic::Code::Ok)
}

/// A 5xx, or a gRPC status clients retry (in the trailers, or the headers of a trailers-only answer).
fn retried_by_clients(status: StatusCode, headers: &HeaderMap, trailers: Option<&HeaderMap>, grpc: bool) -> bool {
    if status.is_server_error() {
        return true;
    }
    if !grpc {
        return false;
    }
    grpc_code(headers, trailers).is_none_or(|code| RETRIED_GRPC_CODES.contains(&code))
}

/// The gRPC status of an answer: in its trailers, or the headers of a trailers-only answer.
fn grpc_code(headers: &HeaderMap, trailers: Option<&HeaderMap>) -> Option<tonic::Code> {
    let grpc_status = trailers.and_then(|trailers| trailers.get("grpc-status")).or_else(|| headers.get("grpc-status"));
    let code = grpc_status.and_then(|value| value.to_str().ok()).and_then(|value| value.parse::<i32>().ok());
    code.map(tonic::Code::from)
}

/// The replay of a stored answer.
fn replay(answer: StoredAnswer) -> Response {
    let trailers = answer.trailers.as_ref().map(header_map);
    let mut response = Response::new(answer_body(Bytes::from(answer.body), trailers));
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    *response.headers_mut() = header_map(&answer.headers);
    response.headers_mut().insert(REPLAY_HEADER, HeaderValue::from_static("true"));
    // Its error body (if any) is the stored one: the REST error layer leaves it as it is.
    response.extensions_mut().insert(Rendered);
    response
}

fn answer_body(body: Bytes, trailers: Option<HeaderMap>) -> Body {
    match trailers {
        Some(trailers) => Body::new(Full::new(body).with_trailers(async move { Some(Ok(trailers)) })),
        None => Body::from(body),
    }
}

fn header_pairs(headers: &HeaderMap) -> Value {
    let pairs = headers
        .iter()
        .filter(|(name, _)| !UNSTORED_HEADERS.contains(name))
        .filter_map(|(name, value)| Some(Value::from(vec![name.as_str(), value.to_str().ok()?])))
        .collect();
    Value::Array(pairs)
}

fn header_map(pairs: &Value) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for pair in pairs.as_array().into_iter().flatten() {
        let (Some(name), Some(value)) = (pair[0].as_str(), pair[1].as_str()) else { continue };
        if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            headers.append(name, value);
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_request_hashes_the_same_and_any_part_changes_it() {
        let base = request_hash(&Method::POST, "/v1/events/trigger", b"{}");
        assert_eq!(base, request_hash(&Method::POST, "/v1/events/trigger", b"{}"));
        assert_ne!(base, request_hash(&Method::PUT, "/v1/events/trigger", b"{}"));
        assert_ne!(base, request_hash(&Method::POST, "/v1/events/trigger?x=1", b"{}"));
        assert_ne!(base, request_hash(&Method::POST, "/v1/events/trigger", b"{ }"));
        // The separators keep path and body apart.
        assert_ne!(request_hash(&Method::POST, "/a", b"b"), request_hash(&Method::POST, "/ab", b""));
    }

    #[test]
    fn headers_round_trip_through_their_stored_form() {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.append("herald-canceled-job-count", HeaderValue::from_static("2"));
        headers.insert(http::header::CONTENT_LENGTH, HeaderValue::from_static("12"));
        let restored = header_map(&header_pairs(&headers));
        assert_eq!(restored.len(), 2);
        assert_eq!(restored["content-type"], "application/json");
        assert_eq!(restored["herald-canceled-job-count"], "2");
    }

    #[test]
    fn server_errors_and_retried_grpc_codes_are_not_stored() {
        let empty = HeaderMap::new();
        assert!(retried_by_clients(StatusCode::SERVICE_UNAVAILABLE, &empty, None, false));
        assert!(!retried_by_clients(StatusCode::UNPROCESSABLE_ENTITY, &empty, None, false));
        let trailers = |code: &'static str| {
            HeaderMap::from_iter([(HeaderName::from_static("grpc-status"), HeaderValue::from_static(code))])
        };
        assert!(!retried_by_clients(StatusCode::OK, &empty, Some(&trailers("0")), true));
        assert!(!retried_by_clients(StatusCode::OK, &empty, Some(&trailers("5")), true));
        assert!(retried_by_clients(StatusCode::OK, &empty, Some(&trailers("14")), true));
        assert!(retried_by_clients(StatusCode::OK, &trailers("13"), None, true));
    }

    #[test]
    fn the_group_committed_paths_are_the_single_trigger_routes() {
        use crate::proto::herald::v1::events_service_server::SERVICE_NAME;
        let grpc_path = format!("/{SERVICE_NAME}/TriggerEvent");
        assert!(GROUP_COMMITTED_PATHS.contains(&grpc_path.as_str()));
        assert!(GROUP_COMMITTED_PATHS.contains(&"/v1/events/trigger"));
    }

    #[test]
    fn grpc_reads_are_told_by_their_method_names() {
        assert!(is_grpc_read("/herald.v1.InboxService/StreamInboxEvents"));
        assert!(is_grpc_read("/herald.v1.SubscribersService/GetSubscriberPreferences"));
        assert!(is_grpc_read("/herald.v1.InboxService/CountInboxNotifications"));
        assert!(!is_grpc_read("/herald.v1.SubscribersService/UpdateSubscriberPreferences"));
        assert!(!is_grpc_read("/herald.v1.EventsService/TriggerEvent"));
        assert!(!is_grpc_read("/herald.v1.InboxService/CreateInboxSession"));
    }

    #[test]
    fn keys_are_bounded_and_visible_ascii() {
        assert!(valid_key(&HeaderValue::from_static("k")).is_ok());
        assert!(valid_key(&HeaderValue::from_str(&"k".repeat(MAX_KEY_CHARS)).unwrap()).is_ok());
        assert!(matches!(
            valid_key(&HeaderValue::from_str(&"k".repeat(MAX_KEY_CHARS + 1)).unwrap()),
            Err(AppError::BadRequest(_))
        ));
        assert!(matches!(valid_key(&HeaderValue::from_static("")), Err(AppError::BadRequest(_))));
    }
}
