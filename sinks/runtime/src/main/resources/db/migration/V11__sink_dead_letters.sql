-- Records a sink can never write (docs/errors.md, "Where poison records go"): kept with the error, exactly
-- as they were on the topic, for the administrator to inspect (GET /admin/dead-letters). The Postgres sinks
-- write a dead letter in the same transaction as the offset past its record. Only inserted and read.
CREATE TABLE sink_dead_letters (
    id            bigserial   PRIMARY KEY,
    sink          text        NOT NULL,
    topic         text        NOT NULL,
    partition     integer     NOT NULL,  -- -1 for an external audit sink (no position of its own)
    record_offset bigint      NOT NULL,  -- -1 likewise
    record_key    bytea,
    record_value  bytea,
    error         text        NOT NULL,
    failed_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX sink_dead_letters_sink_failed_at ON sink_dead_letters (sink, failed_at DESC);
