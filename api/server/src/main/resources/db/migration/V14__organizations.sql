-- Organizations, their members and custom roles, each user's active organization, the key that signs list
-- cursors, and audit entries in the transactional outbox. Only adds tables and columns (SPEC Versioning 3 and 7).
-- Data from before organizations is left where it was: users belong to no organization until they create or
-- join one, and an agent's tenant_id keeps its value (see docs/organizations.md, "Data from before").

CREATE TABLE organizations (
    id          text        PRIMARY KEY,
    name        text        NOT NULL,
    created_by  text        NOT NULL REFERENCES users (id),
    created_at  timestamptz NOT NULL
);

-- Custom roles; the built-in roles owner, admin and member are defined in code and never stored.
CREATE TABLE organization_roles (
    organization_id text        NOT NULL REFERENCES organizations (id),
    name            text        NOT NULL,
    permissions     text[]      NOT NULL,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (organization_id, name)
);

CREATE TABLE organization_members (
    organization_id text        NOT NULL REFERENCES organizations (id),
    user_id         text        NOT NULL REFERENCES users (id),
    role            text        NOT NULL,
    joined_at       timestamptz NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user_idx ON organization_members (user_id);
CREATE INDEX organization_members_role_idx ON organization_members (organization_id, role);

-- The organization a user acts in (null: none). Cleared when the user leaves it.
ALTER TABLE users ADD COLUMN active_organization_id text REFERENCES organizations (id);

-- The organization's agents, newest first, for the administrators' keyset pagination.
CREATE INDEX agents_tenant_created_idx ON agents (tenant_id, created_at DESC, id DESC) WHERE tenant_id IS NOT NULL;

-- Server-side secrets shared by every instance (the list-cursor signing key), created on first use.
CREATE TABLE server_secrets (
    name       text        PRIMARY KEY,
    secret     bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Where an outbox row goes: 'events' (warden.events, every row before this migration) or 'audit' (warden.audit:
-- an administrative action's audit entry, committed with the change it records).
ALTER TABLE event_outbox ADD COLUMN target text NOT NULL DEFAULT 'events' CHECK (target IN ('events', 'audit'));
