-- The trigger function as migration 2026-12-02-000001_inbox_counters created it.
CREATE OR REPLACE FUNCTION inbox_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $function$
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
