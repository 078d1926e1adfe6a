-- What a finished step produced, for the steps after it: a custom step's answer, a channel step's message id
-- and status. The custom step POSTs the results of the steps before it.
ALTER TABLE jobs ADD COLUMN result jsonb;
