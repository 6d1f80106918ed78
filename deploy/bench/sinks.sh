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
#   WARDEN_JAVA_OPTS       extra options of the Warden JVM (read by ./warden), e.g. -XX:StartFlightRecording=...
#
# The catch-up figure is on the receiver's clock: the entries new to it after it came back, over the time until the
# last of them arrived; the receiver's own time per request is beside it (a slow receiver would measure itself).
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
  rm -f "$run_dir/ids.txt" # the receiver's memory (tens of MB); its count stays in received.txt
  stop_pid "$warden_pid" warden
  [[ -n "$warden_data" && -d "$warden_data" ]] && rm -rf "$warden_data"
  return 0
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

ensure_wrk

# ---------------------------------------------------------------- the receiver: a HEC endpoint that counts events
# It counts distinct entry ids over all its lives: each new id is appended to ids.txt, which a restarted receiver
# reads first, so that what it reports (received.txt) is everything delivered since the start, not only what reached
# this process. It sends its answer without Nagle's delay: Python's http.server writes the headers and the body in
# two sends, and the second waited for the client's delayed ACK (40 ms), which held every batch for about 50 ms.
# receiver-stats.txt, for this life of the receiver: distinct ids, requests, seconds spent in the handler, epoch
# second of the last new id, the distinct ids when it began to listen, and the epoch second it did.
receiver_port="$(free_port)"
start_receiver() {
  python3 - "$receiver_port" "$run_dir" >>"$run_dir/receiver.log" 2>&1 <<'PY' &
import http.server, os, re, sys, threading, time
port, run = int(sys.argv[1]), sys.argv[2]
ids, lock = set(), threading.Lock()
if os.path.exists(run + "/ids.txt"):
    with open(run + "/ids.txt") as f:
        ids.update(line.strip() for line in f if line.strip())
seen = open(run + "/ids.txt", "a")
stats = {"requests": 0, "busy": 0.0, "last_new": time.time(), "at_start": len(ids), "started": time.time()}
def publish(name, text):
    with open(run + "/" + name + ".tmp", "w") as f:
        f.write(text)
    os.replace(run + "/" + name + ".tmp", run + "/" + name)
def report():
    publish("received.txt", str(len(ids)))
    publish("receiver-stats.txt", "%d %d %.3f %.3f %d %.3f\n" % (len(ids), stats["requests"], stats["busy"],
                                                                  stats["last_new"], stats["at_start"], stats["started"]))
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real collector
    disable_nagle_algorithm = True
    def do_POST(self):
        started = time.perf_counter()
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        with lock:
            new = set(re.findall(r'"id":"(aud_[A-Za-z0-9]+)"', body)) - ids
            if new:
                ids.update(new)
                seen.write("\n".join(new) + "\n")
                seen.flush()
                stats["last_new"] = time.time()
        reply = b'{"text":"Success","code":0}'
        self.send_response(200); self.send_header("Content-Length", str(len(reply))); self.end_headers()
        self.wfile.write(reply)
        with lock:
            stats["requests"] += 1
            stats["busy"] += time.perf_counter() - started
            report()
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
class S(http.server.ThreadingHTTPServer):
    request_queue_size = 128
server = S(("127.0.0.1", port), H)
stats["started"] = time.time()
report()
server.serve_forever()
PY
  receiver_pid=$!
  wait_http "http://127.0.0.1:$receiver_port/" 30 >/dev/null 2>&1 || true
}
stop_receiver() {
  stop_pid "$receiver_pid" receiver
  receiver_pid=""
}
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
deadline=$((SECONDS + 600)) got=0
while ((SECONDS < deadline)); do
  got="$(cat "$run_dir/received.txt" 2>/dev/null || echo 0)"
  ((got >= answered)) && break
  sleep 2
done
((got >= answered)) || fail "the receiver got $got distinct entries of $answered answered decisions within 600 s"
# From the receiver's own clock: entries new to it since it listened again, over the time until the last of them.
requests=0 busy=0 last_new=0 at_start=0 listening=0
read -r _ requests busy last_new at_start listening <"$run_dir/receiver-stats.txt" || true
catch_up="$(awk -v g="$got" -v b="$at_start" -v t="$(awk -v l="$last_new" -v s="$listening" 'BEGIN { print l - s }')" \
  'BEGIN { printf "%.0f", (t > 0) ? (g - b) / t : 0 }')"
per_request="$(awk -v r="$requests" -v b="$busy" 'BEGIN { printf "%.1f", (r > 0) ? 1000 * b / r : 0 }')"
median() { tr ' ' '\n' <<<"$*" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
up="$(median "${ups[@]}")" down="$(median "${downs[@]}")"
ratio="$(awk -v u="$up" -v d="$down" 'BEGIN { printf "%.3f", (u > 0) ? d / u : 0 }')"
{
  echo "POST /authorize on warden dev with a splunk-hec audit sink, $CONNS connections, ${DURATION}s per run, $ROUNDS rounds"
  for r in $(seq 1 "$ROUNDS"); do
    echo "  round $r: sink up ${RPS[up-$r]:-?}/s (p50 ${P50[up-$r]:-?} ms, p99 ${P99[up-$r]:-?} ms; ${CPU[up-$r]:-}), sink down ${RPS[down-$r]:-?}/s (p50 ${P50[down-$r]:-?} ms, p99 ${P99[down-$r]:-?} ms; ${CPU[down-$r]:-})"
  done
  echo "  median: up $up/s, down $down/s: down/up = $ratio (target >= 0.95)"
  echo "  after the outage the receiver got $got distinct entries for $answered answered decisions (catching up at $catch_up/s, no load: $((got - at_start)) entries in $requests requests, $per_request ms of the receiver's own time per request)"
  for w in "${warnings[@]}"; do echo "  warning: $w"; done
} | tee "$run_dir/summary.txt"
awk -v r="$ratio" 'BEGIN { exit !(r < 0.95) }' && log "the 5 % target is missed: down/up = $ratio"
exit $((failures > 0 ? 1 : 0))
