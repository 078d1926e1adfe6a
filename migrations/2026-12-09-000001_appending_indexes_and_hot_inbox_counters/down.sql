ALTER TABLE inbox_sequences RESET (fillfactor);

DROP INDEX messages_environment_channel_created_idx;
CREATE INDEX messages_environment_channel_created_idx
    ON messages (environment_id, channel, created_at DESC, id DESC);
DROP INDEX messages_environment_created_idx;
CREATE INDEX messages_environment_created_idx ON messages (environment_id, created_at DESC, id DESC);
DROP INDEX notifications_environment_workflow_created_idx;
CREATE INDEX notifications_environment_workflow_created_idx
    ON notifications (environment_id, workflow_id, created_at DESC, id DESC);
DROP INDEX notifications_environment_created_idx;
CREATE INDEX notifications_environment_created_idx ON notifications (environment_id, created_at DESC, id DESC);
