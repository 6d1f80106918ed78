-- Agents, user API tokens and the event outbox. Migrations are append-only: never edit a released one.

CREATE TABLE agents (
    id          text        PRIMARY KEY,
    owner_id    text        NOT NULL,
    tenant_id   text,
    name        text        NOT NULL,
    type        text        NOT NULL CHECK (type IN ('autonomous', 'delegated', 'service')),
    -- 'expired' is derived from expires_at and never stored.
    status      text        NOT NULL CHECK (status IN ('active', 'suspended', 'revoked')),
    token_hash  bytea       NOT NULL UNIQUE,
    permissions jsonb       NOT NULL,
    expires_at  timestamptz,
    metadata    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);
CREATE INDEX agents_owner_idx  ON agents (owner_id, created_at);
CREATE INDEX agents_tenant_idx ON agents (tenant_id) WHERE tenant_id IS NOT NULL;

-- Revocation is permanent, enforced by the database and not only by code.
CREATE FUNCTION agents_revocation_is_permanent() RETURNS trigger AS $$
BEGIN
    IF OLD.status = 'revoked' AND (NEW.status <> 'revoked' OR NEW.token_hash <> OLD.token_hash) THEN
        RAISE EXCEPTION 'agent % is revoked; revocation is permanent', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER agents_revocation_is_permanent
    BEFORE UPDATE ON agents
    FOR EACH ROW EXECUTE FUNCTION agents_revocation_is_permanent();

CREATE TABLE api_tokens (
    id         text        PRIMARY KEY,
    name       text        NOT NULL,
    user_id    text        NOT NULL,
    token_hash bytea       NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

-- Transactional outbox: a state change and the events it causes commit together; a relay publishes
-- them to Kafka in seq order and deletes them once the broker has acknowledged.
CREATE TABLE event_outbox (
    seq        bigserial   PRIMARY KEY,
    topic_key  text        NOT NULL,
    payload    bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
