//! A stream of triggers (gRPC `StreamTriggerEvents`): each runs as [`trigger_event`] does, up to
//! [`MOST_UNANSWERED`] at a time, and is answered in stream order. Triggers that give the same
//! transactionId run one after another in stream order, as in a bulk trigger ([`super::trigger_bulk`]),
//! so the first one sent is the one stored.
//!
//! A stream saves what a call per trigger costs both ends over HTTP/2 (a stream, its headers and
//! trailers): the triggers themselves are stored by the same group commit as every other.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures_util::future::{FutureExt, Shared};
use futures_util::{Stream, StreamExt};
use tokio::sync::oneshot;

use super::{trigger_event, TriggerOutcome, TriggerRequest};
use crate::db::DbPool;
use crate::domain::tenancy::Tenant;
use crate::engine::EngineContext;
use crate::error::AppResult;

/// Most triggers of one stream running at once. The group commit fills a batch from every trigger
/// waiting when it flushes; a stream that kept fewer unanswered than a full batch holds (about 200 at
/// 10,000 triggers/s) would cap its own rate at a batch per flush. Past this, the server stops reading
/// the stream, and HTTP/2 flow control holds the sender back.
pub const MOST_UNANSWERED: usize = 1_000;

/// Runs each request of `requests` as a trigger of `tenant`'s environment, answering each in order. A
/// request that is already an error (refused before it could run) is answered with that error.
pub fn trigger_stream(
    pool: DbPool,
    engine: EngineContext,
    tenant: Tenant,
    requests: impl Stream<Item = AppResult<TriggerRequest>> + Send + 'static,
) -> impl Stream<Item = AppResult<TriggerOutcome>> + Send + 'static {
    let mut turns = Turns::default();
    requests
        .map(move |request| {
            let turn =
                request.as_ref().ok().and_then(|request| request.transaction_id.as_deref()).map(|id| turns.take(id));
            let (pool, engine) = (pool.clone(), engine.clone());
            async move {
                let request = request?;
                // Held until this trigger has run (or is dropped): the next one with its transactionId waits.
                let _turn = match turn {
                    Some(mut turn) => {
                        if let Some(previous) = turn.previous.take() {
                            let _ = previous.await;
                        }
                        Some(turn)
                    }
                    None => None,
                };
                trigger_event(&pool, &engine, tenant, request).await
            }
        })
        .buffered(MOST_UNANSWERED)
}

/// Ends (with an error, as no value is ever sent) when its trigger's [`Turn`] is dropped.
type Finished = Shared<oneshot::Receiver<()>>;

/// The last unanswered trigger of each transactionId of a stream: its number on the stream, and its end.
type LastTurns = Arc<Mutex<HashMap<String, (u64, Finished)>>>;

/// A trigger's place among those of its stream with the same transactionId. Dropping it (the trigger
/// has run, or was dropped) lets the next one run, and forgets the transactionId if no later trigger
/// gave it: the map holds only unanswered transactionIds, however long the stream.
struct Turn {
    /// The previous one's end, if one is unanswered.
    previous: Option<Finished>,
    last: LastTurns,
    transaction_id: String,
    number: u64,
    _finished: oneshot::Sender<()>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut last = self.last.lock().expect("never poisoned");
        if last.get(&self.transaction_id).is_some_and(|(number, _)| *number == self.number) {
            last.remove(&self.transaction_id);
        }
    }
}

/// The turns of one stream.
#[derive(Default)]
struct Turns {
    last: LastTurns,
    taken: u64,
}

impl Turns {
    fn take(&mut self, transaction_id: &str) -> Turn {
        self.taken += 1;
        let (finished, end) = oneshot::channel();
        let previous =
            self.last.lock().expect("never poisoned").insert(transaction_id.to_owned(), (self.taken, end.shared()));
        Turn {
            previous: previous.map(|(_, end)| end),
            last: self.last.clone(),
            transaction_id: transaction_id.to_owned(),
            number: self.taken,
            _finished: finished,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The transactionIds the stream still holds.
    fn unanswered(turns: &Turns) -> usize {
        turns.last.lock().expect("never poisoned").len()
    }

    #[tokio::test]
    async fn a_turn_waits_for_the_previous_one_with_its_transaction_id_only() {
        let mut turns = Turns::default();
        let first = turns.take("a");
        let other = turns.take("b");
        let mut second = turns.take("a");
        assert!(first.previous.is_none() && other.previous.is_none());
        let waiting = second.previous.take().expect("the second `a` waits for the first");
        assert!(waiting.clone().now_or_never().is_none(), "the first `a` has not run");
        drop(first);
        assert!(waiting.now_or_never().is_some(), "the first `a` has run");
    }

    #[tokio::test]
    async fn a_transaction_id_is_forgotten_once_its_last_trigger_has_run() {
        let mut turns = Turns::default();
        let first = turns.take("a");
        let second = turns.take("a");
        for n in 0..5_000 {
            drop(turns.take(&format!("done {n}")));
        }
        assert_eq!(unanswered(&turns), 1, "only `a` is unanswered");
        drop(first);
        assert_eq!(unanswered(&turns), 1, "the second `a` is still unanswered");
        let third = turns.take("a");
        assert!(third.previous.is_some(), "the third `a` waits for the second");
        drop((second, third));
        assert_eq!(unanswered(&turns), 0);
    }
}
