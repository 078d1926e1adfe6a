ALTER TABLE topic_fanouts DROP COLUMN recipients;
