ALTER TABLE execution_details
    ADD CONSTRAINT execution_details_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE,
    ADD CONSTRAINT execution_details_notification_id_fkey
        FOREIGN KEY (notification_id) REFERENCES notifications (id) ON DELETE CASCADE;
ALTER TABLE messages
    ADD CONSTRAINT messages_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE,
    ADD CONSTRAINT messages_notification_id_fkey
        FOREIGN KEY (notification_id) REFERENCES notifications (id) ON DELETE CASCADE;
