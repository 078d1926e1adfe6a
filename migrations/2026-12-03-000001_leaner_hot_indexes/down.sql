CREATE INDEX execution_details_notification_created_idx
    ON execution_details (notification_id, created_at);
ALTER TABLE execution_details ADD PRIMARY KEY (id);
CREATE INDEX messages_environment_subscriber_created_idx
    ON messages (environment_id, subscriber_id, created_at DESC, id DESC);
DROP INDEX notifications_environment_severity_created_idx;
CREATE INDEX notifications_environment_severity_created_idx
    ON notifications (environment_id, severity, created_at DESC, id DESC);
CREATE INDEX jobs_environment_transaction_idx
    ON jobs (environment_id, transaction_id);
