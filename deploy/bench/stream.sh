#!/usr/bin/env bash
# The `audit` stream events' cost and speed (issue 18), on one API instance and on two (A: every role, B: the API
# only, one in-process broker, one PostgreSQL), all in the same run:
#   - POST /authorize throughput with the audit events on and off (warden.events.mirror-audit), and the ratio;
#   - with them on, decisions paced at RATE per second for SECONDS, and for each one the delay from its answer to
#     its `audit` event on an SSE subscriber on every instance (p50/p90/p99/max, deliveries missing), after an
#     unreported pass of 10 s (-Dbench.latency-warmup-s); beside it, the share of those events each instance's feed
#     read within 25/50/100 ms of the audit record (before the hub and the socket), the cores busy, the broker's
#     requests and the CPU by thread group while the decisions were paced.
#   deploy/bench/stream.sh [JDBC_URL] [RATE] [SECONDS] [LOAD_WORKERS]
# The server should have min_wal_size=1GB (docs/operations.md, "PostgreSQL"; the output prints its WAL settings).
# Defaults: the machine's PostgreSQL (database test; a private schema per run, dropped after), 1000 events/s, 20 s,
# 16 load workers. BENCH_JAVA_OPTS: more JVM options (e.g. -Dbench.fleets=1 for one instance only,
# -Dbench.repeats=3 for the median of 3 off/on pairs, -Dbench.warmup-ms=30000 -Dbench.measure-ms=15000, a JFR
# recording; -Dbench.interleaved=24 runs both fleets at once and moves the load between them every 5 s, 24 times,
# which a machine whose speed drifts disturbs far less than pairs run one after the other; with -Dbench.same=true
# both fleets have the events off, an A/A test whose ratios show how far one set strays with no cost to find). Each
# comparison also prints the CPU time per decision by thread group. Revocation visibility across instances is
# deploy/bench/fleet.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bin/find-jdk.sh
source deploy/bench/lib.sh
url="${1:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
rate="${2:-1000}"
seconds="${3:-20}"
workers="${4:-16}"
run_java_bench 2g StreamBench "$url" "$rate" "$seconds" "$workers"
