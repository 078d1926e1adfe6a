ALTER TABLE inbox_sequences
    ADD CONSTRAINT inbox_sequences_environment_id_fkey
        FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE,
    ADD CONSTRAINT inbox_sequences_subscriber_id_fkey
        FOREIGN KEY (subscriber_id) REFERENCES subscribers (id) ON DELETE CASCADE;
ALTER TABLE inbox_events
    ADD CONSTRAINT inbox_events_environment_id_subscriber_id_fkey
        FOREIGN KEY (environment_id, subscriber_id) REFERENCES inbox_sequences ON DELETE CASCADE;
