#!/usr/bin/env bash
# Fleet benchmark (issue 18): what a fleet of API instances promises, measured with two instances (A: every role,
# B: the API only, one in-process broker, one PostgreSQL) and with one (A alone), in one run:
#   1. revocation visibility (dev.warden.bench.FleetBench): while decisions flow on every instance, how long after
#      `DELETE /agents/{id}` answered 204 on A does B (with one instance: A) stop allowing that agent; p50/p90/p99/
#      max, the allowed answers after the 204, decisions/s, and when `agent.revoked` reached an SSE subscriber on B;
#      with the `audit` stream events on (the default) and off;
#   2. SSE latency and POST /authorize throughput (dev.warden.bench.StreamBench): decisions paced at 1,000/s, each
#      one's `audit` event timed on an SSE subscriber of every instance (p50/p90/p99/max, deliveries missing); and
#      the throughput with the `audit` events on against off, both fleets running at once with the load moving
#      between them in 5 s windows (the ratio is the events' cost).
#   deploy/bench/fleet.sh [JDBC_URL] [ROUNDS] [LOAD_WORKERS]
# Default JDBC_URL: the machine's PostgreSQL (database test); a private schema per deployment is created and dropped.
# Give that server min_wal_size=1GB, as docs/operations.md ("PostgreSQL") asks of a deployment's: at the default,
# bursts of WAL stall the audit writer and the SSE figures with it. The output prints the server's WAL settings.
# Defaults: 100 rounds, 16 load workers. BENCH_FLEET_WINDOWS (default 24) sets the throughput windows;
# BENCH_JAVA_OPTS adds JVM options to both. WARDEN_STREAMS_MIRROR__COMMIT__INTERVAL__MS sets the audit writer's
# batch interval (default 20 ms), which bounds how long an SSE event waits. Each part first warms the JVM with a
# run it does not report (the first in a JVM measures lowest). Takes about 25 minutes on 2 cores.
# deploy/bench/stream.sh runs part 2 alone, with more options.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bin/find-jdk.sh
source deploy/bench/lib.sh
url="${1:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
rounds="${2:-100}"
workers="${3:-16}"
build_java_bench
BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:-} -Dbench.fleets=2,1" java_bench 2g FleetBench "$url" "$rounds" "$workers"
BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:-} -Dbench.fleets=2,1 -Dbench.warm-up-set=true -Dbench.interleaved=${BENCH_FLEET_WINDOWS:-24} \
-Dbench.mirror-commit-ms=${WARDEN_STREAMS_MIRROR__COMMIT__INTERVAL__MS:-20}" \
  java_bench 2g StreamBench "$url" 1000 20 "$workers"
