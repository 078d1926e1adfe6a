-- The activity list's `channels` filter (channels && ARRAY[…]) had a GIN index the planner does not
-- choose: a page is LIMIT 11 in created_at order, so even for a channel no notification carries it
-- walks notifications_environment_created_idx backward (200,000 notifications: 177–223 ms with the
-- GIN index, 135–215 ms without it, the same plan). A notification's channels are its workflow's, a
-- handful of values, too few for an inverted index to narrow a page much. Every notification paid
-- for it at ingest with an entry per channel in the index's pending list: 2,066–2,073 bytes of WAL
-- per one-recipient trigger stored with it, 1,889–1,893 without (docs/performance.md, "Ingest and
-- delivery measured apart; the channels index dropped").
DROP INDEX notifications_channels_idx;
