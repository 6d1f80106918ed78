-- Delegation chains. A row is never deleted: revocation sets revoked_at (kept for audit).
CREATE TABLE delegations (
    id                text        PRIMARY KEY,
    from_agent        text        NOT NULL REFERENCES agents (id),
    to_agent          text        NOT NULL REFERENCES agents (id),
    permissions       jsonb       NOT NULL,
    depth             integer     NOT NULL CHECK (depth >= 1),
    -- the smallest maxDepth along the chain: the request's and every ancestor's
    max_depth         integer     NOT NULL CHECK (max_depth >= depth),
    -- every delegation this one derives from, transitively (for cascading revocation)
    ancestors         text[]      NOT NULL DEFAULT '{}',
    expires_at        timestamptz,
    created_at        timestamptz NOT NULL,
    revoked_at        timestamptz,
    revoked_reason    text,
    CHECK (from_agent <> to_agent)
);
CREATE INDEX delegations_to_active_idx   ON delegations (to_agent)   WHERE revoked_at IS NULL;
CREATE INDEX delegations_from_active_idx ON delegations (from_agent) WHERE revoked_at IS NULL;
CREATE INDEX delegations_ancestors_idx   ON delegations USING gin (ancestors);
