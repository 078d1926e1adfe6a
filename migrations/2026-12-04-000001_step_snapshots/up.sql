-- Step snapshots stored once instead of in every job. `jobs.step` held the whole snapshot of the step a
-- job runs (434 of a one-recipient in-app job's 788 bytes), written with the job, written again by
-- every update of the row (PostgreSQL writes a whole new row version), sent to the worker and parsed at
-- every claim, though every trigger of one version of a workflow carries the same snapshots. A
-- snapshot's id is a UUID v5 of its JSON (`workflow::SharedSnapshot`): rows never change, every process
-- names the same row for the same snapshot, and ingest inserts a batch's few distinct snapshots with
-- `ON CONFLICT DO NOTHING` in the transaction that stores its jobs.
--
-- No foreign key from jobs: it would take a `FOR KEY SHARE` lock and a WAL record per job. Rows are
-- never deleted (the retention sweep leaves them): there is one per version of a step, whatever the
-- traffic, and deleting one could race a batch that found it present and stores jobs naming it.
--
-- Existing snapshots get an md5-derived id here (this build computes ids from its own JSON, which may
-- spell an equal snapshot differently): an equal snapshot stored again later gets a row of its own,
-- which is harmless.
CREATE TABLE step_snapshots (
    id   uuid PRIMARY KEY,
    step jsonb NOT NULL
);

ALTER TABLE jobs ADD COLUMN step_snapshot_id uuid;

INSERT INTO step_snapshots (id, step)
SELECT DISTINCT md5(step::text)::uuid, step FROM jobs;

UPDATE jobs SET step_snapshot_id = md5(step::text)::uuid;

ALTER TABLE jobs ALTER COLUMN step_snapshot_id SET NOT NULL;
ALTER TABLE jobs DROP COLUMN step;
