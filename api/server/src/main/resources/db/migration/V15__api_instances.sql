-- The heartbeat of API instances (docs/doctor.md): every instance of the api role upserts its row every 15 s,
-- and the security doctor counts the instances seen in the last 60 s. Only adds a table.

CREATE TABLE api_instances (
    -- warden.instance-id of the process
    instance_id text        PRIMARY KEY,
    -- the roles the process runs, comma-separated wire names (api,pipeline,quota,sinks)
    roles       text,
    seen_at     timestamptz NOT NULL
);
