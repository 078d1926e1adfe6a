-- Foreign keys from the hot tables (written for every trigger and every step) to the rows many concurrent
-- transactions share: environments, organizations, workflows, subscribers, tenants.
--
-- Each such key costs a `SELECT 1 … FOR KEY SHARE` per inserted row (about eight per one-recipient
-- trigger), and since every concurrent trigger batch of an environment locks the same environment,
-- organization and workflow rows, PostgreSQL turns those locks into multixacts. They protect nothing at
-- run time: no code deletes an environment, organization, workflow or subscriber (workflows and
-- subscribers are soft-deleted), and every id written comes from the same transaction's upsert or from
-- the authenticated environment. The keys that carry deletes stay: notifications → jobs → execution
-- details, messages and provider deliveries cascade (the retention sweep relies on them), and a digest's
-- `digested_notification_id` / `digested_into_job_id` are set to NULL when their target goes.
--
-- `subscribers`' own keys to environments and organizations stay: a subscriber row is written only when
-- it is new or changed. The two indexes that existed only to serve deletes through dropped keys go too.
ALTER TABLE notifications
    DROP CONSTRAINT notifications_environment_id_fkey,
    DROP CONSTRAINT notifications_organization_id_fkey,
    DROP CONSTRAINT notifications_workflow_id_fkey,
    DROP CONSTRAINT notifications_subscriber_id_fkey,
    DROP CONSTRAINT notifications_actor_subscriber_id_fkey,
    DROP CONSTRAINT notifications_tenant_id_fkey;
DROP INDEX notifications_tenant_idx;
DROP INDEX notifications_actor_idx;

ALTER TABLE trigger_transactions DROP CONSTRAINT trigger_transactions_environment_id_fkey;

ALTER TABLE jobs
    DROP CONSTRAINT jobs_environment_id_fkey,
    DROP CONSTRAINT jobs_organization_id_fkey,
    DROP CONSTRAINT jobs_subscriber_id_fkey,
    DROP CONSTRAINT jobs_workflow_id_fkey;

ALTER TABLE execution_details DROP CONSTRAINT execution_details_environment_id_fkey;

ALTER TABLE messages
    DROP CONSTRAINT messages_environment_id_fkey,
    DROP CONSTRAINT messages_organization_id_fkey,
    DROP CONSTRAINT messages_subscriber_id_fkey,
    DROP CONSTRAINT messages_workflow_id_fkey;

ALTER TABLE provider_deliveries DROP CONSTRAINT provider_deliveries_environment_id_fkey;
