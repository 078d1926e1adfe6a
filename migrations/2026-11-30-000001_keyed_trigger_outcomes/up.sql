-- A keyed trigger is stored by the trigger group commit with its key (issue 17): the batch's
-- transaction writes the key's row with the trigger's outcome (status, errors, transactionId), and the
-- rendered answer follows a moment later. A row with an outcome and no answer is a trigger that was
-- stored: a retry answers that outcome again instead of running anything.
ALTER TABLE idempotency_keys ADD COLUMN trigger_outcome jsonb;
