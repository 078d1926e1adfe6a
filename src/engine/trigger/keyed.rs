//! A single trigger sent with an `Idempotency-Key` is stored by the group commit like any other, its
//! key with it: the batch's transaction takes the key's advisory lock, reads what the key holds, and
//! stores the trigger's outcome in the key's row, all in the one commit the batch shares. (A keyed
//! request of any other kind runs in a transaction of its own, `crate::db::request`, which would cost
//! the trigger a commit of its own: measured, half the rate of unkeyed triggers.)
//!
//! The idempotency middleware puts the key in a task-local scope ([`run`]) around the request; the
//! ingest reads it from there and reports back what the key held ([`KeyVerdict`]), which the
//! middleware answers from once the handler is done.

use std::future::Future;
use std::sync::Mutex;

use super::TriggerOutcome;
use crate::domain::idempotency_keys::{Claim, KeyUse};
use crate::error::{AppError, AppResult};

/// What the trigger's batch found its key holding.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyVerdict {
    /// The key was free: the trigger was stored (or refused) with its outcome in the key's row.
    Stored,
    /// The key held this same trigger's outcome, stored by an earlier request: that outcome was
    /// answered again and nothing was stored.
    Reused,
    /// The key is held by a request in flight, answered already, or another request's: nothing was
    /// stored (the claim says which).
    Taken(Claim),
}

struct Scope {
    key: KeyUse,
    /// An outcome to answer without checking or storing anything (a stored trigger answered again).
    stored_outcome: Option<TriggerOutcome>,
    verdict: Mutex<Option<KeyVerdict>>,
}

tokio::task_local! {
    static SCOPE: Scope;
}

/// Runs `request` (a single trigger) with `key`; returns its answer and what its batch found the key
/// holding (`None` when the trigger was never stored: refused by its checks, or its batch failed).
/// With `stored_outcome`, the trigger answers that outcome and does nothing else.
pub async fn run<T>(
    key: KeyUse,
    stored_outcome: Option<TriggerOutcome>,
    request: impl Future<Output = T>,
) -> (T, Option<KeyVerdict>) {
    let scope = Scope { key, stored_outcome, verdict: Mutex::new(None) };
    SCOPE
        .scope(scope, async {
            let answer = request.await;
            let verdict = SCOPE.with(|scope| scope.verdict.lock().expect("never poisoned").take());
            (answer, verdict)
        })
        .await
}

/// The key of the trigger being run, if it has one.
pub(super) fn current_key() -> Option<KeyUse> {
    SCOPE.try_with(|scope| scope.key.clone()).ok()
}

/// The outcome to answer again instead of running the trigger, if there is one.
pub(super) fn stored_outcome() -> Option<TriggerOutcome> {
    SCOPE.try_with(|scope| scope.stored_outcome.clone()).ok().flatten()
}

/// Reports what the batch found; a taken key is an error for the handler (the middleware answers it).
pub(super) fn report(verdict: KeyVerdict, outcome: Option<TriggerOutcome>) -> AppResult<TriggerOutcome> {
    let answer = match (&verdict, outcome) {
        (KeyVerdict::Taken(_), _) | (_, None) => {
            Err(AppError::Conflict("The Idempotency-Key of this trigger is already in use".into()))
        }
        (_, Some(outcome)) => Ok(outcome),
    };
    let _ = SCOPE.try_with(|scope| *scope.verdict.lock().expect("never poisoned") = Some(verdict));
    answer
}

/// Whether the trigger being run was answered by its key (an earlier outcome, or the key taken) rather
/// than run: such an answer is not counted as a trigger again.
pub(super) fn answered_by_key() -> bool {
    SCOPE
        .try_with(|scope| {
            let verdict = scope.verdict.lock().expect("never poisoned");
            matches!(*verdict, Some(KeyVerdict::Reused | KeyVerdict::Taken(_)))
        })
        .unwrap_or(false)
}

impl TriggerOutcome {
    /// The outcome as the key's row keeps it.
    pub fn to_stored(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("an outcome always serializes")
    }

    /// An outcome as the key's row keeps it.
    pub fn from_stored(stored: serde_json::Value) -> AppResult<Self> {
        serde_json::from_value(stored)
            .map_err(|error| AppError::internal(format!("an idempotency key holds an unreadable outcome: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::super::TriggerStatus;
    use super::*;

    #[test]
    fn a_stored_outcome_reads_back_the_same_and_spells_its_status_as_the_api_does() {
        let statuses = [
            TriggerStatus::Error,
            TriggerStatus::TriggerNotActive,
            TriggerStatus::NoWorkflowActiveStepsDefined,
            TriggerStatus::NoWorkflowStepsDefined,
            TriggerStatus::Processed,
            TriggerStatus::NoTenantFound,
            TriggerStatus::InvalidRecipients,
        ];
        for status in statuses {
            let outcome = TriggerOutcome { status, errors: vec!["why".into()], transaction_id: "t-1".into() };
            let stored = outcome.to_stored();
            assert_eq!(stored["status"], status.as_str());
            assert_eq!(stored["transactionId"], "t-1");
            assert_eq!(TriggerOutcome::from_stored(stored).unwrap(), outcome);
        }
        assert!(TriggerOutcome::from_stored(serde_json::json!({ "status": "lost" })).is_err());
    }
}
