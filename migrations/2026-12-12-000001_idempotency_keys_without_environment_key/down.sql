ALTER TABLE idempotency_keys
    ADD CONSTRAINT idempotency_keys_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE;
