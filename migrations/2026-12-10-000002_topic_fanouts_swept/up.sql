-- The retention sweep deletes completed topic fan-outs older than the period (engine::retention):
-- before, every trigger to topics left its fan-out row, with its template, for good. A fan-out enters
-- this index once, when it completes; the page updates before that write no entry to it.
CREATE INDEX topic_fanouts_completed_idx ON topic_fanouts (accepted_at) WHERE status = 'completed';
