-- AuthZEN subjects of other types than `agent` name a Warden agent through its metadata `authzen.subject`
-- (`type:id`, docs/authzen.md); evaluations and searches resolve them by this index.
CREATE INDEX agents_authzen_subject_idx ON agents ((metadata->>'authzen.subject'));
