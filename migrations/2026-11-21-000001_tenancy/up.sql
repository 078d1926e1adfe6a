-- Tenancy: every resource belongs to an environment of an organization; API keys act in one environment.

CREATE TABLE organizations (
    id          uuid PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE environments (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name             text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, name)
);

-- Keys are stored only as their SHA-256 hash; the unique index serves the lookup on every request.
CREATE TABLE api_keys (
    id              uuid PRIMARY KEY,
    environment_id  uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    key_hash        bytea NOT NULL UNIQUE,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX api_keys_environment_idx ON api_keys (environment_id);
