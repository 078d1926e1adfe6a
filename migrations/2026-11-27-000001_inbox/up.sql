-- The subscriber inbox (issue 19, part 1).

-- A public per-environment identifier: the inbox session names its environment with it (it is not a
-- secret; the API key stays one). Existing environments get one here; the default keeps rows that
-- an operator inserts by hand valid. 122 random bits, the format Herald generates for new ones.
ALTER TABLE environments
    ADD COLUMN application_identifier text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');
ALTER TABLE environments ADD CONSTRAINT environments_application_identifier_key UNIQUE (application_identifier);

-- The API key encrypted with the credential cipher (nonce || ciphertext), beside its hash, so that a
-- session's subscriberHash (HMAC-SHA256 of the subscriberId keyed with the API key) can be checked.
-- NULL for keys created before this migration: only their hash was ever stored.
ALTER TABLE api_keys ADD COLUMN key_encrypted bytea;

-- When the subscriber archived the in-app message; NULL when not archived.
ALTER TABLE messages ADD COLUMN archived_at timestamptz;
