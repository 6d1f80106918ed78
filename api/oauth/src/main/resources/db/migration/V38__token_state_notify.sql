-- Whatever ends a person's OAuth tokens tells every instance, from the database itself (D187): revoking or deleting
-- a grant, revoking an access token (RFC 7009), and revoking or deleting the sign-in session a grant came from each
-- send the access-changes notification (the channel AccessChanges listens on: "warden_access_changed:<schema>", or a
-- digest of a schema too long for PostgreSQL's 63-byte names), once per statement, delivered when the change
-- commits. Each instance then drops the token states it cached. A trigger cannot be forgotten by a new code path.
CREATE FUNCTION warden_token_state_changed() RETURNS trigger AS $$
DECLARE
    channel text := 'warden_access_changed:' || TG_TABLE_SCHEMA;
BEGIN
    IF octet_length(channel) > 63 THEN
        channel := 'warden_access_changed:'
            || substr(encode(sha256(convert_to(TG_TABLE_SCHEMA, 'UTF8')), 'hex'), 1, 32);
    END IF;
    PERFORM pg_notify(channel, 'token.state');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER oauth_grants_token_state AFTER UPDATE OF revoked_at OR DELETE ON oauth_grants
    FOR EACH STATEMENT EXECUTE FUNCTION warden_token_state_changed();
CREATE TRIGGER oauth_revoked_access_tokens_token_state AFTER INSERT ON oauth_revoked_access_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION warden_token_state_changed();
CREATE TRIGGER user_sessions_token_state AFTER UPDATE OF revoked_at OR DELETE ON user_sessions
    FOR EACH STATEMENT EXECUTE FUNCTION warden_token_state_changed();
