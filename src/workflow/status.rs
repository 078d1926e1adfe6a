//! Job statuses (the contract's list), stored in `jobs.status` by their API spelling.

use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::sql_types::Text;

use super::columns::{named_enum, text_column};

named_enum! {
    /// Where a job is in its life.
    #[derive(AsExpression, FromSqlRow)]
    #[diesel(sql_type = Text)]
    pub enum JobStatus ("job status") {
        /// Waiting for the job before it.
        Pending = "pending",
        /// Due: a worker may claim it.
        Queued = "queued",
        /// Claimed; `run_at` is the lease expiry.
        Running = "running",
        Completed = "completed",
        Failed = "failed",
        /// Waiting for a delay or a digest window; `run_at` is when it ends.
        Delayed = "delayed",
        Canceled = "canceled",
        /// Merged into another job's digest.
        Merged = "merged",
        /// Did not run: a filter excluded it.
        Skipped = "skipped",
    }
}
text_column!(JobStatus);

impl JobStatus {
    /// Whether a job with this status will run (again): it is due or waiting for its time.
    pub fn will_run(self) -> bool {
        match self {
            JobStatus::Pending | JobStatus::Queued | JobStatus::Running | JobStatus::Delayed => true,
            JobStatus::Completed | JobStatus::Failed | JobStatus::Canceled | JobStatus::Merged | JobStatus::Skipped => {
                false
            }
        }
    }
}
