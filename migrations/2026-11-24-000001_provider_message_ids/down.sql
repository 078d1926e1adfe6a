ALTER TABLE messages DROP COLUMN provider_message_id;
