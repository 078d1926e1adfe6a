-- A trigger naming more than 100 subscribers directly is fanned out like a trigger to topics
-- (engine::trigger::MOST_RECIPIENTS_STORED_AT_INGEST): its batch stores one fan-out row holding its
-- recipients, and a worker's fan-out loop stores their notifications and jobs and runs their first
-- in-app or delay steps in one page transaction. A 1,000-recipient trigger stored its 1,000
-- notifications and jobs in the batch that acknowledged it: 21 ms of one statement, and every trigger
-- of that batch waited for it (docs/performance.md).
--
-- `recipients`: for such a fan-out, its recipients as `[{"id": internal subscriber id, "to": the entry
-- as sent}]`; NULL for a fan-out to topics.
ALTER TABLE topic_fanouts ADD COLUMN recipients jsonb;
