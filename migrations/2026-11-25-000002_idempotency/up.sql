-- Idempotency keys store the answer byte for byte (issue 17): the body as sent (jsonb would reorder keys
-- and respace it), the answer's headers, and for gRPC its trailers (grpc-status, grpc-message).
ALTER TABLE idempotency_keys
    DROP COLUMN response_body,
    ADD COLUMN response_body bytea,
    ADD COLUMN response_headers jsonb,
    ADD COLUMN response_trailers jsonb;

-- API processes alive on this database: each upserts its row every few seconds, and the rate limiter
-- divides an environment's limit by the number of rows seen recently (see src/rate_limit/processes.rs).
-- Rows of processes that stopped are swept with the other expired rows.
CREATE TABLE api_processes (
    id        uuid PRIMARY KEY,
    last_seen timestamptz NOT NULL
);
