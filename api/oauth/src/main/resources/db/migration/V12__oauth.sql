-- The OAuth 2.1 authorization server: clients, authorization codes, grants (refresh-token families),
-- consents, signing keys and revoked access tokens. Every secret is stored as its SHA-256 only; signing keys
-- are sealed with the configured key-encryption key. Append-only like every migration.

-- Registered clients (RFC 7591). Clients identified by a metadata document URL are not stored here.
CREATE TABLE oauth_clients (
    client_id                  text        PRIMARY KEY,
    secret_hash                bytea,
    secret_expires_at          timestamptz,
    client_name                text        NOT NULL,
    redirect_uris              text[]      NOT NULL,
    token_endpoint_auth_method text        NOT NULL
        CHECK (token_endpoint_auth_method IN ('none', 'client_secret_basic', 'client_secret_post')),
    grant_types                text[]      NOT NULL,
    -- the registered metadata as answered at registration (no secret)
    metadata                   jsonb       NOT NULL,
    -- 'mcp' (/mcp/register) or 'oauth' (/oauth/register)
    registered_via             text        NOT NULL,
    created_at                 timestamptz NOT NULL,
    CHECK ((token_endpoint_auth_method = 'none') = (secret_hash IS NULL))
);

-- One authorization of a client by a user: the family of every refresh token rotated from it.
-- Revoking it ends every token of the family at once (refresh-token reuse, code replay, revocation).
CREATE TABLE oauth_grants (
    id             text        PRIMARY KEY,
    client_id      text        NOT NULL,
    user_id        text        NOT NULL REFERENCES users (id),
    -- the browser session the user consented in; signing that session out ends the grant's tokens
    session_id     text        REFERENCES user_sessions (id),
    scope          text        NOT NULL,
    resource       text        NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    revoked_at     timestamptz,
    revoked_reason text
);
CREATE INDEX oauth_grants_session_idx ON oauth_grants (session_id) WHERE revoked_at IS NULL;

-- Authorization codes: single use, short-lived, bound to the client, redirect URI and PKCE challenge.
CREATE TABLE oauth_codes (
    code_hash      bytea       PRIMARY KEY,
    client_id      text        NOT NULL,
    user_id        text        NOT NULL REFERENCES users (id),
    session_id     text        REFERENCES user_sessions (id),
    redirect_uri   text        NOT NULL,
    code_challenge text        NOT NULL,
    scope          text        NOT NULL,
    resource       text        NOT NULL,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    -- set when redeemed: the grant it started (revoked if the code is ever presented again)
    grant_id       text        REFERENCES oauth_grants (id),
    redeemed_at    timestamptz
);

CREATE TABLE oauth_refresh_tokens (
    token_hash bytea       PRIMARY KEY,
    grant_id   text        NOT NULL REFERENCES oauth_grants (id),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    -- set when rotated; presenting it again revokes the family
    used_at    timestamptz
);
CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id);

-- Remembered consent: what a user allowed a client for a resource.
CREATE TABLE oauth_consents (
    user_id    text        NOT NULL REFERENCES users (id),
    client_id  text        NOT NULL,
    resource   text        NOT NULL,
    scope      text        NOT NULL,
    granted_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, client_id, resource)
);

-- Signing keys (ES256). A key signs from created_at until the next one takes over, and is published
-- until expires_at so that tokens it signed keep verifying.
CREATE TABLE oauth_signing_keys (
    kid         text        PRIMARY KEY,
    algorithm   text        NOT NULL,
    -- the private JWK, sealed with the key-encryption key (aesgcm:v1:...) when one is configured
    private_jwk text        NOT NULL,
    public_jwk  text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);

-- Access tokens revoked before their expiry (RFC 7009), kept until they would have expired.
CREATE TABLE oauth_revoked_access_tokens (
    jti        text        PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
