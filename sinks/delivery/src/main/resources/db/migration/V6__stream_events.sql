-- Persisted stream events for replay (SPEC: Stream event). id = the event's offset in the single-partition
-- warden.events topic, so ids increase strictly in delivery order. Retention deletes old rows (this table,
-- unlike audit_events, is a replay cache, not the audit record).
CREATE TABLE service_stream_events (
    id        bigint      PRIMARY KEY,
    type      text        NOT NULL,
    timestamp timestamptz NOT NULL,
    data      jsonb       NOT NULL,
    agent_id  text,
    user_id   text
);
CREATE INDEX service_stream_events_ts_idx ON service_stream_events (timestamp);
