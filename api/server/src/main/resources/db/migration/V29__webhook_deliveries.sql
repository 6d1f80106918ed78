-- The latest deliveries of each webhook endpoint, for its owner (the console's webhooks page): one row each time
-- the delivery worker finishes with an event for an endpoint (delivered, dropped, or disabled by a 410). The worker
-- keeps the newest 50 per endpoint. Only adds a table.

CREATE TABLE webhook_deliveries (
    id          bigserial   PRIMARY KEY,
    endpoint_id text        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- the event's webhook-id header (the receiver's key for dropping duplicates)
    event_id    text        NOT NULL,
    outcome     text        NOT NULL CHECK (outcome IN ('delivered', 'dropped', 'disabled')),
    attempts    integer     NOT NULL CHECK (attempts >= 0),
    -- the last answer: 'HTTP 200', 'HTTP 503', 'network error: ...', 'refused target'
    last        text        NOT NULL,
    finished_at timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id DESC);
