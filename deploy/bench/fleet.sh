#!/usr/bin/env bash
# Fleet benchmark (issue 18): how long after `DELETE /agents/{id}` answered 204 on instance A does instance B stop
# allowing that agent, while decisions flow on both (A: every role, B: the API only, one in-process broker, one
# PostgreSQL), with the `audit` stream events mirrored onto warden.events (the default) and without them, in the
# same run. Prints p50/p90/p99/max of the delay, the allowed answers B gave after the 204, decisions/s, and when
# the agent.revoked event reached an SSE subscriber on B (p50/p90/max).
#   deploy/bench/fleet.sh [JDBC_URL] [ROUNDS] [LOAD_WORKERS]
# Default JDBC_URL: the machine's PostgreSQL (database test); a private schema per run is created and dropped.
# Defaults: 40 rounds, 16 load workers. WARDEN_STREAMS_MIRROR__COMMIT__INTERVAL__MS sets the audit mirror's
# transaction interval (default 20 ms), which bounds how long an SSE event waits. SSE latency at a paced event
# rate, and the audit events' throughput cost on one instance and two: deploy/bench/stream.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bin/find-jdk.sh
source deploy/bench/lib.sh
url="${1:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
rounds="${2:-40}"
workers="${3:-16}"
run_java_bench 2g FleetBench "$url" "$rounds" "$workers"
