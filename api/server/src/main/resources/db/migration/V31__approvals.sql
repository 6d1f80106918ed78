-- Approval requests (docs/approvals.md): one row per request for a call that a permission with requireApproval
-- matched, keyed by agent, action, resource and a hash of the arguments. At most one request per key is pending at a
-- time (the partial unique index), so repeating the call names the same request. Rows are kept after they end.
CREATE TABLE approvals (
    id                text        PRIMARY KEY,
    agent_id          text        NOT NULL,
    owner_id          text        NOT NULL,
    action            text        NOT NULL,
    resource          text        NOT NULL,
    arguments_hash    text        NOT NULL,
    arguments         jsonb       NOT NULL,
    status            text        NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'cancelled', 'used')),
    approvers         text        NOT NULL CHECK (approvers IN ('owner', 'organization_admins')),
    -- the user (approvers = owner) or the organization (organization_admins) whose people may decide
    approver_scope    text        NOT NULL,
    -- the delegations the matching grant came through: revoking any of them ends the request
    delegation_ids    text[]      NOT NULL,
    valid_for_seconds bigint,
    requested_at      timestamptz NOT NULL,
    expires_at        timestamptz NOT NULL,
    decided_by        text,
    decided_at        timestamptz,
    note              text,
    granted_until     timestamptz,
    used_at           timestamptz
);

CREATE UNIQUE INDEX approvals_one_pending_idx ON approvals (agent_id, action, resource, arguments_hash)
    WHERE status = 'pending';
CREATE INDEX approvals_granted_idx ON approvals (agent_id, action, resource, arguments_hash, granted_until)
    WHERE status = 'approved';
CREATE INDEX approvals_scope_idx ON approvals (approver_scope, requested_at DESC);
CREATE INDEX approvals_agent_idx ON approvals (agent_id, requested_at DESC);
