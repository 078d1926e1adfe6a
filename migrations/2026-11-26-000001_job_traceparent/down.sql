ALTER TABLE jobs DROP COLUMN traceparent;
