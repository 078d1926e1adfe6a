-- Two kinds of write that cost every delivered in-app message more than they need to
-- (docs/performance.md, measured on a 100,000-member topic delivered in-app):
--
-- * The environment-wide "newest first" indexes of notifications and messages were built descending.
--   Their new entries (a later created_at, a later UUID v7) therefore always land on the leftmost leaf
--   of their environment's range, and a leaf split there halves the page: each of these indexes ended up
--   twice the size of its entries (10 MB for 100,000 messages), with twice the page splits and pages
--   to write. Ascending, the same entries append at the right end: PostgreSQL splits a rightmost leaf
--   at 90% and inserts there without descending the tree (a cached rightmost leaf). A B-tree is read
--   backwards as cheaply as forwards, so `ORDER BY created_at DESC, id DESC` reads these in reverse.
--   200,000 appends into a copy of the (environment, created_at, id) index: 40 MB and 737 ms
--   descending, 22 MB and 598 ms ascending.
-- * Each in-app message updates its subscriber's `inbox_sequences` row twice (the counts trigger, then
--   the event log's bump). A full page has no room for the new row version, so every update moved the
--   row to another page and added a primary-key entry (100,000 of 100,000 updates in a fan-out were
--   not HOT). With room left on each page the update stays on its page with no index entry: 100,000
--   updates took 97 ms and 7.1 MB of WAL instead of 557 ms and 29 MB. Pages written from now on keep
--   half their space free; rows already stored get it as their pages are rewritten (`VACUUM FULL
--   inbox_sequences` applies it at once, in a maintenance window: it locks the table).
DROP INDEX notifications_environment_created_idx;
CREATE INDEX notifications_environment_created_idx ON notifications (environment_id, created_at, id);
DROP INDEX notifications_environment_workflow_created_idx;
CREATE INDEX notifications_environment_workflow_created_idx
    ON notifications (environment_id, workflow_id, created_at, id);
DROP INDEX messages_environment_created_idx;
CREATE INDEX messages_environment_created_idx ON messages (environment_id, created_at, id);
DROP INDEX messages_environment_channel_created_idx;
CREATE INDEX messages_environment_channel_created_idx ON messages (environment_id, channel, created_at, id);

ALTER TABLE inbox_sequences SET (fillfactor = 50);
