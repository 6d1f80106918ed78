-- The append-only audit log, range-partitioned by month on ts. Retention (if any) drops whole monthly
-- partitions (DETACH PARTITION then DROP TABLE); rows are never updated or deleted.

CREATE TABLE audit_events (
    id          text             NOT NULL,
    agent_id    text             NOT NULL,
    user_id     text,
    caller_id   text             NOT NULL,
    action      text             NOT NULL,
    resource    text             NOT NULL,
    parameters  jsonb            NOT NULL,
    result      text             NOT NULL CHECK (result IN ('allowed', 'denied', 'rate_limited')),
    reason      text,
    duration_ms double precision NOT NULL,
    tokens_cost bigint           NOT NULL,
    ts          timestamptz      NOT NULL,
    ip          text,
    user_agent  text,
    PRIMARY KEY (id, ts)
) PARTITION BY RANGE (ts);

CREATE INDEX audit_events_ts_idx     ON audit_events (ts DESC, id DESC);
CREATE INDEX audit_events_agent_idx  ON audit_events (agent_id, ts DESC);
CREATE INDEX audit_events_user_idx   ON audit_events (user_id, ts DESC);
CREATE INDEX audit_events_action_idx ON audit_events (action, ts DESC);
CREATE INDEX audit_events_result_idx ON audit_events (result, ts DESC);

-- Append-only, enforced by the database for every role (triggers fire for superusers too).
CREATE FUNCTION audit_events_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER audit_events_no_update_delete
    BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM PUBLIC;

-- Creates the partition of the month containing `month` (idempotent), with its own TRUNCATE guard
-- (TRUNCATE triggers cannot be put on a partitioned table itself).
CREATE FUNCTION warden_ensure_audit_partition(month date) RETURNS void AS $$
DECLARE
    first_day date := date_trunc('month', month)::date;
    name text := format('audit_events_y%sm%s', to_char(first_day, 'YYYY'), to_char(first_day, 'MM'));
BEGIN
    IF to_regclass(format('%I.%I', current_schema(), name)) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF audit_events FOR VALUES FROM (%L) TO (%L)',
                       name, first_day, (first_day + interval '1 month')::date);
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT '
                       'EXECUTE FUNCTION audit_events_append_only()', name || '_no_truncate', name);
        EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM PUBLIC', name);
    END IF;
END;
$$ LANGUAGE plpgsql;

-- Rows outside every monthly partition (clock skew, far past) still land somewhere.
CREATE TABLE audit_events_default PARTITION OF audit_events DEFAULT;
CREATE TRIGGER audit_events_default_no_truncate BEFORE TRUNCATE ON audit_events_default
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

-- Offsets of each sink, stored in the same transaction as the rows they cover (exactly-once).
CREATE TABLE sink_offsets (
    sink        text        NOT NULL,
    topic       text        NOT NULL,
    partition   integer     NOT NULL,
    next_offset bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (sink, topic, partition)
);
