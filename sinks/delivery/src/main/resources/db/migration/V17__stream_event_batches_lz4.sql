-- Audit batches (V16) are ~100 KB each, TOASTed and compressed on insert. PostgreSQL's default pglz took 1.36 ms
-- per 94 KB batch where lz4 took 0.25 ms for the same size on disk (docs/benchmarks.md): use lz4 where the
-- server is built with it (PostgreSQL 14+ with lz4; Debian's is). Elsewhere the column keeps pglz, which works,
-- only slower. Rows already written keep the method they were written with; both stay readable.
DO $$
BEGIN
    ALTER TABLE service_stream_events ALTER COLUMN batch SET COMPRESSION lz4;
EXCEPTION
    WHEN feature_not_supported THEN
        RAISE NOTICE 'this PostgreSQL has no lz4: audit batches stay compressed with pglz';
END
$$;
