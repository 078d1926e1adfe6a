-- Reverse of up.sql: tables in reverse dependency order (their indexes go with them).
DROP TABLE idempotency_keys;
DROP TABLE provider_deliveries;
DROP TABLE messages;
DROP TABLE execution_details;
DROP TABLE jobs;
DROP TABLE trigger_transactions;
DROP TABLE notifications;
DROP TABLE subscriber_preferences;
DROP TABLE workflow_steps;
DROP TABLE workflows;
DROP TABLE integrations;
DROP TABLE tenants;
DROP TABLE subscribers;
-- pg_trgm is left installed: it is database-wide, other schemas (per-test schemas) may use it, and
-- up.sql creates it only if missing.
