ALTER TABLE jobs ADD COLUMN payload jsonb NOT NULL DEFAULT '{}', ADD COLUMN overrides jsonb NOT NULL DEFAULT '{}';
UPDATE jobs AS j SET payload = n.payload, overrides = n.overrides FROM notifications AS n WHERE n.id = j.notification_id;
