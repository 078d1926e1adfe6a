//! The common trigger batch in two round trips instead of five. Under load every round trip of a batch
//! waits for its turn on a core, and every caller in the batch with it (docs/performance.md). A batch
//! of triggers without idempotency keys, tenants or channel credentials, to subscribers this process
//! has stored triggers for before (the bulk of a busy server's triggers), sends its `BEGIN`, its
//! transactionId claims, its subscriber upsert, its notifications and jobs and its topic fan-outs
//! together, pipelined on one connection (PostgreSQL runs them in the order sent, in one
//! transaction), and then commits.
//!
//! The full path (`ingest::store_batch`) waits between these statements because each needs an answer
//! of the one before; here each answer is expected instead, and checked before the commit:
//! - only a trigger whose transactionId was free may store anything: this claim refuses a used one
//!   with an error, which aborts the whole transaction;
//! - the notifications need their subscribers' internal ids, which the upsert returns: here they are
//!   the ids this process last saw ([`KnownSubscribers`]), and the batch commits only if the upsert
//!   returned exactly those. A subscriber named by its subscriberId alone needs no upsert (it would
//!   write nothing to a subscriber that exists): it is looked up by its expected id instead, and the
//!   batch commits only if it is live under it.
//!
//! Anything else (a used transactionId, a subscriber deleted or created again meanwhile, any error but a
//! lost connection) rolls the batch back, and the full path stores it: it answers each trigger on its
//! own. Nothing is committed that the full path would not have committed.

use std::collections::HashSet;

use diesel_async::AsyncPgConnection;
use serde_json::Value;
use uuid::Uuid;

use super::fanout::{recipients_of, subscriber_upserts, templates_of, SubscriberIds};
use super::request::SubscriberInput;
use super::store::{self, subscriber_record};
use super::{PreparedTrigger, TriggerOutcome};
use crate::db::batch::PipelinedTransaction;
use crate::domain::tenancy::Tenant;
use crate::error::{AppError, AppResult};

/// The internal ids of the subscribers this process stored triggers for, by (environment,
/// subscriberId). A guess, checked by every batch that uses it: an id gone stale (the subscriber
/// deleted, perhaps created again, by any process) costs one batch sent twice, never a notification to
/// the wrong row.
#[derive(Clone)]
pub struct KnownSubscribers {
    ids: moka::future::Cache<(Uuid, String), Uuid>,
}

impl KnownSubscribers {
    /// A few hundred bytes an entry (key, id and the cache's own bookkeeping): some 10 MB at most.
    const CAPACITY: u64 = 50_000;

    pub fn new() -> Self {
        Self { ids: moka::future::Cache::builder().max_capacity(Self::CAPACITY).build() }
    }

    /// The id of every subscriber of `inputs`, or none if one is not known.
    async fn expected(&self, inputs: &[(Tenant, SubscriberInput)]) -> Option<SubscriberIds> {
        let mut ids = SubscriberIds::with_capacity(inputs.len());
        for (tenant, input) in inputs {
            let key = (tenant.environment_id, input.subscriber_id.clone());
            let id = self.ids.get(&key).await?;
            ids.insert(key, id);
        }
        Some(ids)
    }

    /// Keeps the ids an upsert returned: the rows as they are now.
    pub async fn learn(&self, ids: &SubscriberIds) {
        for (key, id) in ids {
            self.ids.insert(key.clone(), *id).await;
        }
    }

    async fn forget(&self, inputs: &[(Tenant, SubscriberInput)]) {
        for (tenant, input) in inputs {
            self.ids.invalidate(&(tenant.environment_id, input.subscriber_id.clone())).await;
        }
    }
}

impl Default for KnownSubscribers {
    fn default() -> Self {
        Self::new()
    }
}

/// What [`store_pipelined`] did with a batch.
pub enum Tried<'c> {
    /// Stored, every trigger processed: the caller commits, then answers.
    Stored(PipelinedTransaction<'c>, Vec<TriggerOutcome>),
    /// Not as expected: rolled back, for the full path to store.
    RolledBack,
    /// Not a batch this path stores: nothing sent.
    NotPipelined,
}

/// Sends `triggers` (none with an idempotency key) in a transaction of one round trip and, if all is
/// as expected, returns it with each trigger's answer (processed) for the caller to commit.
pub async fn store_pipelined<'c>(
    conn: &'c mut AsyncPgConnection,
    triggers: &[&PreparedTrigger],
    known: &KnownSubscribers,
) -> AppResult<Tried<'c>> {
    let keys: Vec<(Uuid, &str)> =
        triggers.iter().map(|trigger| (trigger.tenant.environment_id, trigger.transaction_id.as_str())).collect();
    let distinct_keys = keys.iter().collect::<HashSet<_>>().len() == keys.len();
    if !distinct_keys || triggers.iter().any(|trigger| trigger.tenant_reference.is_some()) {
        return Ok(Tried::NotPipelined);
    }
    let subscribers = subscriber_upserts(triggers);
    if subscribers.iter().any(|(_, input)| !input.channels.is_empty()) {
        return Ok(Tried::NotPipelined);
    }
    let Some(expected) = known.expected(&subscribers).await else { return Ok(Tried::NotPipelined) };

    let now = triggers.iter().map(|trigger| trigger.now).max().expect("a batch is never empty");
    // A subscriber whose triggers send a profile field is upserted; one named by its subscriberId alone
    // is only looked up (the upsert would write nothing to it), by the id it is expected to have.
    let (profiles, bare): (Vec<_>, Vec<_>) = subscribers.iter().partition(|(_, input)| input.sends_profile());
    let expected_of = |(tenant, input): &&(Tenant, SubscriberInput)| {
        let key = (tenant.environment_id, input.subscriber_id.clone());
        let id = expected[&key];
        (key, id)
    };
    let records =
        profiles.iter().map(|subscriber| subscriber_record(subscriber.0, &subscriber.1, expected_of(subscriber).1));
    let bare: SubscriberIds = bare.iter().map(expected_of).collect();
    let templates = templates_of(triggers, &SubscriberIds::new(), &expected);
    let recipients = recipients_of(triggers, &templates, &expected);
    let topic_fanouts = store::topic_fanouts_of(triggers, &templates, &expected)?;

    let transaction = PipelinedTransaction::new(conn);
    let sent = transaction.connection();
    let (begun, claimed, upserted, found, inserted, queued) = futures_util::join!(
        PipelinedTransaction::begin(sent),
        store::claim_every_transaction_id(sent, &keys, now),
        store::upsert_subscriber_records(sent, Value::Array(records.collect()), now),
        store::find_live_subscribers(sent, &bare),
        recipients.insert(sent),
        store::insert_topic_fanouts(sent, &topic_fanouts),
    );
    // The first error is the cause: the statements after it fail as the transaction is aborted.
    let stored = (|| -> AppResult<_> { Ok((begun?, claimed?, upserted?, found?, inserted?, queued?)) })();
    let as_expected = match stored {
        Ok(((), (), mut ids, found, inserted, ())) => {
            ids.extend(found);
            let as_expected = ids == expected && inserted == recipients.count();
            if !as_expected {
                // The rows as they are now (a row this batch created keeps its id if created again).
                known.forget(&subscribers).await;
                known.learn(&ids).await;
            }
            as_expected
        }
        // Nothing was committed: the caller answers 503.
        Err(AppError::Unavailable(cause)) => return Err(AppError::Unavailable(cause)),
        Err(error) => {
            tracing::debug!(%error, "a pipelined trigger batch is stored by the full path");
            known.forget(&subscribers).await;
            false
        }
    };
    if !as_expected {
        transaction.rollback().await?;
        return Ok(Tried::RolledBack);
    }
    let outcomes = triggers.iter().map(|trigger| TriggerOutcome::processed(trigger.transaction_id.clone())).collect();
    Ok(Tried::Stored(transaction, outcomes))
}
