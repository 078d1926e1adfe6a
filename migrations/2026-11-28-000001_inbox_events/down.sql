DROP TABLE inbox_events;
DROP TABLE inbox_sequences;
