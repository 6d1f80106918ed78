-- The `warden` CLI's OAuth client, built into every server (D181): a public client (no secret: a program on
-- people's machines cannot keep one) that signs people in with the device grant and keeps the sign-in as a
-- rotating refresh token. No redirect URI, so it can never take part in an authorization-code flow: the person
-- always approves on Warden's own device page, which names the client, the resource and the scopes.
INSERT INTO oauth_clients (client_id, secret_hash, secret_expires_at, client_name, redirect_uris,
                           token_endpoint_auth_method, grant_types, metadata, registered_via, created_at)
VALUES ('warden-cli', NULL, NULL, 'Warden CLI', '{}', 'none',
        '{urn:ietf:params:oauth:grant-type:device_code,refresh_token}',
        '{"client_id":"warden-cli","client_name":"Warden CLI","redirect_uris":[],"token_endpoint_auth_method":"none","grant_types":["urn:ietf:params:oauth:grant-type:device_code","refresh_token"]}',
        'built-in', now())
ON CONFLICT (client_id) DO NOTHING;
