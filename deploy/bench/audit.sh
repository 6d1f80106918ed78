#!/usr/bin/env bash
# Audit store benchmarks: Kafka -> Postgres writer throughput vs a raw COPY in the same run, and filtered
# GET /audit queries on 10 million rows. Usage: deploy/bench/audit.sh [JDBC_URL] [WRITER_ROWS] [QUERY_ROWS]
# Default JDBC_URL: the machine's PostgreSQL (database test); a private schema is created and dropped.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bin/find-jdk.sh
source deploy/bench/lib.sh
url="${1:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
writer_rows="${2:-500000}"
query_rows="${3:-10000000}"
run_java_bench 3g AuditBench "$url" "$writer_rows" "$query_rows"
