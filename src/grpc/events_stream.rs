//! `StreamTriggerEvents`, the transport side: its triggers run as [`trigger::stream`] runs them. Here each
//! request is checked against the API's bounds, paced by the environment's trigger rate limit, and the
//! key is resolved again once a [`KEY_CHECK_INTERVAL`]. Reading stops at the first error of the stream
//! itself (a frame that is no message, a key that no longer resolves) or when the server drains; that
//! error ends the answers, after every trigger read before it is answered.

use std::future::ready;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{stream, Stream, StreamExt};
use http::HeaderValue;
use tonic::{Status, Streaming};

use super::events::entry_answer;
use crate::app::AppState;
use crate::auth::resolve_tenant;
use crate::domain::limits::check_bounds;
use crate::domain::tenancy::Tenant;
use crate::engine::trigger::{self, TriggerRequest};
use crate::error::AppResult;
use crate::proto::herald::v1 as pb;
use crate::rate_limit::RouteClass;

/// The answers of a trigger stream, as tonic sends them.
pub type Answers = Pin<Box<dyn Stream<Item = Result<pb::StreamTriggerEventsResponse, Status>> + Send>>;

/// How often a stream resolves its key again (through the key cache, whose time to live bounds how long
/// a removed key keeps working, for a stream as for calls).
const KEY_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// Why reading a stream stopped early, once it has: the status its answers end with.
type Ending = Arc<Mutex<Option<Status>>>;

/// The answers to `incoming`, a stream opened with `authorization` in `tenant`'s environment.
pub fn answer_stream(
    state: AppState,
    tenant: Tenant,
    authorization: Option<HeaderValue>,
    incoming: Streaming<pb::StreamTriggerEventsRequest>,
) -> Answers {
    let ending = Ending::default();
    let requests = read_requests(state.clone(), tenant, authorization, incoming, ending.clone());
    let answers = trigger::stream::trigger_stream(state.pool.clone(), state.engine.clone(), tenant, requests)
        .map(|outcome| entry_answer(outcome).map(|result| pb::StreamTriggerEventsResponse { result: Some(result) }));
    let end = stream::once(async move { ending.lock().expect("never poisoned").take() })
        .filter_map(|ending| ready(ending.map(Err)));
    Box::pin(answers.map(|answer| answer.map_err(Status::from)).chain(end))
}

/// The triggers of `incoming`, each paced and within bounds (or refused alone), until the stream ends,
/// fails or the server drains; a failure or the drain is left in `ending`.
fn read_requests(
    state: AppState,
    tenant: Tenant,
    authorization: Option<HeaderValue>,
    incoming: Streaming<pb::StreamTriggerEventsRequest>,
    ending: Ending,
) -> impl Stream<Item = AppResult<TriggerRequest>> + Send + 'static {
    let mut draining = state.draining.clone();
    let drained = {
        let ending = ending.clone();
        async move {
            let _ = draining.wait_for(|draining| *draining).await;
            let status = Status::unavailable("The server is shutting down: send the unanswered triggers again");
            *ending.lock().expect("never poisoned") = Some(status);
        }
    };
    let mut key_checked = Instant::now();
    incoming
        .take_until(drained)
        .then(move |message| {
            let check_key = key_checked.elapsed() >= KEY_CHECK_INTERVAL;
            if check_key {
                key_checked = Instant::now();
            }
            let (state, authorization) = (state.clone(), authorization.clone());
            async move {
                let event = message?.event.unwrap_or_default();
                if check_key {
                    resolve_tenant(&state, authorization).await?;
                }
                state.rate_limits.pace(tenant.environment_id, RouteClass::Trigger).await;
                Ok::<_, Status>(check_bounds(&event).map(|()| event.into()))
            }
        })
        .scan(ending, |ending, read| {
            ready(match read {
                Ok(request) => Some(request),
                Err(status) => {
                    *ending.lock().expect("never poisoned") = Some(status);
                    None
                }
            })
        })
}
