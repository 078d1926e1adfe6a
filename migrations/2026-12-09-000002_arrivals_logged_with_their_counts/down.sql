CREATE OR REPLACE FUNCTION inbox_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    -- Old rows (`shown_before`, UPDATE and DELETE) leave the counts, new rows (`shown_after`, INSERT
    -- and UPDATE) join them, where the inbox shows them; a subscriber whose counts do not change is
    -- not written. Subscribers are written in order: the order the event log's bump locks them in.
    IF TG_OP = 'INSERT' THEN
        INSERT INTO inbox_sequences AS s (environment_id, subscriber_id, last_seq, unread_count, unseen_count)
        SELECT environment_id, subscriber_id, 0, sum((NOT read)::int), sum((NOT seen)::int)
        FROM shown_after
        WHERE channel = 'in_app' AND archived_at IS NULL AND snoozed_until IS NULL AND deleted_at IS NULL
        GROUP BY environment_id, subscriber_id
        HAVING sum((NOT read)::int) <> 0 OR sum((NOT seen)::int) <> 0
        ORDER BY environment_id, subscriber_id
        ON CONFLICT (environment_id, subscriber_id) DO UPDATE
            SET unread_count = s.unread_count + excluded.unread_count,
                unseen_count = s.unseen_count + excluded.unseen_count;
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
