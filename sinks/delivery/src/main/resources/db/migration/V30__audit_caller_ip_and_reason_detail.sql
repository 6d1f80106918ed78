-- The caller's network address as Warden saw it (after trusted proxies), beside the ip the caller declared in its
-- request's context; and the detail a denial's reason needs (for CONDITION_NOT_MET: which permission's condition did
-- not hold, and why). Both nullable: entries written before have neither. Adding columns rewrites nothing.
ALTER TABLE audit_events ADD COLUMN caller_ip text;
ALTER TABLE audit_events ADD COLUMN reason_detail text;
