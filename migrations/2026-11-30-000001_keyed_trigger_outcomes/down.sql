ALTER TABLE idempotency_keys DROP COLUMN trigger_outcome;
