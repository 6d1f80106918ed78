-- OpenID CIBA backchannel authentication requests, poll mode (docs/approvals.md): the auth_req_id as SHA-256 only,
-- the agent's client that asked, the person asked (its owner), and the approval request that carries the decision.
CREATE TABLE oauth_ciba_requests (
    auth_req_id_hash bytea       PRIMARY KEY,
    client_id        text        NOT NULL,
    user_id          text        NOT NULL,
    approval_id      text        NOT NULL,
    scope            text        NOT NULL,
    resource         text        NOT NULL,
    interval_seconds integer     NOT NULL,
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    last_polled_at   timestamptz,
    status           text        NOT NULL CHECK (status IN ('pending', 'redeemed')),
    grant_id         text
);
CREATE INDEX oauth_ciba_requests_expiry_idx ON oauth_ciba_requests (expires_at) WHERE grant_id IS NULL;
