ALTER TABLE jobs ADD COLUMN step jsonb NOT NULL DEFAULT '{}';
UPDATE jobs AS j SET step = s.step FROM step_snapshots AS s WHERE s.id = j.step_snapshot_id;
ALTER TABLE jobs DROP COLUMN step_snapshot_id;
DROP TABLE step_snapshots;
