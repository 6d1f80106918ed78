-- Second factors (issue 37): TOTP secrets, recovery codes, the challenges a password sign-in hands out, and how
-- each session was signed in. Append-only like every migration: never edit this file once released.

-- One TOTP per user. The secret is sealed with the key-encryption key (AES-256-GCM, bound to the user id) when one
-- is configured. confirmed_at is NULL while the enrolment waits for its first valid code; last_step is the last
-- time step accepted, so that no code is good twice.
CREATE TABLE user_totp (
    user_id      text        PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret       text        NOT NULL,
    confirmed_at timestamptz,
    last_step    bigint      NOT NULL DEFAULT -1,
    created_at   timestamptz NOT NULL
);

-- One-time recovery codes, only their SHA-256.
CREATE TABLE user_recovery_codes (
    user_id   text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash bytea       NOT NULL,
    used_at   timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

-- A password sign-in of a user with a second factor gets a challenge instead of a session; only its SHA-256 is
-- kept. It is good once, for minutes, and for a few attempts.
CREATE TABLE sign_in_challenges (
    token_hash bytea       PRIMARY KEY,
    user_id    text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    attempts   integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX sign_in_challenges_expiry_idx ON sign_in_challenges (expires_at);

-- How the session was signed in, as RFC 8176 amr values (pwd, otp, mfa, ...).
ALTER TABLE user_sessions ADD COLUMN amr text[] NOT NULL DEFAULT '{pwd}';
