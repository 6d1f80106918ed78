#!/usr/bin/env bash
# Rate limiter overhead: in-process cost per request of the memory store (target < 5 us) and latency and
# Redis commands per acquisition of the Redis store (target: one round trip). See docs/benchmarks.md.
#
#   deploy/bench/ratelimit.sh [REDIS_URL] [REDIS_OPS]     # defaults: redis://127.0.0.1:6379 20000
#
# The Redis part is skipped (and said so) when no Redis answers. Takes about a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bin/find-jdk.sh
redis="${1:-${WARDEN_TEST_REDIS_URL:-redis://127.0.0.1:6379}}"
ops="${2:-20000}"
source deploy/bench/lib.sh
build_java_bench
exec java -Xmx1g -XX:+UseParallelGC --enable-native-access=ALL-UNNAMED \
  -Djava.util.logging.config.file=api/server/src/main/resources/logging.properties \
  -cp "$BENCH_CP" dev.warden.bench.RateLimiterBench "$redis" "$ops"
