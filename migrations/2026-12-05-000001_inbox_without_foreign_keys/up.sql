-- The inbox's counter rows and event log without foreign keys, as the other hot tables already are
-- (migrations 2026-11-24-000002 and 2026-11-28-000002): every in-app message delivered writes its
-- subscriber's `inbox_sequences` row twice in one transaction (the counts trigger on `messages`, then
-- the event log's bump), and the second write of a row the transaction already wrote always runs the
-- row's key checks: a `FOR KEY SHARE` on the subscriber and on the environment, which every concurrent
-- batch of the environment shares (multixacts). Each event's key to its counter row is a third check.
-- In a profile of 20,000 REST triggers delivered (pg_stat_statements, track = all): 60,000 checks,
-- 332 ms of statement time, about a twentieth of the delivery's 6.5 s.
--
-- They protect no delete Herald makes: environments and subscribers are never deleted (subscribers
-- are soft-deleted), the ids written come from the message rows of the same transaction, and the
-- retention sweep deletes old events itself.
ALTER TABLE inbox_events DROP CONSTRAINT inbox_events_environment_id_subscriber_id_fkey;
ALTER TABLE inbox_sequences
    DROP CONSTRAINT inbox_sequences_environment_id_fkey,
    DROP CONSTRAINT inbox_sequences_subscriber_id_fkey;
