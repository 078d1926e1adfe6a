//! The step snapshots of claimed jobs. A snapshot row never changes (its id is derived from its
//! content, `workflow::SharedSnapshot`), so a worker process reads each one once and keeps it: a batch
//! asks the database only for snapshots it has not seen, which after the first batches of a workflow
//! version is none. Before, every job row carried its snapshot, sent and parsed at every claim.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use crate::db::schema::step_snapshots;
use crate::error::AppResult;
use crate::workflow::StepSnapshot;

/// The snapshots this process has read, by id. A plain map: the worker's transaction future must stay
/// `Send` for every lifetime, which an awaited cache lookup inside it is not.
#[derive(Default)]
pub struct SnapshotCache {
    entries: RwLock<HashMap<Uuid, Arc<StepSnapshot>>>,
}

impl SnapshotCache {
    /// Most snapshots kept (one per version of a step in use, each a kilobyte or a few); past it the
    /// map starts again empty, and the snapshots in use are read again.
    const CAPACITY: usize = 10_000;

    /// The snapshots `ids` name, reading the ones not kept yet in one statement. An id without a row
    /// is left out (ingest stores a job's snapshot with the job, and nothing deletes one).
    pub async fn get_all(
        &self,
        conn: &mut AsyncPgConnection,
        ids: impl IntoIterator<Item = Uuid>,
    ) -> AppResult<HashMap<Uuid, Arc<StepSnapshot>>> {
        let mut found = HashMap::new();
        let mut missing = Vec::new();
        {
            let entries = self.entries.read().expect("the snapshot cache is never poisoned");
            for id in ids {
                match entries.get(&id) {
                    Some(step) => {
                        found.insert(id, step.clone());
                    }
                    None if !missing.contains(&id) => missing.push(id),
                    None => {}
                }
            }
        }
        if missing.is_empty() {
            return Ok(found);
        }
        let read: Vec<(Uuid, StepSnapshot)> = step_snapshots::table
            .filter(step_snapshots::id.eq_any(&missing))
            .select((step_snapshots::id, step_snapshots::step))
            .load(conn)
            .await?;
        let mut entries = self.entries.write().expect("the snapshot cache is never poisoned");
        if entries.len() + read.len() > Self::CAPACITY {
            entries.clear();
        }
        for (id, step) in read {
            let step = Arc::new(step);
            entries.insert(id, step.clone());
            found.insert(id, step);
        }
        Ok(found)
    }
}
