-- Idempotency keys are written with every keyed trigger (the official SDKs send a key with each call), in
-- the trigger's batch: their foreign key to environments cost a `SELECT 1 … FOR KEY SHARE` of the
-- environment row per key, which every concurrent batch of the environment locks (5 µs a key in
-- `pg_stat_statements`, and multixacts on the shared row), for the reason the hot tables' keys went
-- (2026-11-24-000002): no code deletes an environment, and the environment id is the authenticated
-- caller's. Expired keys are swept by `expires_at`.
--
-- A keyed trigger's row now keeps the trigger's outcome alone (`trigger_outcome`), no rendered answer:
-- a retry is answered from the outcome by the same handler (src/idempotency/mod.rs).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_environment_id_fkey;
