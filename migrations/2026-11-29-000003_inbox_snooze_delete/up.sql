-- The inbox's snooze and delete (issue 19, part 3).

-- When the subscriber deleted the in-app message from its inbox: a soft delete, so the server API
-- still shows what was delivered (messages, activity) and the event log's `delete` event still names
-- the message; the retention sweep removes the row with its notification.
ALTER TABLE messages ADD COLUMN deleted_at timestamptz;

-- The workers' due-scan of snoozed messages (`snoozed_until` is cleared when one comes back): only
-- snoozed rows are indexed, so the index stays as small as the number of snoozed notifications.
CREATE INDEX messages_snoozed_until_idx ON messages (snoozed_until) WHERE snoozed_until IS NOT NULL;
