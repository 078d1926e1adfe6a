-- Eight index entries fewer for every one-recipient trigger delivered in-app (31 before, counted in the
-- WAL with pg_waldump: each is a b-tree insert and its WAL record, on the hottest writes), none of them
-- needed by a read (docs/performance.md):
--
-- * jobs (environment_id, transaction_id): written twice per job (its insert, and the non-HOT update
--   that completes it), read only by a cancel request, which now finds the jobs through their
--   notifications (notifications_transaction_subscriber_key, then jobs_notification_position_key).
-- * notifications (environment_id, severity, created_at, id): the activity feed's severity filter. The
--   notifications without one ('none', the default and the common case) left out: a filter on 'none'
--   matches most of the feed and reads it in date order anyway (notifications_environment_created_idx),
--   a filter on the others reads this partial index.
-- * messages (environment_id, subscriber_id, created_at, id): the messages list by subscriber without a
--   channel. The subscriber-and-channel index serves it by its prefix (with a sort of that subscriber's
--   messages), and every inbox read names the channel.
-- * execution_details: its primary key and its index by notification, two entries for each of the two
--   details an in-app step writes. Details are read by job (the activity API), the only lookup their
--   index by job serves; nothing looks one up by id, and the retention sweep finds them through their
--   jobs. The id stays, unique as a UUID v7 made by Herald.
DROP INDEX jobs_environment_transaction_idx;
DROP INDEX notifications_environment_severity_created_idx;
CREATE INDEX notifications_environment_severity_created_idx
    ON notifications (environment_id, severity, created_at DESC, id DESC) WHERE severity <> 'none';
DROP INDEX messages_environment_subscriber_created_idx;
ALTER TABLE execution_details DROP CONSTRAINT execution_details_pkey;
DROP INDEX execution_details_notification_created_idx;
