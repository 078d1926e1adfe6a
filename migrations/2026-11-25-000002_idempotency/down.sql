DROP TABLE api_processes;
ALTER TABLE idempotency_keys
    DROP COLUMN response_trailers,
    DROP COLUMN response_headers,
    DROP COLUMN response_body,
    ADD COLUMN response_body jsonb;
