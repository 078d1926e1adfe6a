DROP TRIGGER messages_inbox_counts_insert ON messages;
DROP TRIGGER messages_inbox_counts_update ON messages;
DROP TRIGGER messages_inbox_counts_delete ON messages;
DROP FUNCTION inbox_counts_follow();
ALTER TABLE inbox_sequences DROP COLUMN unread_count, DROP COLUMN unseen_count;
