-- Where each session was signed in from, for the user's list of their sessions (issue 37): the client IP as the
-- rate limiter sees it, and the User-Agent as sent (at most 256 characters). Append-only: never edit once released.
ALTER TABLE user_sessions ADD COLUMN ip text;
ALTER TABLE user_sessions ADD COLUMN user_agent text;
