-- Agents in OAuth: service agents bound to an OAuth client (client credentials), the tokens issued to agents
-- (client credentials and token exchange, RFC 8693) and device authorization (RFC 8628). Only adds tables.

-- A service agent bound to an OAuth client. The client id is the agent id and the client secret is the agent's
-- own token (agents.token_hash), so rotating the token or revoking the agent ends the credential at once.
CREATE TABLE oauth_agent_clients (
    agent_id   text        PRIMARY KEY REFERENCES agents (id),
    created_at timestamptz NOT NULL
);

-- One token issued to an agent: by client credentials (the subject is the agent) or by token exchange (the
-- subject is a user, the agents act for them). A token stays usable only while every agent of its chain is
-- active with the token it had when the token was issued, every delegation it relies on is active, and the
-- user's grant it started from (root_grant_id) is usable.
CREATE TABLE oauth_agent_grants (
    id                 text        PRIMARY KEY,
    grant_type         text        NOT NULL CHECK (grant_type IN ('client_credentials', 'token_exchange')),
    client_id          text        NOT NULL,
    subject            text        NOT NULL,
    subject_kind       text        NOT NULL CHECK (subject_kind IN ('user', 'agent')),
    root_grant_id      text        REFERENCES oauth_grants (id),
    -- the acting agents, the first actor first, each with the SHA-256 of its token at issuance
    agent_ids          text[]      NOT NULL,
    agent_token_hashes bytea[]     NOT NULL,
    delegation_ids     text[]      NOT NULL DEFAULT '{}',
    scope              text        NOT NULL,
    resource           text        NOT NULL,
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL,
    CHECK (cardinality(agent_ids) = cardinality(agent_token_hashes) AND cardinality(agent_ids) >= 1)
);
CREATE INDEX oauth_agent_grants_expiry_idx ON oauth_agent_grants (expires_at);

-- Device authorization requests (RFC 8628): the device code and the user code are stored as SHA-256 only.
CREATE TABLE oauth_device_codes (
    device_code_hash bytea       PRIMARY KEY,
    user_code_hash   bytea       NOT NULL,
    client_id        text        NOT NULL,
    scope            text        NOT NULL,
    resource         text        NOT NULL,
    interval_seconds integer     NOT NULL CHECK (interval_seconds >= 1),
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    last_polled_at   timestamptz,
    status           text        NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'redeemed')),
    user_id          text        REFERENCES users (id),
    session_id       text        REFERENCES user_sessions (id),
    decided_at       timestamptz,
    grant_id         text        REFERENCES oauth_grants (id)
);
-- a user code names one pending request at a time
CREATE UNIQUE INDEX oauth_device_codes_user_code_idx ON oauth_device_codes (user_code_hash) WHERE status = 'pending';
CREATE INDEX oauth_device_codes_expiry_idx ON oauth_device_codes (expires_at);
