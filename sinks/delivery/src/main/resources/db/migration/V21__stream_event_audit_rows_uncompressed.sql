-- A batch's row keys (V19, about 4 KB for 100 entries) are timestamps and random ids: PostgreSQL's compression
-- tried them on every insert and gave up (under 25 % saved), then stored them out of line anyway. EXTERNAL skips
-- the attempt and stores the same bytes: inserting 5,000 such rows took 138-235 ms instead of 447-567 ms
-- (docs/benchmarks.md). Metadata only; rows already written are read as before.
ALTER TABLE service_stream_events ALTER COLUMN audit_rows SET STORAGE EXTERNAL;
