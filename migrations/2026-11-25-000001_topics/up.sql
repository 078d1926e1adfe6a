-- Topics: named groups of subscribers a trigger can address as one recipient (`{type: "Topic", topicKey}`).
CREATE TABLE topics (
    id              uuid PRIMARY KEY,
    environment_id  uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    key             text NOT NULL CHECK (key ~ '^[A-Za-z0-9_:.@-]{1,100}$'),
    name            text NOT NULL CHECK (char_length(name) <= 100),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX topics_environment_key ON topics (environment_id, key);

-- Membership. The primary key is the fan-out's keyset: a topic's members in subscriber id order.
-- `created_at` defines the membership snapshot a trigger reaches (created at or before its acceptance).
-- `external_subscriber_id` is the subscriber's own (immutable) subscriberId, so member listings and the
-- fan-out's `to` need no join.
CREATE TABLE topic_subscribers (
    topic_id               uuid NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
    subscriber_id          uuid NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    environment_id         uuid NOT NULL,
    external_subscriber_id text NOT NULL,
    created_at             timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (topic_id, subscriber_id)
);
-- A subscriber's topics (the `topics` field of subscriber answers).
CREATE INDEX topic_subscribers_subscriber_idx ON topic_subscribers (subscriber_id);

-- The fan-out queue of triggers that name topics: written by the trigger in the transaction that stores
-- it (so an acknowledged trigger's topics are never lost), claimed by workers like jobs (FOR UPDATE SKIP
-- LOCKED, a lease in run_at), expanded page by page; `after_subscriber_id` is the keyset cursor, advanced
-- in the transaction that inserts the page's notifications.
CREATE TABLE topic_fanouts (
    id                  uuid PRIMARY KEY,
    environment_id      uuid NOT NULL,
    organization_id     uuid NOT NULL,
    transaction_id      text NOT NULL,
    topic_keys          text[] NOT NULL,
    -- subscriberIds excluded besides the actor (the trigger's `exclude`).
    exclude             text[] NOT NULL DEFAULT '{}',
    -- The notification and jobs every member gets, as of the trigger (workflow steps, payload, actor …).
    template            jsonb NOT NULL,
    accepted_at         timestamptz NOT NULL,
    after_subscriber_id uuid,
    status              text NOT NULL CHECK (status IN ('queued', 'running', 'completed')),
    run_at              timestamptz NOT NULL,
    lease_owner         text,
    attempts            integer NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX topic_fanouts_due_idx ON topic_fanouts (run_at) WHERE status IN ('queued', 'running');
CREATE INDEX topic_fanouts_environment_transaction_idx ON topic_fanouts (environment_id, transaction_id);

-- One notification per (trigger, subscriber), enforced by the database: a member reached through two
-- topics, or named directly too, or re-expanded after a crash, is inserted once (ON CONFLICT DO NOTHING).
-- It replaces the (environment_id, transaction_id) index, which it serves as well.
DROP INDEX notifications_environment_transaction_idx;
CREATE UNIQUE INDEX notifications_transaction_subscriber_key
    ON notifications (environment_id, transaction_id, subscriber_id);
