-- How the user of a grant signed in (issue 37): the RFC 8176 amr values of the browser session the grant came from,
-- and when that session signed in. Access tokens of the grant carry them as amr and auth_time.
-- Append-only: never edit once released.
ALTER TABLE oauth_grants ADD COLUMN amr text[];
ALTER TABLE oauth_grants ADD COLUMN auth_time timestamptz;
