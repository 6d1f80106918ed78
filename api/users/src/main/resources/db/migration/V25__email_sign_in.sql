-- Sign-in by e-mail (issue 37): magic links and e-mail codes reuse email_tokens, with a count of wrong answers for
-- codes; a second-factor challenge remembers which first factor it followed. Append-only: never edit once released.
ALTER TABLE email_tokens ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0);
ALTER TABLE sign_in_challenges ADD COLUMN first_factor text NOT NULL DEFAULT 'pwd';
