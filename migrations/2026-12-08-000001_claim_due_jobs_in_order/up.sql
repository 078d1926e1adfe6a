-- The workers' claim, as a function whose plan does not depend on the table's statistics. A queue's
-- statistics are wrong exactly when it matters: taken while the table was empty, or while nearly every
-- job was finished, they estimate a handful of due jobs, and with fewer due jobs expected than the
-- batch asks for, the planner reads them all (a bitmap scan), sorts them (on disk past work_mem) and
-- keeps the first batch. Draining a 100,000-member topic's backlog, every claim of 100 jobs sorted the
-- whole backlog: 13 to 18 ms a claim, 17 µs of PostgreSQL's time a message delivered
-- (docs/performance.md). With sorts and bitmap scans off for this one statement, the only plan left
-- reads `jobs_due_idx` in due order and stops after the batch, whatever the estimates (0.1–0.2 ms).
--
-- The status list is a literal so that the planner can prove `jobs_due_idx`'s predicate.
CREATE FUNCTION claim_due_jobs(due_by timestamptz, batch_size bigint) RETURNS SETOF jobs
LANGUAGE sql
SET enable_sort = off
SET enable_bitmapscan = off
AS $$
    SELECT * FROM jobs
    WHERE status IN ('queued', 'delayed', 'running') AND run_at <= due_by
    ORDER BY run_at
    LIMIT batch_size
    FOR UPDATE SKIP LOCKED
$$;
