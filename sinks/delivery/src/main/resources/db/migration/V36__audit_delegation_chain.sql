-- The delegations a decision was allowed through, from the agent's own link to the source's (issue 40: the agent is
-- the actor with its delegation chain). NULL for a decision by the agent's own permission and for entries written
-- before. Adding a column rewrites nothing.
ALTER TABLE audit_events ADD COLUMN delegation_chain text[];
