-- Domain schema: subscribers, preferences, tenants, integrations, workflows, the trigger/engine tables
-- (notifications, jobs, execution details, messages, provider deliveries) and idempotency keys.
--
-- Conventions: ids are UUIDv7 chosen by the application (no DB default, so ids sort in creation order);
-- every table carries environment_id (FK, ON DELETE CASCADE) and organization_id where the API returns
-- `_organizationId`; closed value sets are CHECK constraints; `updated_at` is set by the application.
-- Constraint and index names are stable: the application maps unique violations by name.
--
-- Partial indexes: a query must spell the index predicate as SQL literals (diesel: `not(deleted)`, or a
-- `sql` fragment such as "status IN ('pending', …)"), never as bind parameters. A cached prepared statement
-- switches to a generic plan after five runs, and a generic plan cannot prove a bound predicate: SELECTs
-- then skip the index, and ON CONFLICT … WHERE fails outright ("no unique or exclusion constraint
-- matching the ON CONFLICT specification").

-- Trigram indexes serve the case-sensitive substring search of subscribers (LIKE '%…%'): trigrams are
-- case-folded, so the index yields candidates and the heap recheck applies the exact, case-sensitive LIKE.
-- Installed in `public` and named with its schema, so the migration also runs with a search_path that
-- holds only a per-test schema (extensions are per database, not per schema).
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- Subscribers: the end users notifications go to. `subscriber_id` is the client's own id; soft-deleted rows
-- stay (their messages and events are kept), so the id is unique only among rows that are not deleted.
CREATE TABLE subscribers (
    id              uuid PRIMARY KEY,
    environment_id  uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    subscriber_id   text NOT NULL CHECK (subscriber_id <> ''),
    first_name      text,
    last_name       text,
    email           text,
    phone           text,
    avatar          text,
    locale          text,
    timezone        text,
    data            jsonb CHECK (data IS NULL OR jsonb_typeof(data) = 'object'),
    -- array of ChannelSettings {providerId, integrationIdentifier?, _integrationId, credentials}
    channels        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(channels) = 'array'),
    is_online       boolean,
    last_online_at  timestamptz,
    -- `__v`: incremented on every change
    version         integer NOT NULL DEFAULT 0 CHECK (version >= 0),
    deleted         boolean NOT NULL DEFAULT false,
    deleted_at      timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    -- The `name` search target ("firstName lastName", no stray space when one part is missing).
    -- Generated: never insert or update it; filter with `full_name LIKE '%…%'` so the trigram index applies.
    full_name       text GENERATED ALWAYS AS (
                        CASE
                            WHEN first_name IS NULL THEN last_name
                            WHEN last_name IS NULL THEN first_name
                            ELSE first_name || ' ' || last_name
                        END) STORED
);

-- One live subscriber per client id; also the arbiter of recipient upserts
-- (ON CONFLICT (environment_id, subscriber_id) WHERE NOT deleted).
CREATE UNIQUE INDEX subscribers_environment_subscriber_id_key
    ON subscribers (environment_id, subscriber_id) WHERE NOT deleted;
-- Cursor paging of the search by _id / createdAt / updatedAt, both directions (btree scans either way).
CREATE INDEX subscribers_environment_id_idx
    ON subscribers (environment_id, id) WHERE NOT deleted;
CREATE INDEX subscribers_environment_created_idx
    ON subscribers (environment_id, created_at, id) WHERE NOT deleted;
CREATE INDEX subscribers_environment_updated_idx
    ON subscribers (environment_id, updated_at, id) WHERE NOT deleted;
-- Substring filters of the search (email, phone, subscriberId, name).
CREATE INDEX subscribers_email_trgm_idx
    ON subscribers USING gin (email public.gin_trgm_ops) WHERE NOT deleted;
CREATE INDEX subscribers_phone_trgm_idx
    ON subscribers USING gin (phone public.gin_trgm_ops) WHERE NOT deleted;
CREATE INDEX subscribers_subscriber_id_trgm_idx
    ON subscribers USING gin (subscriber_id public.gin_trgm_ops) WHERE NOT deleted;
CREATE INDEX subscribers_full_name_trgm_idx
    ON subscribers USING gin (full_name public.gin_trgm_ops) WHERE NOT deleted;
-- Exact lookups by client id and by email for the events listing filters (`subscriberIds`, `emails`);
-- not partial, because events of deleted subscribers are still listed.
CREATE INDEX subscribers_environment_subscriber_id_all_idx
    ON subscribers (environment_id, subscriber_id);
CREATE INDEX subscribers_environment_email_idx
    ON subscribers (environment_id, email) WHERE email IS NOT NULL;

-- Tenants: tenant context of a trigger (string → must exist, object → upsert).
CREATE TABLE tenants (
    id              uuid PRIMARY KEY,
    environment_id  uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    identifier      text NOT NULL CHECK (identifier <> ''),
    name            text,
    data            jsonb CHECK (data IS NULL OR jsonb_typeof(data) = 'object'),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT tenants_environment_identifier_key UNIQUE (environment_id, identifier)
);

-- Integrations: provider connections per channel. Credentials are an AEAD ciphertext (nonce || ct) under
-- the server key; soft delete keeps the row but it is never used for delivery again.
CREATE TABLE integrations (
    id                          uuid PRIMARY KEY,
    environment_id              uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id             uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    provider_id                 text NOT NULL,
    channel                     text NOT NULL CHECK (channel IN ('in_app', 'email', 'sms', 'chat', 'push')),
    name                        text NOT NULL,
    identifier                  text NOT NULL CHECK (identifier <> ''),
    credentials_encrypted       bytea NOT NULL,
    active                      boolean NOT NULL DEFAULT false,
    is_primary                  boolean NOT NULL DEFAULT false,
    conditions                  jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(conditions) = 'array'),
    inbound_webhook_enabled     boolean NOT NULL DEFAULT false,
    inbound_webhook_signing_key text NOT NULL,
    deleted                     boolean NOT NULL DEFAULT false,
    deleted_at                  timestamptz,
    deleted_by                  text,
    created_at                  timestamptz NOT NULL DEFAULT now(),
    updated_at                  timestamptz NOT NULL DEFAULT now(),
    -- Only email and sms integrations can be primary (contract).
    CONSTRAINT integrations_primary_channel_check CHECK (NOT is_primary OR channel IN ('email', 'sms'))
);

CREATE UNIQUE INDEX integrations_environment_identifier_key
    ON integrations (environment_id, identifier) WHERE NOT deleted;
-- At most one primary per channel per environment. set-primary clears the old primary and sets the new one
-- in one transaction (clear first); a concurrent set-primary loses with a unique violation instead of
-- leaving two primaries.
CREATE UNIQUE INDEX integrations_one_primary_per_channel_key
    ON integrations (environment_id, channel) WHERE is_primary AND NOT deleted;
-- GET /v1/integrations/active lists the whole organization's active integrations.
CREATE INDEX integrations_organization_active_idx
    ON integrations (organization_id, created_at) WHERE active AND NOT deleted;
-- Environment listing (delete returns the remaining ones), delivery choice by channel, credential lookups by
-- providerId.
CREATE INDEX integrations_environment_channel_idx
    ON integrations (environment_id, channel, created_at) WHERE NOT deleted;
CREATE INDEX integrations_environment_provider_idx
    ON integrations (environment_id, provider_id) WHERE NOT deleted;

-- Workflows (v2). `identifier` is both the workflowId and the trigger identifier (triggers[0].identifier),
-- so there is no separate trigger column that could drift; the slug `<identifier>_wf_<id>` is derived.
CREATE TABLE workflows (
    id                     uuid PRIMARY KEY,
    environment_id         uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id        uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    identifier             text NOT NULL CHECK (identifier <> ''),
    name                   text NOT NULL,
    description            text,
    tags                   text[] NOT NULL DEFAULT '{}',
    active                 boolean NOT NULL DEFAULT false,
    validate_payload       boolean NOT NULL DEFAULT false,
    payload_schema         jsonb,
    is_translation_enabled boolean NOT NULL DEFAULT false,
    critical               boolean NOT NULL DEFAULT false,
    preferences            jsonb NOT NULL DEFAULT '{}',
    origin                 text NOT NULL CHECK (origin IN ('svc-cloud', 'svc-cloud-v1', 'external')),
    severity               text NOT NULL DEFAULT 'none' CHECK (severity IN ('high', 'medium', 'low', 'none')),
    status                 text NOT NULL DEFAULT 'INACTIVE' CHECK (status IN ('ACTIVE', 'INACTIVE', 'ERROR')),
    -- map of name → runtime issue
    issues                 jsonb NOT NULL DEFAULT '{}',
    last_triggered_at      timestamptz,
    last_published_at      timestamptz,
    deleted                boolean NOT NULL DEFAULT false,
    deleted_at             timestamptz,
    deleted_by             text,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);

-- Trigger lookup by name and PUT by identifier.
CREATE UNIQUE INDEX workflows_environment_identifier_key
    ON workflows (environment_id, identifier) WHERE NOT deleted;
-- Listing (e.g. the per-workflow preferences of a subscriber).
CREATE INDEX workflows_environment_id_idx
    ON workflows (environment_id, id) WHERE NOT deleted;

-- Workflow steps, in order. `id` is the step `_id`, `step_id` the API's stable string id; both survive a
-- PUT for steps the request names. Steps are replaced on PUT in one transaction, so the position
-- constraint is deferred to commit (reordering never trips it mid-way); step ids stay immediate so they can
-- serve as an ON CONFLICT arbiter. Jobs keep a snapshot of their step, so history survives edits.
CREATE TABLE workflow_steps (
    id                  uuid PRIMARY KEY,
    workflow_id         uuid NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    environment_id      uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    position            integer NOT NULL CHECK (position >= 0),
    step_id             text NOT NULL CHECK (step_id <> ''),
    name                text NOT NULL,
    type                text NOT NULL
                        CHECK (type IN ('in_app', 'email', 'sms', 'chat', 'push', 'digest', 'delay', 'custom')),
    control_values      jsonb NOT NULL DEFAULT '{}',
    filters             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(filters) = 'array'),
    should_stop_on_fail boolean NOT NULL DEFAULT false,
    active              boolean NOT NULL DEFAULT true,
    issues              jsonb NOT NULL DEFAULT '{}',
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT workflow_steps_workflow_position_key UNIQUE (workflow_id, position) DEFERRABLE INITIALLY DEFERRED,
    CONSTRAINT workflow_steps_workflow_step_id_key UNIQUE (workflow_id, step_id)
);

-- Subscriber preferences: one row per (subscriber, workflow), workflow NULL = global. NULLS NOT DISTINCT
-- (PostgreSQL 15) makes the global row unique too, and lets one plain constraint be the upsert arbiter:
-- ON CONFLICT (subscriber_id, workflow_id).
CREATE TABLE subscriber_preferences (
    id             uuid PRIMARY KEY,
    environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    subscriber_id  uuid NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    workflow_id    uuid REFERENCES workflows (id) ON DELETE CASCADE,
    enabled        boolean NOT NULL DEFAULT true,
    -- channel flags {email?, sms?, in_app?, chat?, push?}
    channels       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(channels) = 'object'),
    -- weekly schedule; used on the global row
    schedule       jsonb CHECK (schedule IS NULL OR jsonb_typeof(schedule) = 'object'),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT subscriber_preferences_subscriber_workflow_key UNIQUE NULLS NOT DISTINCT (subscriber_id, workflow_id)
);

-- Cascade from a workflow's removal.
CREATE INDEX subscriber_preferences_workflow_idx
    ON subscriber_preferences (workflow_id) WHERE workflow_id IS NOT NULL;

-- Notification events: one per (trigger, subscriber). The events listing is newest first within a time
-- window, filtered by channels, templates, subscribers (ids or emails), severity and transactionId.
CREATE TABLE notifications (
    id                       uuid PRIMARY KEY,
    environment_id           uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id          uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workflow_id              uuid NOT NULL REFERENCES workflows (id),
    subscriber_id            uuid NOT NULL REFERENCES subscribers (id),
    transaction_id           text NOT NULL,
    payload                  jsonb NOT NULL DEFAULT '{}',
    overrides                jsonb NOT NULL DEFAULT '{}',
    actor_subscriber_id      uuid REFERENCES subscribers (id),
    tenant_id                uuid REFERENCES tenants (id) ON DELETE SET NULL,
    tags                     text[] NOT NULL DEFAULT '{}',
    controls                 jsonb NOT NULL DEFAULT '{}',
    -- the recipient as given in `to`
    to_recipient             jsonb NOT NULL DEFAULT '{}',
    -- job types the event has (trigger plus one per active step): the `channels` filter
    channels                 text[] NOT NULL DEFAULT '{}'
                             CHECK (channels <@ ARRAY['in_app', 'email', 'sms', 'chat', 'push', 'digest',
                                                      'trigger', 'delay', 'custom']::text[]),
    severity                 text NOT NULL DEFAULT 'none' CHECK (severity IN ('high', 'medium', 'low', 'none')),
    critical                 boolean NOT NULL DEFAULT false,
    digested_notification_id uuid REFERENCES notifications (id) ON DELETE SET NULL,
    created_at               timestamptz NOT NULL DEFAULT now(),
    updated_at               timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX notifications_environment_created_idx
    ON notifications (environment_id, created_at DESC, id DESC);
CREATE INDEX notifications_environment_transaction_idx
    ON notifications (environment_id, transaction_id);
CREATE INDEX notifications_environment_subscriber_created_idx
    ON notifications (environment_id, subscriber_id, created_at DESC, id DESC);
CREATE INDEX notifications_environment_workflow_created_idx
    ON notifications (environment_id, workflow_id, created_at DESC, id DESC);
CREATE INDEX notifications_environment_severity_created_idx
    ON notifications (environment_id, severity, created_at DESC, id DESC);
-- `channels` filter (event has a job of that type): channels && ARRAY[…]
CREATE INDEX notifications_channels_idx
    ON notifications USING gin (channels);
-- Foreign keys that are not otherwise indexed (delete of a digest target / tenant / actor).
CREATE INDEX notifications_digested_notification_idx
    ON notifications (digested_notification_id) WHERE digested_notification_id IS NOT NULL;
CREATE INDEX notifications_tenant_idx
    ON notifications (tenant_id) WHERE tenant_id IS NOT NULL;
CREATE INDEX notifications_actor_idx
    ON notifications (actor_subscriber_id) WHERE actor_subscriber_id IS NOT NULL;

-- Trigger idempotency: transactionId is unique per environment. A trigger to 1,000 recipients stores 1,000
-- notifications with the same transaction id, so the uniqueness lives here: the trigger inserts this row
-- in the same transaction that stores its events, and a repeat fails on the primary key (→ "already used",
-- nothing stored). Rows older than the retention period may be removed (created_at index).
CREATE TABLE trigger_transactions (
    environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    transaction_id text NOT NULL CHECK (transaction_id <> ''),
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (environment_id, transaction_id)
);

CREATE INDEX trigger_transactions_created_idx ON trigger_transactions (created_at);

-- Jobs: the engine's durable queue, one per step of a notification plus its trigger job.
-- Workers claim due jobs with
--   … WHERE status IN ('pending','queued','delayed','running') AND run_at <= now()
--     ORDER BY run_at LIMIT n FOR UPDATE SKIP LOCKED
-- and push run_at forward while running (the lease): a job whose worker died becomes due again.
-- Delays and digest windows are future run_at values.
CREATE TABLE jobs (
    id                        uuid PRIMARY KEY,
    environment_id            uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id           uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    notification_id           uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    subscriber_id             uuid NOT NULL REFERENCES subscribers (id),
    workflow_id               uuid NOT NULL REFERENCES workflows (id),
    -- workflow_steps.id of the step; NULL only for the trigger job. No foreign key: steps are replaced by
    -- a PUT while jobs (and their `step` snapshot) are history.
    step_id                   uuid,
    type                      text NOT NULL
                              CHECK (type IN ('trigger', 'in_app', 'email', 'sms', 'chat', 'push', 'digest',
                                              'delay', 'custom')),
    -- order within the notification (trigger job first, then the steps in workflow order)
    position                  integer NOT NULL CHECK (position >= 0),
    status                    text NOT NULL DEFAULT 'pending'
                              CHECK (status IN ('pending', 'queued', 'running', 'completed', 'failed',
                                                'delayed', 'canceled', 'merged', 'skipped')),
    -- due time; while running, the lease expiry
    run_at                    timestamptz NOT NULL DEFAULT now(),
    lease_owner               text,
    attempts                  integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts              integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
    -- the integration's provider, or 'svc' for internal steps
    provider_id               text NOT NULL DEFAULT 'svc',
    payload                   jsonb NOT NULL DEFAULT '{}',
    overrides                 jsonb NOT NULL DEFAULT '{}',
    -- snapshot of the step definition the job runs
    step                      jsonb NOT NULL DEFAULT '{}',
    -- digest metadata, including the merged events
    digest                    jsonb,
    -- the rendered value of the step's digestKey ('' or NULL when the step has none: both are one key)
    digest_key                text,
    -- set on merged jobs: the digest job (the open window) they were merged into
    digested_into_job_id      uuid REFERENCES jobs (id) ON DELETE SET NULL,
    schedule_extensions_count integer NOT NULL DEFAULT 0 CHECK (schedule_extensions_count >= 0),
    transaction_id            text NOT NULL,
    error                     text,
    created_at                timestamptz NOT NULL DEFAULT now(),
    updated_at                timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT jobs_step_check CHECK (type = 'trigger' OR step_id IS NOT NULL),
    CONSTRAINT jobs_merged_check CHECK (digested_into_job_id IS NULL OR status = 'merged'),
    -- One job per position of a notification: re-running a crashed fan-out with ON CONFLICT DO NOTHING
    -- cannot create a step's job twice. Also serves "the jobs of an event" and "the next job".
    CONSTRAINT jobs_notification_position_key UNIQUE (notification_id, position)
);

-- The claim query's index: only live jobs, ordered by due time. Finished jobs (the vast majority) are not in
-- it. The claim query must list the statuses as literals (see the note at the top), or a subset of them.
CREATE INDEX jobs_due_idx
    ON jobs (run_at) WHERE status IN ('pending', 'queued', 'delayed', 'running');
-- Exactly one open digest window per (environment, workflow, step, subscriber, digestKey value). A digest
-- job opens the window by moving to 'delayed'; a concurrent opener of the same key blocks on the first
-- one's index entry and, once it commits, fails with a unique violation: it then merges into the winner
-- instead (lookups use this same index). The window closes when the job leaves 'delayed' (claimed at
-- run_at, or canceled), after which the next event opens a new window. NULLS NOT DISTINCT: a step without
-- digestKey has one window per subscriber, not one per event. A schedule extension (extendToSchedule)
-- must be decided while the job is still 'delayed' (in the claim, before it becomes 'running'): moving a
-- job back to 'delayed' can collide with a window a newer event opened meanwhile.
CREATE UNIQUE INDEX jobs_open_digest_key
    ON jobs (environment_id, workflow_id, step_id, subscriber_id, digest_key) NULLS NOT DISTINCT
    WHERE type = 'digest' AND status = 'delayed';
-- Backoff digests look back for recent events of the same key (any status).
CREATE INDEX jobs_digest_history_idx
    ON jobs (environment_id, workflow_id, step_id, subscriber_id, digest_key, created_at DESC)
    WHERE type = 'digest';
-- The events merged into a digest job (and the ON DELETE SET NULL of that foreign key).
CREATE INDEX jobs_digested_into_idx
    ON jobs (digested_into_job_id) WHERE digested_into_job_id IS NOT NULL;
-- Cancel by transactionId (pending and delayed jobs).
CREATE INDEX jobs_environment_transaction_idx
    ON jobs (environment_id, transaction_id);

-- Execution details: the log of every stage of a job, shown with the event's jobs.
CREATE TABLE execution_details (
    id              uuid PRIMARY KEY,
    environment_id  uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    job_id          uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    subscriber_id   uuid NOT NULL,
    status          text NOT NULL
                    CHECK (status IN ('Success', 'Warning', 'Failed', 'Pending', 'Queued', 'ReadConfirmation')),
    detail          text NOT NULL,
    source          text NOT NULL CHECK (source IN ('Credentials', 'Internal', 'Payload', 'Webhook')),
    is_retry        boolean NOT NULL DEFAULT false,
    is_test         boolean NOT NULL DEFAULT false,
    provider_id     text,
    raw             text,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX execution_details_notification_created_idx
    ON execution_details (notification_id, created_at);
CREATE INDEX execution_details_job_created_idx
    ON execution_details (job_id, created_at);

-- Messages: what a channel step delivered (or failed to). job_id is UNIQUE: a message is never created twice
-- for one job, whatever crashes and re-runs happen; the writer inserts with ON CONFLICT (job_id) and reuses
-- the existing row. One message per job holds for every channel: a digest is rendered into the following
-- channel steps' single message (merged jobs create none), push to several devices is one message with
-- device_tokens[], retries and snooze re-deliveries update the same row (delivered_at[] grows).
CREATE TABLE messages (
    id                  uuid PRIMARY KEY,
    environment_id      uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    notification_id     uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    job_id              uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    subscriber_id       uuid NOT NULL REFERENCES subscribers (id),
    -- `_templateId`
    workflow_id         uuid REFERENCES workflows (id),
    -- `_messageTemplateId`: the workflow step (no foreign key, steps are replaced on PUT)
    step_id             uuid,
    template_identifier text,
    channel             text NOT NULL CHECK (channel IN ('in_app', 'email', 'sms', 'chat', 'push')),
    transaction_id      text NOT NULL,
    subject             text,
    -- array of EmailBlock or a string
    content             jsonb,
    title               text,
    cta                 jsonb NOT NULL DEFAULT '{}',
    payload             jsonb NOT NULL DEFAULT '{}',
    overrides           jsonb NOT NULL DEFAULT '{}',
    actor               jsonb,
    email               text,
    phone               text,
    direct_webhook_url  text,
    device_tokens       text[] NOT NULL DEFAULT '{}',
    provider_id         text,
    feed_id             uuid,
    status              text NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'error', 'warning')),
    error_id            text,
    error_text          text,
    read                boolean NOT NULL DEFAULT false,
    seen                boolean NOT NULL DEFAULT false,
    last_seen_date      timestamptz,
    last_read_date      timestamptz,
    delivered_at        timestamptz[] NOT NULL DEFAULT '{}',
    snoozed_until       timestamptz,
    context_keys        text[] NOT NULL DEFAULT '{}',
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT messages_job_id_key UNIQUE (job_id)
);

-- Messages listing: newest first, optionally by channel, subscriber (with or without channel) and
-- transactionId[]; the subscriber/channel index also serves an in-app feed.
CREATE INDEX messages_environment_created_idx
    ON messages (environment_id, created_at DESC, id DESC);
CREATE INDEX messages_environment_channel_created_idx
    ON messages (environment_id, channel, created_at DESC, id DESC);
CREATE INDEX messages_environment_subscriber_created_idx
    ON messages (environment_id, subscriber_id, created_at DESC, id DESC);
CREATE INDEX messages_environment_subscriber_channel_created_idx
    ON messages (environment_id, subscriber_id, channel, created_at DESC, id DESC);
CREATE INDEX messages_environment_transaction_idx
    ON messages (environment_id, transaction_id);
-- An event's messages, and the cascade when events expire.
CREATE INDEX messages_notification_idx ON messages (notification_id);

-- Provider deliveries: one row per outbound call attempt (provider send, custom-step webhook) of a job.
-- Why: a message row alone cannot tell "the provider accepted it, then we crashed before completing the
-- job" from "we crashed before calling". The worker commits a 'started' row BEFORE calling the provider
-- and records the outcome after. The partial unique index allows at most one attempt per job that is
-- in flight, accepted or in doubt; only a definite failure ('failed') frees the job for another attempt.
-- A re-run that finds a 'started' row of a dead worker marks it 'unknown' and does not send again (the
-- message gets status warning), so nothing is delivered twice, even with several server processes.
CREATE TABLE provider_deliveries (
    id                  uuid PRIMARY KEY,
    environment_id      uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    job_id              uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    message_id          uuid REFERENCES messages (id) ON DELETE CASCADE,
    attempt             integer NOT NULL CHECK (attempt >= 1),
    provider_id         text NOT NULL,
    status              text NOT NULL DEFAULT 'started'
                        CHECK (status IN ('started', 'accepted', 'failed', 'unknown')),
    -- the provider's id for the accepted message, if it returns one
    provider_message_id text,
    error               text,
    raw                 text,
    started_at          timestamptz NOT NULL DEFAULT now(),
    finished_at         timestamptz,
    CONSTRAINT provider_deliveries_job_attempt_key UNIQUE (job_id, attempt)
);

CREATE UNIQUE INDEX provider_deliveries_one_live_attempt_key
    ON provider_deliveries (job_id) WHERE status IN ('started', 'accepted', 'unknown');
CREATE INDEX provider_deliveries_message_idx
    ON provider_deliveries (message_id) WHERE message_id IS NOT NULL;

-- Idempotency keys (the `idempotency-key` header): the first request stores its hash with no response
-- (in progress); it stores the response when done. A repeat with the same hash replays the response, a
-- different hash is a conflict. Rows expire (expires_at index for the cleanup).
CREATE TABLE idempotency_keys (
    environment_id  uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    key             text NOT NULL,
    -- hash of method, path and body
    request_hash    bytea NOT NULL,
    -- NULL while the first request is in progress
    response_status integer CHECK (response_status IS NULL OR response_status BETWEEN 100 AND 599),
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (environment_id, key)
);

CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
