-- Administrators who are people (issue 37): the first-run setup token that creates the first one, and the short
-- administrator sessions they start from a session signed in with a second factor. Append-only: never edit once
-- released.

-- Whether the user administers the deployment (what the bootstrap token may do, attributed to a person).
ALTER TABLE users ADD COLUMN administrator boolean NOT NULL DEFAULT false;

-- The one-time setup token printed on a fresh installation; only its SHA-256 is kept. claimed_by is the user the
-- token created (POST /auth/setup); used_at is set when that user, with a second factor enrolled, completes the
-- setup and becomes an administrator.
CREATE TABLE setup_tokens (
    token_hash bytea       PRIMARY KEY,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    claimed_by text        REFERENCES users (id) ON DELETE CASCADE,
    used_at    timestamptz
);

-- An administrator session (wdn_ads_): what an administrator acts with, started from a session that proved a second
-- factor, for an hour at most. Only its SHA-256 is kept.
CREATE TABLE admin_sessions (
    id         text        PRIMARY KEY,
    token_hash bytea       NOT NULL UNIQUE,
    user_id    text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    session_id text        NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX admin_sessions_user_idx ON admin_sessions (user_id);
