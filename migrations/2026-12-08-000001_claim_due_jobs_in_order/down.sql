DROP FUNCTION claim_due_jobs(timestamptz, bigint);
