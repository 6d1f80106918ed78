-- The audit writer publishes each audit entry it stores as an `audit` stream event on warden.events, in the same
-- transaction as the entry's row (issue 18, docs/events.md "Audit events travel in batches"). What it has published,
-- so that an entry is published once whichever writer stores it and however a writer dies:
--   audit_event_marks: per warden.audit partition, the offset after the last entry published;
--   audit_event_publisher: one row, locked by the writer that publishes (one at a time), holding the
--     warden.events offset of the last batch whose marks are recorded here (-1: none yet). A batch published
--     after it but whose transaction never committed is found by reading the topic from there.
CREATE TABLE audit_event_marks (
    audit_partition integer PRIMARY KEY,
    next_offset     bigint  NOT NULL
);

CREATE TABLE audit_event_publisher (
    id            integer PRIMARY KEY CHECK (id = 1),
    events_offset bigint  NOT NULL
);

INSERT INTO audit_event_publisher (id, events_offset) VALUES (1, -1);
