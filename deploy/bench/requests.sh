#!/usr/bin/env bash
# What an idle `warden dev` asks its embedded broker, per request type and client (issue 41: the idle target). Each
# request an idle client makes wakes the broker's network and request-handler threads, and a fetch parks in the
# fetch purgatory until it expires: the census says which clients to quiet first.
#
#   start    `warden dev` of the build on a fresh data directory, with Kafka's request logger on
#            (kafka.request.logger at FINE: one line per completed request, naming its type and client id)
#   settle   BENCH_SETTLE_SECONDS (default 90) of quiet
#   census   the requests completed in the next BENCH_WINDOW_SECONDS (default 60), per second, by type and client
#            (ids and numbers in client ids folded, so that one role's clients add up across runs)
#
# Usage: deploy/bench/requests.sh                   this checkout (built first when sources changed)
#        deploy/bench/requests.sh DIR               a copy of deploy/dev/target
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
log() { echo "[requests] $*" >&2; }
# shellcheck source=deploy/bench/lib.sh
source "$here/lib.sh"
# shellcheck source=bin/find-jdk.sh
source "$root/bin/find-jdk.sh"

settle=${BENCH_SETTLE_SECONDS:-90}
window=${BENCH_WINDOW_SECONDS:-60}
builds="$(dev_builds "$@")" || exit 1
dir="$(head -1 <<<"$builds")"
out="$(mktemp -d /var/tmp/warden-requests-XXXXXX)"
chmod 755 "$out"
trap 'pkill -KILL -f -- "$out/data" 2>/dev/null || true; rm -rf "$out/data"' EXIT

# The server's logging, plus the request logger and a console handler that lets its lines through.
sed -e 's/^kafka.level=WARNING$/kafka.level=WARNING\nkafka.request.logger.level=FINE/' \
  "$root/api/server/src/main/resources/logging.properties" >"$out/logging.properties"
echo "io.helidon.logging.jul.HelidonConsoleHandler.level=ALL" >>"$out/logging.properties"

mkdir -p "$out/data"
BENCH_LOGGING="$out/logging.properties" start_dev "$dir" "$(free_port)" "$out/data/dev" "$out/server.log"
await_dev_ready "$dev_pid" "$out/server.log" || { log "warden exited"; exit 1; }
log "$dir: ready; settling $settle s, then counting $window s"
sleep "$settle"
from=$(date +%Y-%m-%dT%H:%M:%S.%3N)
sleep "$window"
to=$(date +%Y-%m-%dT%H:%M:%S.%3N)
stop_dev "$dev_pid"

python3 - "$out/server.log" "$from" "$to" "$window" <<'PY' | tee "$out/report.txt"
import collections, re, sys
path, start, end, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
counts = collections.Counter()
for line in open(path, errors="replace"):
    m = re.match(r'^(\S+) .*?"requestApiKeyName":"(\w+)"', line)
    c = re.search(r'"clientId":"([^"]*)"', line)
    if not (m and c) or not (start <= m.group(1) <= end):
        continue
    client = re.sub(r'[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}', 'ID', c.group(1))
    client = re.sub(r'warden-[0-9a-f]{8}-', 'warden-INSTANCE-', client)
    counts[(m.group(2), re.sub(r'\d+', '#', client))] += 1
print("requests to the broker, per second, over %d s: %.2f" % (seconds, sum(counts.values()) / seconds))
for (kind, client), n in counts.most_common():
    print("  %6.2f  %-16s %s" % (n / seconds, kind, client))
PY
log "report: $out/report.txt"
