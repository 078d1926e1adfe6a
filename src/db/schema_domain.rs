//! Diesel table definitions of the domain tables (migration `2026-11-21-000002_domain`).
//!
//! Kept in the column order of the SQL. `schema` re-exports everything here next to the tenancy tables.
//! Columns named `type` in SQL are `type_` here (what `diesel print-schema` emits).
//! Several tables have more than 16 columns (`messages` 37): diesel needs its `64-column-tables` feature.
//! Queries on partial indexes spell the index predicate as SQL, not binds (see the migration's header).

use super::schema::{api_keys, environments, organizations};

diesel::table! {
    /// End users. `subscriber_id` is the client's id, unique per environment among rows not deleted.
    /// Upsert with `.on_conflict((environment_id, subscriber_id)).filter_target(dsl::not(deleted))`:
    /// the predicate must be SQL, not a bind (`deleted.eq(false)` breaks once the statement is cached).
    subscribers (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        subscriber_id -> Text,
        first_name -> Nullable<Text>,
        last_name -> Nullable<Text>,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        avatar -> Nullable<Text>,
        locale -> Nullable<Text>,
        timezone -> Nullable<Text>,
        data -> Nullable<Jsonb>,
        /// Array of ChannelSettings.
        channels -> Jsonb,
        is_online -> Nullable<Bool>,
        last_online_at -> Nullable<Timestamptz>,
        /// `__v`.
        version -> Int4,
        deleted -> Bool,
        deleted_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        /// GENERATED ALWAYS ("firstName lastName"): read and filter only, never insert or update it.
        /// The `name` search filters `full_name LIKE '%…%'` so the trigram index applies.
        full_name -> Nullable<Text>,
    }
}

diesel::table! {
    /// Tenant context of triggers; `identifier` unique per environment.
    tenants (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        identifier -> Text,
        name -> Nullable<Text>,
        data -> Nullable<Jsonb>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    /// Provider connections. One primary per (environment, channel) among rows not deleted, enforced by
    /// the unique index `integrations_one_primary_per_channel_key`; only email and sms can be primary.
    integrations (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        provider_id -> Text,
        channel -> Text,
        name -> Text,
        identifier -> Text,
        /// AEAD ciphertext: nonce || ciphertext of the credentials JSON.
        credentials_encrypted -> Bytea,
        active -> Bool,
        /// `primary` in the API.
        is_primary -> Bool,
        conditions -> Jsonb,
        inbound_webhook_enabled -> Bool,
        inbound_webhook_signing_key -> Text,
        deleted -> Bool,
        deleted_at -> Nullable<Timestamptz>,
        deleted_by -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    /// Workflows (v2). `identifier` is the workflowId and the trigger identifier.
    workflows (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        identifier -> Text,
        name -> Text,
        description -> Nullable<Text>,
        tags -> Array<Text>,
        active -> Bool,
        validate_payload -> Bool,
        payload_schema -> Nullable<Jsonb>,
        is_translation_enabled -> Bool,
        critical -> Bool,
        preferences -> Jsonb,
        origin -> Text,
        severity -> Text,
        status -> Text,
        issues -> Jsonb,
        last_triggered_at -> Nullable<Timestamptz>,
        last_published_at -> Nullable<Timestamptz>,
        deleted -> Bool,
        deleted_at -> Nullable<Timestamptz>,
        deleted_by -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    /// Steps of a workflow. `(workflow_id, position)` is unique, checked at commit (deferred);
    /// `(workflow_id, step_id)` is unique immediately.
    workflow_steps (id) {
        id -> Uuid,
        workflow_id -> Uuid,
        environment_id -> Uuid,
        position -> Int4,
        step_id -> Text,
        name -> Text,
        #[sql_name = "type"]
        type_ -> Text,
        control_values -> Jsonb,
        filters -> Jsonb,
        should_stop_on_fail -> Bool,
        active -> Bool,
        issues -> Jsonb,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    /// One row per (subscriber, workflow); `workflow_id` NULL is the global preference. The constraint
    /// is UNIQUE NULLS NOT DISTINCT, so `.on_conflict((subscriber_id, workflow_id))` upserts both kinds.
    subscriber_preferences (id) {
        id -> Uuid,
        environment_id -> Uuid,
        subscriber_id -> Uuid,
        workflow_id -> Nullable<Uuid>,
        enabled -> Bool,
        channels -> Jsonb,
        schedule -> Nullable<Jsonb>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    /// Notification events: one per (trigger, subscriber).
    notifications (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        workflow_id -> Uuid,
        subscriber_id -> Uuid,
        transaction_id -> Text,
        payload -> Jsonb,
        overrides -> Jsonb,
        actor_subscriber_id -> Nullable<Uuid>,
        tenant_id -> Nullable<Uuid>,
        tags -> Array<Text>,
        controls -> Jsonb,
        to_recipient -> Jsonb,
        /// Job types of the event; the `channels` filter uses `channels.overlaps_with(…)`.
        channels -> Array<Text>,
        severity -> Text,
        critical -> Bool,
        digested_notification_id -> Nullable<Uuid>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    /// transactionId uniqueness per environment: insert in the trigger's transaction; a primary-key
    /// violation means the id was already used.
    trigger_transactions (environment_id, transaction_id) {
        environment_id -> Uuid,
        transaction_id -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    /// The engine's durable queue. `run_at` is the due time and, while running, the lease expiry.
    jobs (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        notification_id -> Uuid,
        subscriber_id -> Uuid,
        workflow_id -> Uuid,
        /// `workflow_steps.id`; NULL only for the trigger job.
        step_id -> Nullable<Uuid>,
        #[sql_name = "type"]
        type_ -> Text,
        position -> Int4,
        status -> Text,
        run_at -> Timestamptz,
        lease_owner -> Nullable<Text>,
        attempts -> Int4,
        max_attempts -> Int4,
        provider_id -> Text,
        digest -> Nullable<Jsonb>,
        digest_key -> Nullable<Text>,
        digested_into_job_id -> Nullable<Uuid>,
        schedule_extensions_count -> Int4,
        transaction_id -> Text,
        error -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        result -> Nullable<Jsonb>,
        /// W3C `traceparent` of the triggering request: the parent of the job's span.
        traceparent -> Nullable<Text>,
        /// `step_snapshots.id` of the step the job runs.
        step_snapshot_id -> Uuid,
    }
}

diesel::table! {
    /// The step snapshots jobs run with, one row per distinct snapshot (`workflow::SharedSnapshot`).
    step_snapshots (id) {
        id -> Uuid,
        step -> Jsonb,
    }
}

diesel::table! {
    /// Log of every stage of a job.
    execution_details (id) {
        id -> Uuid,
        environment_id -> Uuid,
        job_id -> Uuid,
        notification_id -> Uuid,
        subscriber_id -> Uuid,
        status -> Text,
        detail -> Text,
        source -> Text,
        is_retry -> Bool,
        is_test -> Bool,
        provider_id -> Nullable<Text>,
        raw -> Nullable<Text>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    /// Per-channel messages; `job_id` is unique (one message per job).
    messages (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        notification_id -> Uuid,
        job_id -> Uuid,
        subscriber_id -> Uuid,
        /// `_templateId`.
        workflow_id -> Nullable<Uuid>,
        /// `_messageTemplateId` (the workflow step).
        step_id -> Nullable<Uuid>,
        template_identifier -> Nullable<Text>,
        channel -> Text,
        transaction_id -> Text,
        subject -> Nullable<Text>,
        content -> Nullable<Jsonb>,
        title -> Nullable<Text>,
        cta -> Jsonb,
        payload -> Jsonb,
        overrides -> Jsonb,
        actor -> Nullable<Jsonb>,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        direct_webhook_url -> Nullable<Text>,
        device_tokens -> Array<Text>,
        provider_id -> Nullable<Text>,
        feed_id -> Nullable<Uuid>,
        status -> Text,
        error_id -> Nullable<Text>,
        error_text -> Nullable<Text>,
        read -> Bool,
        seen -> Bool,
        last_seen_date -> Nullable<Timestamptz>,
        last_read_date -> Nullable<Timestamptz>,
        delivered_at -> Array<Timestamptz>,
        snoozed_until -> Nullable<Timestamptz>,
        context_keys -> Array<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        /// The provider's id for the message, once a provider accepted it.
        provider_message_id -> Nullable<Text>,
        /// When the subscriber archived it (inbox); NULL when not archived.
        archived_at -> Nullable<Timestamptz>,
        /// When the subscriber deleted it from the inbox; NULL when not deleted.
        deleted_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    /// Outbound provider call attempts of a job: at most one attempt per job that is started, accepted
    /// or unknown (`provider_deliveries_one_live_attempt_key`); only `failed` allows another.
    provider_deliveries (id) {
        id -> Uuid,
        environment_id -> Uuid,
        job_id -> Uuid,
        message_id -> Nullable<Uuid>,
        attempt -> Int4,
        provider_id -> Text,
        status -> Text,
        provider_message_id -> Nullable<Text>,
        error -> Nullable<Text>,
        raw -> Nullable<Text>,
        started_at -> Timestamptz,
        finished_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    /// Stored answers of requests that carried an `idempotency-key` header; a keyed trigger's outcome
    /// is stored by its batch, its answer just after.
    idempotency_keys (environment_id, key) {
        environment_id -> Uuid,
        key -> Text,
        request_hash -> Bytea,
        response_status -> Nullable<Int4>,
        response_body -> Nullable<Bytea>,
        response_headers -> Nullable<Jsonb>,
        response_trailers -> Nullable<Jsonb>,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        trigger_outcome -> Nullable<Jsonb>,
    }
}

diesel::table! {
    /// Named groups of subscribers; `key` is unique per environment.
    topics (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        key -> Text,
        name -> Text,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    /// Topic membership; `subscriber_id` is the internal id, `external_subscriber_id` the client's.
    topic_subscribers (topic_id, subscriber_id) {
        topic_id -> Uuid,
        subscriber_id -> Uuid,
        environment_id -> Uuid,
        external_subscriber_id -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    /// The durable fan-out of triggers to topics, and of triggers to more than 100 subscribers named
    /// directly (see `engine::fanouts`). The table keeps its first name: renamed, it would fail the
    /// processes of the release before during a rolling upgrade.
    topic_fanouts (id) {
        id -> Uuid,
        environment_id -> Uuid,
        organization_id -> Uuid,
        transaction_id -> Text,
        topic_keys -> Array<Text>,
        exclude -> Array<Text>,
        template -> Jsonb,
        accepted_at -> Timestamptz,
        after_subscriber_id -> Nullable<Uuid>,
        status -> Text,
        run_at -> Timestamptz,
        lease_owner -> Nullable<Text>,
        attempts -> Int4,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        recipients -> Nullable<Jsonb>,
    }
}

diesel::joinable!(subscribers -> environments (environment_id));
diesel::joinable!(subscribers -> organizations (organization_id));
diesel::joinable!(tenants -> environments (environment_id));
diesel::joinable!(tenants -> organizations (organization_id));
diesel::joinable!(integrations -> environments (environment_id));
diesel::joinable!(integrations -> organizations (organization_id));
diesel::joinable!(workflows -> environments (environment_id));
diesel::joinable!(workflows -> organizations (organization_id));
diesel::joinable!(workflow_steps -> workflows (workflow_id));
diesel::joinable!(workflow_steps -> environments (environment_id));
diesel::joinable!(subscriber_preferences -> subscribers (subscriber_id));
diesel::joinable!(subscriber_preferences -> workflows (workflow_id));
diesel::joinable!(subscriber_preferences -> environments (environment_id));
// notifications also reference subscribers through actor_subscriber_id: join that one with an explicit ON.
diesel::joinable!(notifications -> subscribers (subscriber_id));
diesel::joinable!(notifications -> workflows (workflow_id));
diesel::joinable!(notifications -> tenants (tenant_id));
diesel::joinable!(notifications -> environments (environment_id));
diesel::joinable!(notifications -> organizations (organization_id));
diesel::joinable!(trigger_transactions -> environments (environment_id));
diesel::joinable!(topic_subscribers -> topics (topic_id));
diesel::joinable!(topic_subscribers -> subscribers (subscriber_id));
diesel::joinable!(jobs -> notifications (notification_id));
diesel::joinable!(jobs -> subscribers (subscriber_id));
diesel::joinable!(jobs -> workflows (workflow_id));
diesel::joinable!(jobs -> environments (environment_id));
diesel::joinable!(jobs -> organizations (organization_id));
diesel::joinable!(execution_details -> jobs (job_id));
diesel::joinable!(execution_details -> notifications (notification_id));
diesel::joinable!(execution_details -> environments (environment_id));
diesel::joinable!(messages -> notifications (notification_id));
diesel::joinable!(messages -> jobs (job_id));
diesel::joinable!(messages -> subscribers (subscriber_id));
diesel::joinable!(messages -> workflows (workflow_id));
diesel::joinable!(messages -> environments (environment_id));
diesel::joinable!(messages -> organizations (organization_id));
diesel::joinable!(provider_deliveries -> jobs (job_id));
diesel::joinable!(provider_deliveries -> messages (message_id));
diesel::joinable!(provider_deliveries -> environments (environment_id));
diesel::joinable!(idempotency_keys -> environments (environment_id));

// Every pair of domain tables, and each domain table with each tenancy table. The pairs among the
// tenancy tables are declared in `schema`, so they are not repeated here (that would be a conflict).
diesel::allow_tables_to_appear_in_same_query!(
    organizations,
    subscribers,
    topics,
    topic_subscribers,
    topic_fanouts,
    tenants,
    integrations,
    workflows,
    workflow_steps,
    subscriber_preferences,
    notifications,
    trigger_transactions,
    jobs,
    step_snapshots,
    execution_details,
    messages,
    provider_deliveries,
    idempotency_keys,
);

/// Pairs one tenancy table with each domain table (no domain × domain pairs: those are above).
macro_rules! allow_with_domain_tables {
    ($tenancy:ident) => {
        diesel::allow_tables_to_appear_in_same_query!($tenancy, subscribers);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, tenants);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, integrations);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, workflows);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, workflow_steps);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, subscriber_preferences);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, notifications);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, trigger_transactions);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, jobs);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, execution_details);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, messages);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, provider_deliveries);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, idempotency_keys);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, topics);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, topic_subscribers);
        diesel::allow_tables_to_appear_in_same_query!($tenancy, topic_fanouts);
    };
}

allow_with_domain_tables!(environments);
allow_with_domain_tables!(api_keys);
