-- OpenID Shared Signals Framework 1.0 transmitter (docs/shared-signals.md, D178).

-- A receiver's event stream. manager: who created it and manages it ('agent:<id>', 'user:<id>' or 'admin');
-- owner_user: whose events it carries (NULL: every event, the administrator's streams).
CREATE TABLE ssf_streams (
    id                   text        PRIMARY KEY,
    manager              text        NOT NULL,
    owner_user           text,
    audience             text        NOT NULL,
    delivery_method      text        NOT NULL CHECK (delivery_method IN ('push', 'poll')),
    endpoint_url         text,
    authorization_header text,
    events_requested     text[]      NOT NULL,
    description          text,
    status               text        NOT NULL CHECK (status IN ('enabled', 'paused', 'disabled')),
    status_reason        text,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL,
    verified_at          timestamptz,
    last_error           text,
    last_error_at        timestamptz
);
CREATE INDEX ssf_streams_manager ON ssf_streams (manager);

-- The subjects a receiver removed from its stream (default_subjects ALL: every other subject is included).
CREATE TABLE ssf_excluded_subjects (
    stream_id text NOT NULL REFERENCES ssf_streams (id) ON DELETE CASCADE,
    subject   text NOT NULL,
    PRIMARY KEY (stream_id, subject)
);

-- Security Event Tokens not yet delivered (push) or acknowledged (poll), in order per stream.
CREATE TABLE ssf_outbox (
    stream_id  text        NOT NULL REFERENCES ssf_streams (id) ON DELETE CASCADE,
    seq        bigserial,
    jti        text        NOT NULL,
    token      text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (stream_id, seq),
    UNIQUE (stream_id, jti)
);
CREATE INDEX ssf_outbox_created ON ssf_outbox (created_at);
