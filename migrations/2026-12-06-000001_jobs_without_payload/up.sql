-- Jobs no longer copy their notification's payload and overrides: the worker reads them with the
-- notification it loads for every claimed batch anyway (`steps::context`), the activity API with the
-- job's notification, a digest's events from the notifications merged into it. The copies were written
-- with every job and again by every update of its row (PostgreSQL writes whole row versions), once per
-- step of every recipient, and sent and parsed at every claim: with a payload of a kilobyte, two
-- kilobytes of heap and WAL a one-step trigger delivered, more with every step. Nothing ever wrote a job's
-- copy apart from its notification's.
ALTER TABLE jobs DROP COLUMN payload, DROP COLUMN overrides;
