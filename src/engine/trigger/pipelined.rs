//! The common trigger batch in two round trips instead of five. Under load every round trip of a batch
//! waits for its turn on a core, and every caller in the batch with it (docs/performance.md). A batch
//! of triggers without tenants or channel credentials, to subscribers this process has stored triggers
//! for before (the bulk of a busy server's triggers), sends its `BEGIN`, its idempotency keys' claims,
//! its transactionId claims, its subscriber upsert, its notifications and jobs, its topic fan-outs and
//! its keys' outcomes together, pipelined on one connection (PostgreSQL runs them in the order sent, in
//! one transaction), and then commits.
//!
//! The full path (`ingest::store_batch`) waits between these statements because each needs an answer
//! of the one before; here each answer is expected instead, and checked before the commit:
//! - every idempotency key is expected free (the official SDKs send a new key with every trigger): a
//!   key in use or holding an earlier request's answer rolls the batch back, for the full path to
//!   answer as that key requires;
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
use crate::domain::idempotency_keys::{self, Claim, KeyUse};
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

/// Sends `triggers` in a transaction of one round trip and, if all is as expected, returns it with each
/// trigger's answer (processed) for the caller to commit. `keys` are the triggers' idempotency keys,
/// in the same order.
pub async fn store_pipelined<'c>(
    conn: &'c mut AsyncPgConnection,
    triggers: &[&PreparedTrigger],
    keys: &[Option<&KeyUse>],
    known: &KnownSubscribers,
) -> AppResult<Tried<'c>> {
    let transaction_ids: Vec<(Uuid, &str)> =
        triggers.iter().map(|trigger| (trigger.tenant.environment_id, trigger.transaction_id.as_str())).collect();
    let key_uses: Vec<&KeyUse> = keys.iter().flatten().copied().collect();
    if !all_distinct(&transaction_ids)
        || !all_distinct(&key_uses.iter().map(|used| (used.environment_id, used.key.as_str())).collect::<Vec<_>>())
        || triggers.iter().any(|trigger| trigger.tenant_reference.is_some())
    {
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
    let outcomes: Vec<TriggerOutcome> =
        triggers.iter().map(|trigger| TriggerOutcome::processed(trigger.transaction_id.clone())).collect();
    let key_outcomes: Vec<(&KeyUse, Value)> =
        keys.iter().zip(&outcomes).filter_map(|(key, outcome)| Some(((*key)?, outcome.to_stored()))).collect();

    let transaction = PipelinedTransaction::new(conn);
    let sent = transaction.connection();
    let (begun, key_claims, claimed, upserted, found, inserted, queued, kept) = futures_util::join!(
        PipelinedTransaction::begin(sent),
        idempotency_keys::claim_all_pipelined(sent, &key_uses),
        store::claim_every_transaction_id(sent, &transaction_ids, now),
        store::upsert_subscriber_records(sent, Value::Array(records.collect()), now),
        store::find_live_subscribers(sent, &bare),
        recipients.insert(sent),
        store::insert_topic_fanouts(sent, &topic_fanouts),
        idempotency_keys::insert_outcomes(sent, &key_outcomes),
    );
    // The first error is the cause: the statements after it fail as the transaction is aborted.
    let stored =
        (|| -> AppResult<_> { Ok((begun?, key_claims?, claimed?, upserted?, found?, inserted?, queued?, kept?)) })();
    let as_expected = match stored {
        Ok(((), key_claims, (), mut ids, found, (), (), ())) => {
            ids.extend(found);
            let subscribers_as_expected = ids == expected;
            if !subscribers_as_expected {
                // The rows as they are now (a row this batch created keeps its id if created again).
                known.forget(&subscribers).await;
                known.learn(&ids).await;
            }
            subscribers_as_expected && key_claims.iter().all(|claim| *claim == Claim::Fresh)
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
    Ok(Tried::Stored(transaction, outcomes))
}

fn all_distinct<T: Eq + std::hash::Hash>(items: &[T]) -> bool {
    items.iter().collect::<HashSet<_>>().len() == items.len()
}
