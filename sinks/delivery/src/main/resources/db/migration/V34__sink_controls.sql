-- What the administrator asked of each external audit sink (docs/audit-sinks.md): paused or running, and the latest
-- replay (a time to re-send from; each replay a new generation, applied once by the sink's worker).
CREATE TABLE sink_controls (
    sink              text        PRIMARY KEY,
    paused            boolean     NOT NULL DEFAULT false,
    replay_generation bigint      NOT NULL DEFAULT 0,
    replay_from       timestamptz,
    updated_at        timestamptz NOT NULL,
    updated_by        text        NOT NULL
);
