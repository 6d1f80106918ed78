-- The audit writer publishes each audit entry it stores as an `audit` stream event on warden.events, in the same
-- transaction as the entry's row (issue 18, docs/events.md "Audit events travel in batches"). What it has published,
-- so that an entry is published once whichever writer stores it and however a writer dies. One row, locked by the
-- writer that publishes (one at a time):
--   events_offset: the warden.events offset of the last batch whose entries `marks` counts (-1: none yet); a batch
--     published after it whose transaction never committed is found by reading the topic from there;
--   marks: per warden.audit partition p, at index p + 1, the offset after the last entry published (missing: 0).
CREATE TABLE audit_event_publisher (
    id            integer  PRIMARY KEY CHECK (id = 1),
    events_offset bigint   NOT NULL,
    marks         bigint[] NOT NULL
);

INSERT INTO audit_event_publisher (id, events_offset, marks) VALUES (1, -1, '{}');
