-- The W3C traceparent of the request that triggered a job, so that the job's span continues that
-- request's trace (trigger -> steps -> provider calls). NULL when tracing was off at the trigger.
-- A nullable column without a default: adding it rewrites nothing.
ALTER TABLE jobs ADD COLUMN traceparent text;
