-- Refresh rotations (D190, D196, D197): read each presented token and its grant, spend it only when every check the
-- client is told of passes and it is unused, store its successor only when it was spent. One row per presented
-- token (numbered i); each is decided as alone, and a token presented by two rows is spent once (the other row reads
-- it unused yet unspent: a concurrent use, as between two statements). Asked scopes come space-joined (NULL: none
-- asked; '': an empty list).
--
-- A function for its two settings, which no statement can carry: every lookup is by primary key, so the plan is kept
-- (planned once per connection and again after ANALYZE) and never reads a table through: a plan made while the token
-- table was small and then kept reads all of it once it is large, until the next ANALYZE (D197).
CREATE FUNCTION oauth_rotate_refresh_tokens(
    p_i int[], p_token_hash bytea[], p_client_id text[], p_resource text[], p_scopes text[], p_next_hash bytea[],
    p_next_expires_at timestamptz[], p_now timestamptz[])
RETURNS TABLE (i int, id text, client_id text, user_id text, session_id text, scope text, resource text,
    created_at timestamptz, grant_expires_at timestamptz, amr text[], auth_time timestamptz, expires_at timestamptz,
    used_at timestamptz, usable boolean, rotated boolean)
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH req AS (
        SELECT * FROM unnest(p_i, p_token_hash, p_client_id, p_resource, p_scopes, p_next_hash, p_next_expires_at, p_now)
            AS req(i, token_hash, client_id, resource, scopes, next_hash, next_expires_at, now_at)
    ), t AS (
        SELECT req.i, g.id, g.client_id, g.user_id, g.session_id, g.scope, g.resource, g.created_at,
            g.expires_at AS grant_expires_at, g.amr, g.auth_time, r.expires_at, r.used_at,
            (g.revoked_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM user_sessions s WHERE s.id = g.session_id AND s.revoked_at IS NOT NULL)
             AND g.expires_at > req.now_at) AS usable
        FROM req JOIN oauth_refresh_tokens r ON r.token_hash = req.token_hash
            JOIN oauth_grants g ON g.id = r.grant_id
    ), spent AS (
        UPDATE oauth_refresh_tokens r SET used_at = req.now_at FROM t JOIN req ON req.i = t.i
        WHERE r.token_hash = req.token_hash AND r.used_at IS NULL AND t.client_id = req.client_id AND t.usable
          AND t.expires_at > req.now_at
          AND (req.resource IS NULL OR t.resource = req.resource)
          AND (req.scopes IS NULL
               OR (cardinality(string_to_array(req.scopes, ' ')) > 0
                   AND string_to_array(t.scope, ' ') @> string_to_array(req.scopes, ' ')))
        RETURNING req.i, t.id, t.grant_expires_at
    ), stored AS (
        INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, expires_at)
        SELECT req.next_hash, spent.id, req.now_at, LEAST(req.next_expires_at, spent.grant_expires_at)
        FROM spent JOIN req ON req.i = spent.i
        RETURNING 1
    )
    SELECT t.*, EXISTS (SELECT 1 FROM spent WHERE spent.i = t.i) FROM t;
END;
$$;
