ALTER TABLE jobs ADD CONSTRAINT jobs_notification_id_fkey
    FOREIGN KEY (notification_id) REFERENCES notifications (id) ON DELETE CASCADE;
