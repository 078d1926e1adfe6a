-- Execution details and messages are written only by the engine, each in the same transaction as the
-- job it belongs to (src/engine/details.rs, src/engine/worker/commit.rs), and the retention sweep
-- deletes them with their notifications (src/engine/retention.rs): that is all their foreign keys to
-- jobs and notifications did. Their checks cost more than the inserts themselves: a `FOR KEY SHARE`
-- lock on the job and on the notification per row, on the two hottest inserts of the engine (the
-- notification's lock dirties a row another transaction wrote, and its page). Measured here with 20,000
-- details referencing 100,000 jobs and notifications: 334 ms with the keys, 100 ms without; profiled in a 100,000-member fan-out, the details insert was the
-- largest statement (21.9 s of 1,123 executions) and the messages insert the second (13.0 s of 1,023;
-- docs/performance.md).
ALTER TABLE execution_details
    DROP CONSTRAINT execution_details_job_id_fkey,
    DROP CONSTRAINT execution_details_notification_id_fkey;
ALTER TABLE messages
    DROP CONSTRAINT messages_job_id_fkey,
    DROP CONSTRAINT messages_notification_id_fkey;
