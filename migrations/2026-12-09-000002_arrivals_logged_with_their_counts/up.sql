-- A new in-app message wrote its subscriber's `inbox_sequences` row twice in its transaction: the
-- counts trigger added it to the unread and unseen counts, then the event log's bump reserved its
-- `received` event's sequence number (src/domain/inbox/events/log.rs), two statements and two row
-- versions for one arrival. The trigger's INSERT branch now does both in one write and logs the
-- `received` events itself, so every writer of in-app messages logs their arrival without knowing of
-- it, as it already kept the counts. The worker reads the subscribers' new sequence numbers back to
-- announce them after its commit. UPDATE and DELETE are as before (their events are the marks', written
-- by the event log).
--
-- The function's statements are planned once per connection, for the size of the first statement
-- that fired them, and a transition table's size is unknown to the planner: a plan made for one
-- arrival joined a later batch's 400 arrivals to their 400 subscribers by a nested loop (159,600 rows
-- compared, 42 ms; auto_explain). Without nested loops the join is hashed whatever the batch.
CREATE OR REPLACE FUNCTION inbox_counts_follow() RETURNS trigger LANGUAGE plpgsql
SET enable_nestloop = off
AS $function$
BEGIN
    -- Old rows (`shown_before`, UPDATE and DELETE) leave the counts, new rows (`shown_after`, INSERT
    -- and UPDATE) join them, where the inbox shows them; on UPDATE and DELETE a subscriber whose counts
    -- do not change is not written. Subscribers are written in order: the order the event log's bump
    -- locks them in.
    IF TG_OP = 'INSERT' THEN
        -- New in-app messages: each subscriber's row takes the messages' counts and reserves their
        -- sequence numbers in one write, and each message gets its `received` event, numbered in
        -- message id order, with the counts the row has once the statement is done.
        WITH arrived AS (
            SELECT environment_id, subscriber_id, id,
                   archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL AND NOT read AS unread,
                   archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL AND NOT seen AS unseen
            FROM shown_after
            WHERE channel = 'in_app'
        ), bumped AS (
            INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq, unread_count, unseen_count)
            SELECT environment_id, subscriber_id, count(*), count(*) FILTER (WHERE unread),
                   count(*) FILTER (WHERE unseen)
            FROM arrived
            GROUP BY environment_id, subscriber_id
            ORDER BY environment_id, subscriber_id
            ON CONFLICT (environment_id, subscriber_id) DO UPDATE
                SET last_seq = s.last_seq + excluded.last_seq,
                    unread_count = s.unread_count + excluded.unread_count,
                    unseen_count = s.unseen_count + excluded.unseen_count
            RETURNING environment_id, subscriber_id, last_seq, unread_count, unseen_count
        )
        INSERT INTO inbox_events (environment_id, subscriber_id, seq, kind, change, message_id, unread_count,
                                  unseen_count, created_at)
        SELECT a.environment_id, a.subscriber_id,
               b.last_seq - count(*) OVER w + row_number() OVER (w ORDER BY a.id),
               'received', NULL, a.id, b.unread_count, b.unseen_count, clock_timestamp()
        FROM arrived a
        JOIN bumped b ON b.environment_id = a.environment_id AND b.subscriber_id = a.subscriber_id
        WINDOW w AS (PARTITION BY a.environment_id, a.subscriber_id);
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq, unread_count, unseen_count)
        SELECT environment_id, subscriber_id, 0, -sum((NOT read)::int), -sum((NOT seen)::int)
        FROM shown_before
        WHERE channel = 'in_app' AND archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL
        GROUP BY environment_id, subscriber_id
        HAVING sum((NOT read)::int) <> 0 OR sum((NOT seen)::int) <> 0
        ORDER BY environment_id, subscriber_id
        ON CONFLICT (environment_id, subscriber_id) DO UPDATE
            SET unread_count = s.unread_count + excluded.unread_count,
                unseen_count = s.unseen_count + excluded.unseen_count;
    ELSE
        INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq, unread_count, unseen_count)
        SELECT environment_id, subscriber_id, 0, sum(sign * (NOT read)::int), sum(sign * (NOT seen)::int)
        FROM (SELECT environment_id, subscriber_id, -1 AS sign, read, seen, channel, archived_at, snoozed_until,
                     deleted_at
              FROM shown_before
              UNION ALL
              SELECT environment_id, subscriber_id, 1 AS sign, read, seen, channel, archived_at, snoozed_until,
                     deleted_at
              FROM shown_after) m
        WHERE channel = 'in_app' AND archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL
        GROUP BY environment_id, subscriber_id
        HAVING sum(sign * (NOT read)::int) <> 0 OR sum(sign * (NOT seen)::int) <> 0
        ORDER BY environment_id, subscriber_id
        ON CONFLICT (environment_id, subscriber_id) DO UPDATE
            SET unread_count = s.unread_count + excluded.unread_count,
                unseen_count = s.unseen_count + excluded.unseen_count;
    END IF;
    RETURN NULL;
END
$function$;
