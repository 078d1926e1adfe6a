CREATE INDEX messages_environment_transaction_idx ON messages (environment_id, transaction_id);
