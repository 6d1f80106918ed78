-- Users of the username plugin, their sessions, and expiry and scopes of API tokens.
-- Append-only like every migration: never edit this file once released.

CREATE TABLE users (
    id              text        PRIMARY KEY,
    -- the username as the user chose it (display form) ...
    username        text        NOT NULL,
    -- ... and its lookup form: lower-cased unless usernames are configured case-sensitive
    username_key    text        NOT NULL,
    email           text,
    email_key       text,
    display_name    text,
    -- Argon2id in PHC string format: $argon2id$v=19$m=...,t=...,p=...$salt$hash
    password_hash   text        NOT NULL,
    failed_attempts integer     NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
    last_failed_at  timestamptz,
    locked_until    timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT users_username_key_unique UNIQUE (username_key),
    CONSTRAINT users_email_key_unique UNIQUE (email_key)
);

-- A session token is shown once; only its SHA-256 is kept.
CREATE TABLE user_sessions (
    id                  text        PRIMARY KEY,
    user_id             text        NOT NULL REFERENCES users (id),
    token_hash          bytea       NOT NULL UNIQUE,
    created_at          timestamptz NOT NULL,
    -- last sliding refresh; expires_at moves to refreshed_at + ttl, never past absolute_expires_at
    refreshed_at        timestamptz NOT NULL,
    expires_at          timestamptz NOT NULL,
    absolute_expires_at timestamptz NOT NULL,
    revoked_at          timestamptz,
    CHECK (expires_at <= absolute_expires_at)
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id) WHERE revoked_at IS NULL;

ALTER TABLE api_tokens ADD COLUMN scopes     text[]      NOT NULL DEFAULT '{*}';
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;
