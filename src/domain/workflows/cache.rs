//! Workflow definitions kept in process for the trigger path, which would otherwise read the workflow
//! and its steps (two statements) on every trigger.
//!
//! Every workflow write of this process ([`super::create_workflow`], [`super::update_workflow`],
//! [`super::delete_workflow`]) moves the cache's generation once it has committed, and an entry loaded
//! under an older generation is never served: a lookup that raced a write cannot put the old
//! definition back. Writes made by another process are seen after at most
//! [`WorkflowCache::TIME_TO_LIVE`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use uuid::Uuid;

use super::{find_workflow, StoredWorkflow};
use crate::db::request::Connection;
use crate::db::DbPool;
use crate::domain::tenancy::Tenant;
use crate::error::{AppError, AppResult};
use crate::workflow::{SharedSnapshot, StepSnapshot};

/// A live workflow as its triggers run it: the definition, and the snapshot of each of its steps,
/// taken once per cached definition instead of once per trigger.
#[derive(Debug)]
pub struct CachedWorkflow {
    pub stored: StoredWorkflow,
    /// One per step of `stored.steps`, in the same order.
    pub snapshots: Vec<SharedSnapshot>,
}

impl From<StoredWorkflow> for CachedWorkflow {
    fn from(stored: StoredWorkflow) -> Self {
        let snapshots = stored.steps.iter().map(|step| SharedSnapshot::of(StepSnapshot::from(step))).collect();
        Self { stored, snapshots }
    }
}

/// A definition and the generation it was read under.
struct Entry {
    generation: u64,
    workflow: Arc<CachedWorkflow>,
}

/// The live workflows looked up by (environment, reference as the trigger named it).
#[derive(Clone)]
pub struct WorkflowCache {
    entries: moka::future::Cache<(Uuid, String), Arc<Entry>>,
    generation: Arc<AtomicU64>,
}

impl std::fmt::Debug for WorkflowCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkflowCache").field("generation", &self.generation.load(Ordering::Relaxed)).finish()
    }
}

impl Default for WorkflowCache {
    fn default() -> Self {
        let entries =
            moka::future::Cache::builder().max_capacity(Self::CAPACITY).time_to_live(Self::TIME_TO_LIVE).build();
        Self { entries, generation: Arc::new(AtomicU64::new(0)) }
    }
}

impl WorkflowCache {
    /// How stale a definition changed by another process may be when a trigger runs it.
    pub const TIME_TO_LIVE: Duration = Duration::from_secs(2);
    /// Most definitions kept (each is a few kilobytes).
    const CAPACITY: u64 = 10_000;

    /// The live workflow named by identifier, `_id` or slug; a database read only on a miss, shared by
    /// the concurrent lookups of one reference. Unknown workflows are not cached (a create must be
    /// seen at once).
    pub async fn find(&self, pool: &DbPool, tenant: Tenant, reference: &str) -> AppResult<Arc<CachedWorkflow>> {
        let key = (tenant.environment_id, reference.to_string());
        loop {
            let generation = self.generation.load(Ordering::Acquire);
            let entry = self
                .entries
                .try_get_with(key.clone(), async {
                    // A keyed trigger holds a pooled connection for its whole request; taking a second
                    // one here could wait on a pool those requests hold. Triggers write no workflow, so
                    // their transaction sees the committed definition.
                    let mut conn = Connection::free_of_request_or(pool).await?;
                    let workflow = find_workflow(&mut conn, tenant, reference).await?;
                    Ok::<_, AppError>(Arc::new(Entry { generation, workflow: Arc::new(workflow.into()) }))
                })
                .await
                .map_err(AppError::from_shared)?;
            if entry.generation == self.generation.load(Ordering::Acquire) {
                return Ok(entry.workflow.clone());
            }
            // Read before a write that has committed since: read it again.
            self.entries.invalidate(&key).await;
        }
    }

    /// Forgets every definition: called after a workflow write commits.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.entries.invalidate_all();
    }
}
