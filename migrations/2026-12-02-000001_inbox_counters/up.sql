-- Each subscriber's unread and unseen counts, kept beside its event sequence instead of recounted from
-- its messages at every inbox event (an O(inbox size) scan per arrival and per mark: 52 µs an event
-- with some twenty messages a subscriber in the trigger benchmark, and growing with the inbox).
--
-- The counts are of the messages the inbox shows: in-app, not archived, snoozed or deleted. They are
-- kept by statement-level triggers on `messages`, so every writer (the worker's deliveries, the server
-- API's and the inbox's marks, snoozes and their return, deletions, the retention sweep, and any
-- writer added later) keeps them without knowing of them. A trigger sums its statement's changes per
-- subscriber from the transition tables (one set-based upsert a statement, not a row) and adds them
-- to the subscriber's row in subscriber order, the order the event log's bump locks them in, so two
-- writers locking several rows cannot deadlock on them. The row stays locked until commit: an event written after
-- it (src/domain/inbox/events/log.rs) reads counts exact at its commit.
ALTER TABLE inbox_sequences
    ADD COLUMN unread_count bigint NOT NULL DEFAULT 0,
    ADD COLUMN unseen_count bigint NOT NULL DEFAULT 0;

INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq, unread_count, unseen_count)
SELECT environment_id, subscriber_id, 0, count(*) FILTER (WHERE NOT read), count(*) FILTER (WHERE NOT seen)
FROM messages
WHERE channel = 'in_app' AND archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL
GROUP BY environment_id, subscriber_id
ON CONFLICT (environment_id, subscriber_id)
    DO UPDATE SET unread_count = excluded.unread_count, unseen_count = excluded.unseen_count;

-- Adds what the statement changed to the counts of its subscribers: its old rows (`shown_before`,
-- UPDATE and DELETE) leave the counts and its new rows (`shown_after`, INSERT and UPDATE) join them,
-- where the inbox shows them; a subscriber whose counts do not change is not written. The statement is
-- assembled per operation because a trigger has only the transition tables of its own operation
-- (planned on each run: a statement a trigger, not a row).
CREATE FUNCTION inbox_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $function$
DECLARE
    before_rows CONSTANT text := 'SELECT environment_id, subscriber_id, -1 AS sign, read, seen, channel,
                                         archived_at, snoozed_until, deleted_at FROM shown_before';
    after_rows CONSTANT text := 'SELECT environment_id, subscriber_id, 1 AS sign, read, seen, channel,
                                        archived_at, snoozed_until, deleted_at FROM shown_after';
BEGIN
    EXECUTE format($sql$
        INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq, unread_count, unseen_count)
        SELECT environment_id, subscriber_id, 0, sum(sign * (NOT read)::int), sum(sign * (NOT seen)::int)
        FROM (%s) m
        WHERE channel = 'in_app' AND archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL
        GROUP BY environment_id, subscriber_id
        HAVING sum(sign * (NOT read)::int) <> 0 OR sum(sign * (NOT seen)::int) <> 0
        ORDER BY environment_id, subscriber_id
        ON CONFLICT (environment_id, subscriber_id) DO UPDATE
            SET unread_count = s.unread_count + excluded.unread_count,
                unseen_count = s.unseen_count + excluded.unseen_count
    $sql$, CASE TG_OP
        WHEN 'INSERT' THEN after_rows
        WHEN 'DELETE' THEN before_rows
        ELSE before_rows || ' UNION ALL ' || after_rows
    END);
    RETURN NULL;
END
$function$;

CREATE TRIGGER messages_inbox_counts_insert AFTER INSERT ON messages
    REFERENCING NEW TABLE AS shown_after FOR EACH STATEMENT EXECUTE FUNCTION inbox_counts_follow();
CREATE TRIGGER messages_inbox_counts_update AFTER UPDATE ON messages
    REFERENCING OLD TABLE AS shown_before NEW TABLE AS shown_after
    FOR EACH STATEMENT EXECUTE FUNCTION inbox_counts_follow();
CREATE TRIGGER messages_inbox_counts_delete AFTER DELETE ON messages
    REFERENCING OLD TABLE AS shown_before FOR EACH STATEMENT EXECUTE FUNCTION inbox_counts_follow();
