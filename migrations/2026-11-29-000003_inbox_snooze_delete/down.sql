DROP INDEX messages_snoozed_until_idx;
ALTER TABLE messages DROP COLUMN deleted_at;
