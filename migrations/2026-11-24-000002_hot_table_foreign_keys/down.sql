ALTER TABLE provider_deliveries
    ADD CONSTRAINT provider_deliveries_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE;

ALTER TABLE messages
    ADD CONSTRAINT messages_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE,
    ADD CONSTRAINT messages_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
    ADD CONSTRAINT messages_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers (id),
    ADD CONSTRAINT messages_workflow_id_fkey FOREIGN KEY (workflow_id) REFERENCES workflows (id);

ALTER TABLE execution_details
    ADD CONSTRAINT execution_details_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE;

ALTER TABLE jobs
    ADD CONSTRAINT jobs_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE,
    ADD CONSTRAINT jobs_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
    ADD CONSTRAINT jobs_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers (id),
    ADD CONSTRAINT jobs_workflow_id_fkey FOREIGN KEY (workflow_id) REFERENCES workflows (id);

ALTER TABLE trigger_transactions
    ADD CONSTRAINT trigger_transactions_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE;

CREATE INDEX notifications_tenant_idx ON notifications (tenant_id) WHERE tenant_id IS NOT NULL;
CREATE INDEX notifications_actor_idx ON notifications (actor_subscriber_id) WHERE actor_subscriber_id IS NOT NULL;
ALTER TABLE notifications
    ADD CONSTRAINT notifications_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE,
    ADD CONSTRAINT notifications_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
    ADD CONSTRAINT notifications_workflow_id_fkey FOREIGN KEY (workflow_id) REFERENCES workflows (id),
    ADD CONSTRAINT notifications_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers (id),
    ADD CONSTRAINT notifications_actor_subscriber_id_fkey FOREIGN KEY (actor_subscriber_id) REFERENCES subscribers (id),
    ADD CONSTRAINT notifications_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id) ON DELETE SET NULL;
