#!/usr/bin/env bash
# The quota path: POST /authorize on an agent whose permission has `maxCallsPerHour`, so that every decision asks
# the quota application over Kafka and waits for its exactly-once reply (issue 41: the quota path's latency must not
# regress). `warden dev` from each build in turns:
#
#   load     wrk at each of BENCH_CONNECTIONS for BENCH_DURATION s, after BENCH_WARMUP s of unmeasured load at the
#            largest: decisions/s, p50, p99, and the server's CPU
#   sparse   then BENCH_SPARSE single calls, one at a time, at random intervals of 50-200 ms (an agent working
#            alone): p50 / p90 / p99 / max. Random, because calls at a fixed period beat against the quota
#            application's poll loop and measure that rhythm rather than the path (docs/benchmarks-notebook.md)
#
# Usage: deploy/bench/quota.sh                       this checkout (built first when sources changed)
#        deploy/bench/quota.sh DIR [DIR ...]         copies of deploy/dev/target, one per build, measured in turns
#        BENCH_ROUNDS=2 deploy/bench/quota.sh A B    A, B, A, B
#
# Environment (all optional): BENCH_DURATION=20, BENCH_WARMUP=60, BENCH_CONNECTIONS="16 64", BENCH_THREADS=2,
# BENCH_SPARSE=200, BENCH_WAIT_QUIET=60, BENCH_ROUNDS=1. Installs wrk (apt-get) when missing. Exit status 0 when every
# call answered 2xx and the checked decisions were allowed, 1 otherwise.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

DURATION="${BENCH_DURATION:-20}"
WARMUP="${BENCH_WARMUP:-60}"
CONNECTIONS="${BENCH_CONNECTIONS:-16 64}"
WARM_CONNS="$(tr ' ' '\n' <<<"$CONNECTIONS" | sort -n | tail -1)"
THREADS="${BENCH_THREADS:-2}"
SPARSE="${BENCH_SPARSE:-200}"
WAIT_QUIET="${BENCH_WAIT_QUIET:-60}"
ROUNDS="${BENCH_ROUNDS:-1}"
ADMIN_TOKEN="wdn_adm_bench"

run_dir="$here/.cache/runs/quota-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run_dir"
failures=0
warnings=()
declare -A RPS P50 P99 REQS NON2XX ERRS CPU SPARSE_STATS
warden_pid="" warden_data=""

log() { printf '[quota %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() { log "FAIL: $*"; failures=$((failures + 1)); }

# shellcheck source=deploy/bench/lib.sh
source "$here/lib.sh"
# shellcheck source=deploy/bench/wrk.sh
source "$here/wrk.sh"
# shellcheck source=bin/find-jdk.sh
source "$root/bin/find-jdk.sh"

cleanup() {
  stop_pid "$warden_pid" warden
  [[ -n "$warden_data" && -d "$warden_data" ]] && rm -rf "$warden_data"
  return 0
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

ensure_wrk

builds="$(dev_builds "$@")" || exit 1
readarray -t builds <<<"$builds"

# sparse URL BODY N: N calls one at a time, each after a random 50-200 ms; prints "p50 p90 p99 max non2xx".
sparse() {
  python3 - "$1" "$2" "$3" "$ADMIN_TOKEN" <<'EOF'
import http.client, random, sys, time, urllib.parse
url, body, n, token = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3]), sys.argv[4]
u = urllib.parse.urlsplit(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
times, bad = [], 0
for _ in range(n):
    time.sleep(random.uniform(0.05, 0.2))
    t0 = time.perf_counter()
    conn.request("POST", u.path, body, headers)
    r = conn.getresponse()
    answer = r.read()
    times.append((time.perf_counter() - t0) * 1000)
    if r.status != 200 or b'"allowed":true' not in answer:
        bad += 1
times.sort()
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print("%.1f %.1f %.1f %.1f %d" % (pick(0.5), pick(0.9), pick(0.99), times[-1], bad))
EOF
}

# measure LABEL DIR
measure() {
  local label="$1" dir="$2" port created agent_id body answer stats
  warden_data="$(mktemp -d /var/tmp/warden-quota.XXXXXX)"
  chmod 755 "$warden_data"
  port=$(free_port)
  local B="http://127.0.0.1:$port"
  log "$label: warden dev from $dir on $B"
  WARDEN_BOOTSTRAP_TOKEN="$ADMIN_TOKEN" WARDEN_SERVER_HOST=127.0.0.1 \
    start_dev "$dir" "$port" "$warden_data/dev" "$run_dir/$label.log"
  warden_pid=$dev_pid
  wait_warden_healthy "$B" "$warden_pid" "$run_dir/$label.log" || exit 1
  created="$(curl -s --max-time 30 -X POST "$B/agents" -H "Authorization: Bearer $ADMIN_TOKEN" \
    -H 'Content-Type: application/json' \
    -d '{"ownerId":"bench","name":"quota-agent","type":"autonomous","permissions":[{"resource":"mcp:svc:*","actions":["read"],"constraints":{"maxCallsPerHour":1000000000}}]}')"
  agent_id="$(sed -nE 's/.*"id":"(agt_[^"]+)".*/\1/p' <<<"$created")"
  [[ -n "$agent_id" ]] || { log "could not create the agent: $created"; exit 1; }
  body="{\"agentId\":\"$agent_id\",\"action\":\"read\",\"resource\":\"mcp:svc:items:7\"}"
  answer="$(curl -s --max-time 10 -X POST "$B/authorize" -H "Authorization: Bearer $ADMIN_TOKEN" \
    -H 'Content-Type: application/json' -d "$body")"
  grep -q '"allowed":true' <<<"$answer" || fail "$label: the quota-limited decision is not allowed: $answer"
  write_lua "$run_dir/$label.lua" "$body" "Authorization: Bearer $ADMIN_TOKEN"
  wait_quiet "$label" "$warden_pid" "$warden_data"
  if ((WARMUP > 0)); then
    log "$label: warm-up (${WARMUP}s, $WARM_CONNS connections)"
    wrk -t "$THREADS" -c "$WARM_CONNS" -d "${WARMUP}s" --timeout 5s -s "$run_dir/$label.lua" "$B/authorize" \
      >"$run_dir/wrk-$label-warmup.txt" 2>&1 || true
  fi
  for c in $CONNECTIONS; do
    run_wrk "$label-$c" "$B/authorize" "$run_dir/$label.lua" "$c" "$warden_pid" "$warden_data"
  done
  sleep 10 # the sinks and the pipeline catch up
  read -r p50 p90 p99 max bad < <(sparse "$B/authorize" "$body" "$SPARSE")
  SPARSE_STATS[$label]="p50 $p50 / p90 $p90 / p99 $p99 / max $max ms"
  ((bad == 0)) || fail "$label: $bad of $SPARSE sparse calls not answered 200 allowed"
  log "  $label sparse ($SPARSE calls, 50-200 ms apart): ${SPARSE_STATS[$label]}"
  stop_pid "$warden_pid" warden
  warden_pid=""
  rm -rf "$warden_data"
  warden_data=""
}

labels=()
for r in $(seq 1 "$ROUNDS"); do
  n=0
  for dir in "${builds[@]}"; do
    n=$((n + 1))
    measure "build$n-round$r" "$dir"
    labels+=("build$n-round$r")
  done
done

{
  printf '\nQuota-limited POST /authorize (every decision through the quota application), warden dev\n'
  n=0
  for dir in "${builds[@]}"; do
    n=$((n + 1))
    printf '  build%d = %s\n' "$n" "$dir"
  done
  for label in "${labels[@]}"; do
    printf '%s\n' "$label"
    for c in $CONNECTIONS; do
      printf '  %3s connections: %6s decisions/s, p50 %s ms, p99 %s ms; cpu: %s\n' \
        "$c" "${RPS[$label-$c]:-?}" "${P50[$label-$c]:-?}" "${P99[$label-$c]:-?}" "${CPU[$label-$c]:-?}"
    done
    printf '  sparse, one call at a time 50-200 ms apart: %s\n' "${SPARSE_STATS[$label]:-?}"
  done
  for w in "${warnings[@]}"; do printf 'warning: %s\n' "$w"; done
} | tee "$run_dir/report.txt"
log "report: $run_dir/report.txt"
((failures == 0))
