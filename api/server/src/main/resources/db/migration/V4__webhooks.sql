-- Webhook endpoints (docs/webhooks.md). Migrations are append-only: never edit a released one.

CREATE TABLE webhook_endpoints (
    id          text        PRIMARY KEY,
    -- The owning user's id; NULL for an endpoint of the administrator, which receives every event.
    owner_id    text,
    url         text        NOT NULL,
    -- Event type wire names; empty means every type, including types added later.
    event_types text[]      NOT NULL DEFAULT '{}',
    description text,
    -- The signing secret: 'aesgcm:v1:...' when warden.webhooks.encryption-key is set, else as issued (whsec_...).
    secret      text        NOT NULL,
    status      text        NOT NULL CHECK (status IN ('active', 'disabled')),
    created_at  timestamptz NOT NULL,
    disabled_at timestamptz
);
CREATE INDEX webhook_endpoints_owner_idx ON webhook_endpoints (owner_id, created_at);
CREATE INDEX webhook_endpoints_active_idx ON webhook_endpoints (created_at) WHERE status = 'active';
