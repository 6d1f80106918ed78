-- Passkeys (WebAuthn, issue 37): the credentials users register and the ceremonies that hand out challenges.
-- Append-only like every migration: never edit this file once released.

-- A user's passkeys. attested_credential_data is the authenticator's AAGUID, credential id and COSE public key as
-- the authenticator encoded them (WebAuthn 6.5.1); sign_count is the last signature counter seen, so that a
-- cloned authenticator's stale counter is refused. No secret is kept: a public key is not one.
CREATE TABLE passkeys (
    id                       text        PRIMARY KEY,
    user_id                  text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id            bytea       NOT NULL,
    attested_credential_data bytea       NOT NULL,
    sign_count               bigint      NOT NULL CHECK (sign_count >= 0),
    uv_initialized           boolean     NOT NULL,
    backup_eligible          boolean     NOT NULL,
    backed_up                boolean     NOT NULL,
    transports               text[]      NOT NULL DEFAULT '{}',
    name                     text        NOT NULL,
    created_at               timestamptz NOT NULL,
    last_used_at             timestamptz,
    CONSTRAINT passkeys_credential_id_unique UNIQUE (credential_id)
);
CREATE INDEX passkeys_user_idx ON passkeys (user_id);

-- A registration or sign-in ceremony: the challenge the authenticator must sign, good once and for minutes. Only
-- the SHA-256 of the ceremony's handle is kept; a registration belongs to the signed-in user who asked for it.
CREATE TABLE webauthn_ceremonies (
    handle_hash bytea       PRIMARY KEY,
    kind        text        NOT NULL CHECK (kind IN ('registration', 'authentication')),
    user_id     text        REFERENCES users (id) ON DELETE CASCADE,
    challenge   bytea       NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    CHECK (kind = 'authentication' OR user_id IS NOT NULL)
);
CREATE INDEX webauthn_ceremonies_expiry_idx ON webauthn_ceremonies (expires_at);
