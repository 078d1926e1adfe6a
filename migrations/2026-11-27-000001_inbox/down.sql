ALTER TABLE messages DROP COLUMN archived_at;
ALTER TABLE api_keys DROP COLUMN key_encrypted;
ALTER TABLE environments DROP COLUMN application_identifier;
