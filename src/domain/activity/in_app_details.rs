//! The execution details of a delivered in-app message, as the activity API shows them: "In-app
//! message created" and "Message sent to the in-app feed", rendered from the completed job.
//!
//! They are not stored. Both are fixed texts with the job's provider and completion time, and they
//! were two of the rows every delivered in-app message wrote, each with its index entry
//! (docs/performance.md). Jobs completed before then keep their stored details, which are shown
//! instead; an in-app job that ended otherwise (skipped, filtered, failed to render) stores its own.

use chrono::TimeDelta;
use uuid::Uuid;

use super::{ActivityJobRow, ExecutionDetailRow};
use crate::workflow::{JobStatus, StepKind};

/// The step's stages, in the order it reaches them: the texts builds before this one stored.
const STAGES: [&str; 2] = ["In-app message created", "Message sent to the in-app feed"];

/// The details `job` shows when it has none stored: a completed in-app job's two, none for any other.
/// Their ids are derived from the job's and their texts (name-based UUIDs), so they are the same on
/// every read, and they are a microsecond apart, in the order the step reached them.
pub(super) fn rendered_details(job: &ActivityJobRow) -> Vec<ExecutionDetailRow> {
    if job.kind != StepKind::InApp.as_str() || job.status != JobStatus::Completed.as_str() {
        return Vec::new();
    }
    STAGES
        .iter()
        .zip(0..)
        .map(|(text, offset)| {
            let id = Uuid::new_v5(&job.id, text.as_bytes());
            let at = job.updated_at + TimeDelta::microseconds(offset);
            ExecutionDetailRow::rendered(id, job.id, text.to_string(), &job.provider_id, at)
        })
        .collect()
}
