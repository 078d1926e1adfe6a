-- The inbox's durable event log (issue 19, part 2): what an SSE or gRPC stream replays after a
-- reconnect. One gap-free sequence per subscriber: `inbox_sequences.last_seq` is bumped, and its row
-- locked, in the transaction that changes the subscriber's in-app messages, so sequence order is
-- commit order and a reader that has seen seq n and reads `seq > n` later never skips a row that
-- commits after it looked (a global bigserial is taken before commit and could).
CREATE TABLE inbox_sequences (
    environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    subscriber_id  uuid NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    last_seq       bigint NOT NULL,
    PRIMARY KEY (environment_id, subscriber_id)
);

CREATE TABLE inbox_events (
    environment_id uuid NOT NULL,
    subscriber_id  uuid NOT NULL,
    seq            bigint NOT NULL,
    kind           text NOT NULL CHECK (kind IN ('received', 'changed')),
    -- What changed (`changed` only): read, unread, seen, unseen, archive, unarchive.
    change         text,
    -- No foreign key: the retention sweep deletes old messages and their events independently; an
    -- event whose message is gone is replayed without it.
    message_id     uuid NOT NULL,
    -- The subscriber's unread (and unseen) not archived in-app messages once the transaction that
    -- wrote the event commits.
    unread_count   bigint NOT NULL,
    unseen_count   bigint NOT NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (environment_id, subscriber_id, seq),
    FOREIGN KEY (environment_id, subscriber_id) REFERENCES inbox_sequences ON DELETE CASCADE
);
-- For the retention sweep.
CREATE INDEX inbox_events_created_at_idx ON inbox_events (created_at);
