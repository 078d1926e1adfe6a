//! A stream of triggers (gRPC `StreamTriggerEvents`): each runs as [`trigger_event`] does, up to
//! [`MOST_UNANSWERED`] at a time, and is answered in stream order. Triggers that give the same
//! transactionId run one after another in stream order, as in a bulk trigger ([`super::trigger_bulk`]),
//! so the first one sent is the one stored.
//!
//! A stream saves what a call per trigger costs both ends over HTTP/2 (a stream, its headers and
//! trailers): the triggers themselves are stored by the same group commit as every other.

use std::collections::HashMap;

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
                let _finished = match turn {
                    Some(Turn { previous, finished }) => {
                        if let Some(previous) = previous {
                            // Resolves when the previous trigger with this transactionId finished (or was dropped).
                            let _ = previous.await;
                        }
                        Some(finished)
                    }
                    None => None,
                };
                trigger_event(&pool, &engine, tenant, request).await
            }
        })
        .buffered(MOST_UNANSWERED)
}

/// Ends (with an error, as no value is ever sent) when its trigger's [`Turn::finished`] is dropped.
type Finished = Shared<oneshot::Receiver<()>>;

/// A trigger's place among those of its stream with the same transactionId.
struct Turn {
    /// The previous one's end, if one is unanswered.
    previous: Option<Finished>,
    /// Dropped when this one has run, which lets the next one run.
    finished: oneshot::Sender<()>,
}

/// The last trigger of each transactionId seen on a stream.
#[derive(Default)]
struct Turns {
    last: HashMap<String, Finished>,
}

impl Turns {
    fn take(&mut self, transaction_id: &str) -> Turn {
        // A long stream sees endless transactionIds; forget those whose last trigger has run. At most
        // MOST_UNANSWERED are unanswered, so this keeps the map under twice that.
        if self.last.len() >= 2 * MOST_UNANSWERED {
            self.last.retain(|_, finished| finished.clone().now_or_never().is_none());
        }
        let (finished, end) = oneshot::channel();
        let previous = self.last.insert(transaction_id.to_owned(), end.shared());
        Turn { previous, finished }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_turn_waits_for_the_previous_one_with_its_transaction_id_only() {
        let mut turns = Turns::default();
        let first = turns.take("a");
        let other = turns.take("b");
        let second = turns.take("a");
        assert!(first.previous.is_none() && other.previous.is_none());
        let waiting = second.previous.expect("the second `a` waits for the first");
        assert!(waiting.clone().now_or_never().is_none(), "the first `a` has not run");
        drop(first.finished);
        assert!(waiting.now_or_never().is_some(), "the first `a` has run");
    }

    #[tokio::test]
    async fn turns_forget_transaction_ids_whose_last_trigger_has_run() {
        let mut turns = Turns::default();
        let unanswered: Vec<Turn> = (0..10).map(|n| turns.take(&format!("open {n}"))).collect();
        for n in 0..2 * MOST_UNANSWERED - 10 {
            drop(turns.take(&format!("done {n}")).finished);
        }
        turns.take("one more");
        assert_eq!(turns.last.len(), 11, "the ten unanswered and the new one");
        drop(unanswered);
    }
}
