-- E-mail (issue 37): verified addresses, the tokens e-mail links carry, and mail waiting to be delivered.
-- Append-only like every migration: never edit this file once released.

ALTER TABLE users ADD COLUMN email_verified_at timestamptz;

-- A link's token: only its SHA-256 is kept. purpose: 'verify-email' (for the address it names) or 'reset-password'.
CREATE TABLE email_tokens (
    token_hash bytea       PRIMARY KEY,
    user_id    text        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    text        NOT NULL,
    email      text        NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, purpose);

-- Mail waiting for the SMTP server. The content is sealed with the key-encryption key (when configured), bound to
-- the id, and wiped once sent or given up.
CREATE TABLE mail_outbox (
    id              text        PRIMARY KEY,
    recipient       text        NOT NULL,
    sealed          text        NOT NULL,
    created_at      timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    last_error      text,
    sent_at         timestamptz,
    given_up_at     timestamptz
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND given_up_at IS NULL;
