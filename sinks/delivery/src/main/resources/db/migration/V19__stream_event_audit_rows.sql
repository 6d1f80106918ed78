-- An audit batch whose record carries its entries' row keys (header warden-audit-rows, docs/events.md) is stored
-- as those keys instead of a second copy of its entries: `batch` stays NULL and `audit_rows` holds the keys
-- (about 40 bytes an entry where `batch` took about 500); replay reads the entries from audit_events. A batch
-- without the header (written before this version, or by hand) keeps its bytes in `batch` as before.
ALTER TABLE service_stream_events ADD COLUMN audit_rows bytea;
