#!/usr/bin/env bash
# SIEM outage benchmark (issue 40): POST /authorize throughput on `warden dev` with its external audit sink (Splunk
# HEC) up, and with it down (its receiver stopped: connections refused), measured in one run on one warm JVM, rounds
# alternating up, down, up, down. The target: with the sink down, throughput stays within 5 % of the sink up (a failing
# sink delays nothing but itself). Then the receiver comes back and every decision answered meanwhile must reach it.
#
#   deploy/bench/sinks.sh
#
# Environment (all optional):
#   BENCH_DURATION=20      seconds per measured wrk run
#   BENCH_WARMUP=90        seconds of unmeasured warm-up
#   BENCH_WAIT_QUIET=120   seconds to wait for other processes to go quiet
#   BENCH_CONNECTIONS=16   wrk connections
#   BENCH_THREADS=2        wrk threads
#   BENCH_ROUNDS=2         rounds of (up, down)
#
# Installs wrk (apt-get) when missing. Logs and raw output are kept in deploy/bench/.cache/runs/sinks-<timestamp>/.
# Exit status: 0 when every run answered 2xx and the receiver got every decision after the outage (whether or not
# the 5 % target was met), 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$here/.cache"

DURATION="${BENCH_DURATION:-20}"
WARMUP="${BENCH_WARMUP:-90}"
WAIT_QUIET="${BENCH_WAIT_QUIET:-120}"
CONNS="${BENCH_CONNECTIONS:-16}"
THREADS="${BENCH_THREADS:-2}"
ROUNDS="${BENCH_ROUNDS:-2}"
ADMIN_TOKEN="wdn_adm_bench"

run_dir="$cache/runs/sinks-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run_dir"
failures=0
warnings=()
declare -A RPS P50 P99 REQS NON2XX ERRS CPU
warden_pid="" receiver_pid="" warden_data=""

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() { log "FAIL: $*"; failures=$((failures + 1)); }

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=wrk.sh
source "$(dirname "${BASH_SOURCE[0]}")/wrk.sh"

cleanup() {
  stop_pid "$receiver_pid" receiver
  stop_pid "$warden_pid" warden
  [[ -n "$warden_data" && -d "$warden_data" ]] && rm -rf "$warden_data"
  return 0
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

if ! command -v wrk >/dev/null; then
  log "installing wrk (apt-get)"
  apt-get install -y wrk >"$run_dir/apt.log" 2>&1 || {
    apt-get update >>"$run_dir/apt.log" 2>&1
    apt-get install -y wrk >>"$run_dir/apt.log" 2>&1
  }
fi
command -v wrk >/dev/null || { log "wrk is not installed and could not be installed"; exit 1; }

# ---------------------------------------------------------------- the receiver: a HEC endpoint that counts events
receiver_port="$(free_port)"
start_receiver() {
  python3 - "$receiver_port" "$run_dir/received.txt" >>"$run_dir/receiver.log" 2>&1 <<'PY' &
import http.server, re, sys, threading
port, out = int(sys.argv[1]), sys.argv[2]
ids, lock = set(), threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real collector
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        with lock:
            ids.update(re.findall(r'"id":"(aud_[A-Za-z0-9]+)"', body))
            open(out, "w").write(str(len(ids)))
        reply = b'{"text":"Success","code":0}'
        self.send_response(200); self.send_header("Content-Length", str(len(reply))); self.end_headers()
        self.wfile.write(reply)
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
class S(http.server.ThreadingHTTPServer):
    request_queue_size = 128
S(("127.0.0.1", port), H).serve_forever()
PY
  receiver_pid=$!
  wait_http "http://127.0.0.1:$receiver_port/" 30 >/dev/null 2>&1 || true
}
stop_receiver() {
  stop_pid "$receiver_pid" receiver
  receiver_pid=""
}
echo 0 >"$run_dir/received.txt"
start_receiver

# ---------------------------------------------------------------- warden dev with the sink
cat >"$run_dir/warden.yml" <<YAML
warden:
  sinks:
    audit:
      - type: splunk-hec
        url: http://127.0.0.1:$receiver_port
        secret: bench-token
        options: {name: siem, retry-ceiling-ms: "5000"}
YAML
warden_port="$(free_port)"
warden_data="$(mktemp -d /var/tmp/warden-bench.XXXXXX)"
chmod 755 "$warden_data"
B="http://127.0.0.1:$warden_port"
log "starting warden dev on 127.0.0.1:$warden_port with a splunk-hec sink at 127.0.0.1:$receiver_port"
(
  cd "$root"
  export WARDEN_BOOTSTRAP_TOKEN="$ADMIN_TOKEN" WARDEN_SERVER_HOST=127.0.0.1
  exec setsid ./warden dev --port "$warden_port" --data-dir "$warden_data" --config "$run_dir/warden.yml"
) >"$run_dir/warden.log" 2>&1 &
warden_pid=$!
wait_warden_healthy "$B" "$warden_pid" "$run_dir/warden.log" || exit 1

created="$(curl -s --max-time 30 -X POST "$B/agents" -H "Authorization: Bearer $ADMIN_TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"ownerId":"bench","name":"bench-agent","type":"autonomous","permissions":[{"resource":"mcp:svc:*","actions":["read"]}]}')"
agent_id="$(sed -nE 's/.*"id":"(agt_[^"]+)".*/\1/p' <<<"$created")"
[[ -n "$agent_id" ]] || { log "could not create the bench agent: $created"; exit 1; }
body="{\"agentId\":\"$agent_id\",\"action\":\"read\",\"resource\":\"mcp:svc:items:7\"}"
write_lua "$run_dir/warden.lua" "$body" "Authorization: Bearer $ADMIN_TOKEN"
answer="$(curl -s --max-time 10 -X POST "$B/authorize" -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' -d "$body")"
grep -q '"allowed":true' <<<"$answer" || fail "the benchmark decision is not allowed: $answer"
answered=1

wait_quiet "the runs" "$warden_pid" "$warden_data"
if ((WARMUP > 0)); then
  log "warm-up (${WARMUP}s, $CONNS connections, sink up)"
  wrk -t "$THREADS" -c "$CONNS" -d "${WARMUP}s" --timeout 5s -s "$run_dir/warden.lua" "$B/authorize" >"$run_dir/wrk-warmup.txt" 2>&1 || true
  answered=$((answered + $(awk '/requests in/ { print $1 }' "$run_dir/wrk-warmup.txt")))
fi
ups=() downs=()
for r in $(seq 1 "$ROUNDS"); do
  [[ -z "$receiver_pid" ]] && start_receiver
  run_wrk "up-$r" "$B/authorize" "$run_dir/warden.lua" "$CONNS" "$warden_pid" "$warden_data"
  ups+=("${RPS[up-$r]:-0}")
  answered=$((answered + ${REQS[up-$r]:-0}))
  stop_receiver
  sleep 2
  run_wrk "down-$r" "$B/authorize" "$run_dir/warden.lua" "$CONNS" "$warden_pid" "$warden_data"
  downs+=("${RPS[down-$r]:-0}")
  answered=$((answered + ${REQS[down-$r]:-0}))
  health="$(curl -s --max-time 5 "$B/observe/health" || true)"
  grep -q 'audit-sink:siem' <<<"$health" && log "  health while down: $(grep -o 'audit-sink:siem[^"]*' <<<"$health" | head -1)"
done

# ---------------------------------------------------------------- nothing lost
start_receiver
log "receiver back; waiting for every answered decision ($answered) to reach it"
back_at=$SECONDS before_back="$(cat "$run_dir/received.txt" 2>/dev/null || echo 0)"
deadline=$((SECONDS + 600)) got=0
while ((SECONDS < deadline)); do
  got="$(cat "$run_dir/received.txt" 2>/dev/null || echo 0)"
  ((got >= answered)) && break
  sleep 2
done
((got >= answered)) || fail "the receiver got $got distinct entries of $answered answered decisions within 600 s"
catch_up="$(awk -v g="$got" -v b="$before_back" -v t=$((SECONDS - back_at)) 'BEGIN { printf "%.0f", (t > 0) ? (g - b) / t : 0 }')"

median() { tr ' ' '\n' <<<"$*" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
up="$(median "${ups[@]}")" down="$(median "${downs[@]}")"
ratio="$(awk -v u="$up" -v d="$down" 'BEGIN { printf "%.3f", (u > 0) ? d / u : 0 }')"
{
  echo "POST /authorize on warden dev with a splunk-hec audit sink, $CONNS connections, ${DURATION}s per run, $ROUNDS rounds"
  for r in $(seq 1 "$ROUNDS"); do
    echo "  round $r: sink up ${RPS[up-$r]:-?}/s (p50 ${P50[up-$r]:-?} ms, p99 ${P99[up-$r]:-?} ms; ${CPU[up-$r]:-}), sink down ${RPS[down-$r]:-?}/s (p50 ${P50[down-$r]:-?} ms, p99 ${P99[down-$r]:-?} ms; ${CPU[down-$r]:-})"
  done
  echo "  median: up $up/s, down $down/s: down/up = $ratio (target >= 0.95)"
  echo "  after the outage the receiver got $got distinct entries for $answered answered decisions (catching up at $catch_up/s, no load)"
  for w in "${warnings[@]}"; do echo "  warning: $w"; done
} | tee "$run_dir/summary.txt"
awk -v r="$ratio" 'BEGIN { exit !(r < 0.95) }' && log "the 5 % target is missed: down/up = $ratio"
exit $((failures > 0 ? 1 : 0))
