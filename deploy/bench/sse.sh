#!/usr/bin/env bash
# SSE fan-out benchmark: Warden's GET /events/stream against Pushpin (Debian package) on the same load, in the
# same run, on 127.0.0.1. For each point (clients x events/s in total, broadcast or partitioned) it opens the
# clients, waits for every `200`, publishes events at the rate for BENCH_DURATION seconds with the send time
# inside each event, and
# measures publish-to-receive latency for every delivery (deploy/bench/sse/SseLoad.java), the resident memory
# per connection (VmRSS after connecting - before, / clients) and the server's CPU. Prints one table and the
# Warden/Pushpin ratios; see docs/benchmarks-notebook.md ("SSE fan-out: Warden vs Pushpin").
#
#   deploy/bench/sse.sh
#
# Environment (all optional):
#   BENCH_POINTS="10000:1000:part 10000:10 1000:100"  clients:events-per-second in total[:part], run for both
#                         servers in this order, each on freshly started servers. Broadcast (default): every
#                         client receives every event (deliveries/s = clients x rate). `part`: one partition per
#                         client, each event goes to one client (deliveries/s = rate): Warden clients are 10,000
#                         agents, each subscribed with its own token and seeing only events about itself (the
#                         production shape: a subscriber sees its own agents' events); Pushpin clients subscribe to
#                         one channel each. Issue 41's target is 50000:1000:part (p99 < 100 ms, every event
#                         delivered, < 20 KB of live heap per connection): each client needs a descriptor in the
#                         load client and in the server, so a point runs only when the open files limit holds it
#                         (the script raises the soft limit up to the hard one; where the hard limit is 20,000,
#                         19000:1000:part is the largest point) and is skipped, as a failure, otherwise.
#   BENCH_API_POINTS=""   broadcast points ALSO run through Warden's public API (POST /agents/:id/costs) instead of
#                         producing to Kafka (e.g. "10000:5")
#   BENCH_DURATION=30     seconds of publishing per point
#   BENCH_DRAIN=15        at most this many seconds after the last publish to wait for deliveries
#   BENCH_WARMUP=5        seconds of unmeasured publishing (at most 50 events/s) before each measurement
#   BENCH_THREADS=2       selector threads of the load client
#   BENCH_WARDEN_XMX=2g   Warden's heap
#   BENCH_WARDEN_JAVA_OPTS="-XX:MaxGCPauseMillis=50"  more JVM options for Warden (G1 pause goal: 10,000
#                         connections make a large old generation, and G1's default 200 ms goal shows in the p99)
#   BENCH_SKIP_PUSHPIN=1  Warden only
#   BENCH_WARDEN_JAR=PATH run this launcher jar (its libs/ beside it) instead of `./warden dev`, which rebuilds from
#                         the work tree when sources changed (two builds in one run: a copy of deploy/dev/target each)
#   BENCH_SOURCE_ADDRESSES=N  the load client's source addresses 127.0.0.1..N (default: one per 20,000 clients;
#                         loopback has about 28,000 ephemeral ports per source and destination address)
#
# Publishing. Warden: "kafka" rows produce the event (a cost.recorded event, byte for byte the shape of a real
# one, its `tool` = "bench_<send time in epoch µs>") straight to `warden.events`, Warden's event bus, which the
# SSE hub consumes: this measures the fan-out. "api" rows POST /agents/:id/costs with the admin token (`tool`
# carries the send time), which adds the HTTP request, the PostgreSQL transaction and the event outbox (whose
# flush is serialized, so it caps the event rate). Pushpin: POST http://127.0.0.1:5561/publish/ with one item
# whose `http-stream` content is the same SSE frame (same id/event/data bytes). One event per publish call
# everywhere. Pushpin's rate limiter is raised (message_rate, message_hwm: by default it delivers at most
# 2,500 messages/s and drops beyond 25,000 queued), and it logs warnings only (Warden logs no line per client).
#
# Memory. Warden: VmRSS of the JVM (not the embedded Kafka/PostgreSQL, which are threads/children that hold no
# client connection), and the live heap after a full GC (jcmd). Pushpin: VmRSS summed over the pushpin runner and
# its children (condure, zurl, pushpin-proxy, pushpin-handler). The GRIP origin (GripOrigin.java) is left out:
# it only answers each new subscription with `Grip-Hold: stream` and holds nothing.
#
# Needs: JDK 21+ (bin/find-jdk.sh), pushpin (apt-get install pushpin; installed when missing), curl.
# Logs and raw results: deploy/bench/sse/.runs/<timestamp>/. Exit status 0 when every run connected all its
# clients and delivered something (whatever the latency), 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sse="$here/sse"

POINTS="${BENCH_POINTS:-10000:1000:part 10000:10 1000:100}"
API_POINTS="${BENCH_API_POINTS-}"
DURATION="${BENCH_DURATION:-30}"
DRAIN="${BENCH_DRAIN:-15}"
WARMUP="${BENCH_WARMUP:-5}"
THREADS="${BENCH_THREADS:-2}"
XMX="${BENCH_WARDEN_XMX:-2g}"
SKIP_PUSHPIN="${BENCH_SKIP_PUSHPIN:-0}"
WARDEN_JAR="${BENCH_WARDEN_JAR:-}"
ADMIN="wdn_adm_bench"
# The issue's target (issue 41): 50,000 clients x 1,000 events/s partitioned, p99 < 100 ms, every event delivered,
# live heap < 20 KB per connection. Every Warden `part` point at that rate is judged against the same bounds.
TARGET_CLIENTS=50000
TARGET_RATE=1000
TARGET_P99_MS=100
TARGET_HEAP_KB=20

run_dir="$sse/.runs/sse-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run_dir"
failures=0
warden_pid="" warden_data="" warden_port="" warden_kafka="" warden_agent=""
pushpin_pid="" origin_pid="" origin_port="" pushpin_dir="" pushpin_http="" pushpin_pub=""

log() { printf '[sse-bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() { log "FAIL: $*"; failures=$((failures + 1)); }

# ---------------------------------------------------------------- helpers

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
  stop_pid "$warden_pid" warden; warden_pid=""
  stop_pid "$pushpin_pid" pushpin; pushpin_pid=""
  stop_pid "$origin_pid" "grip origin"; origin_pid=""
  [[ -n "$warden_data" && -d "$warden_data" ]] && rm -rf "$warden_data"
  [[ -n "$pushpin_dir" && -d "$pushpin_dir" ]] && rm -rf "$pushpin_dir"
  return 0
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---------------------------------------------------------------- setup

# shellcheck source=../../bin/find-jdk.sh
source "$root/bin/find-jdk.sh"
log "JDK: $JAVA_HOME ($(java -version 2>&1 | head -1))"

max_clients=0
for p in $POINTS $API_POINTS; do ((${p%%:*} > max_clients)) && max_clients=${p%%:*}; done
# point_clients / point_rate / point_shape POINT: the parts of clients:rate[:part]
point_clients() { echo "${1%%:*}"; }
point_rate() { local r="${1#*:}"; echo "${r%%:*}"; }
point_shape() { [[ "$1" == *:*:part ]] && echo part || echo bcast; }
# Every process started below inherits this limit: N clients need N descriptors in the load client and N in the
# server (which has about 500 of its own: jars, Kafka's log segments, PostgreSQL connections). The soft limit is
# raised to what the largest point needs; the hard limit can be raised only by a process with CAP_SYS_RESOURCE
# (e.g. `prlimit --nofile=120000:120000 --pid $$` as root on a normal machine, or LimitNOFILE in a unit).
FD_MARGIN=1000
want_fds=$((max_clients + FD_MARGIN))
((want_fds < 65536)) && want_fds=65536
hard_fds="$(ulimit -Hn)"
if [[ "$hard_fds" == unlimited ]] || ((hard_fds >= want_fds)); then ulimit -n "$want_fds"; else ulimit -n "$hard_fds"; fi
NOFILE="$(ulimit -n)"
log "open files limit: $NOFILE (hard $hard_fds); local port range: $(tr '\t' ' ' </proc/sys/net/ipv4/ip_local_port_range)"
# fits CLIENTS: true when one process may hold CLIENTS connections and its own descriptors.
fits() { [[ "$NOFILE" == unlimited ]] || (($1 + FD_MARGIN <= NOFILE)); }
if ! fits "$max_clients"; then
  log "WARNING: the open files limit ($NOFILE, hard $hard_fds) is below $max_clients clients + $FD_MARGIN: such points" \
    "are skipped (a process cannot hold more descriptors than its hard limit; raising it needs CAP_SYS_RESOURCE)"
fi
ports=$(awk '{print $2 - $1 + 1}' /proc/sys/net/ipv4/ip_local_port_range)
# The load client spreads its connections over the source addresses 127.0.0.1, .2, ... (one per 20,000 clients,
# SseLoad --source-addresses): each (source, destination) pair has the whole ephemeral range.
if ((ports < 20000 + 1000)); then
  log "WARNING: only $ports ephemeral ports per source address, SseLoad uses 20,000 (sysctl net.ipv4.ip_local_port_range)"
fi

apt_install() {
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >"$run_dir/apt.log" 2>&1; then
    log "apt-get install $* failed; running apt-get update once"
    apt-get update -q >>"$run_dir/apt.log" 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >>"$run_dir/apt.log" 2>&1
  fi
}
if ! command -v curl >/dev/null; then apt_install curl; fi
if [[ "$SKIP_PUSHPIN" != 1 ]] && ! command -v pushpin >/dev/null; then
  # Baseline: pushpin (bookworm has pushpin 1.36 with condure and zurl; nginx + libnginx-mod-nchan would be the
  # alternative, not used here).
  log "installing pushpin (apt-get)"
  apt_install pushpin || { log "pushpin could not be installed (see $run_dir/apt.log)"; exit 1; }
fi
[[ "$SKIP_PUSHPIN" == 1 ]] || log "baseline: $(pushpin --version 2>&1 | head -1), $(condure --version 2>&1 | head -1), zurl $(dpkg-query -W -f='${Version}' zurl 2>/dev/null)"

# The load client needs kafka-clients (from Warden's own libs) for the "kafka" rows.
kafka_cp() {
  local libs="$root/deploy/dev/target/libs" cp="" j
  for j in "$libs"/kafka-clients-*.jar "$libs"/slf4j-api-*.jar "$libs"/lz4-java-*.jar "$libs"/snappy-java-*.jar \
           "$libs"/zstd-jni-*.jar; do
    [[ -f "$j" ]] && cp="${cp:+$cp:}$j"
  done
  echo "$cp"
}

# The event data, as Warden sends it for a cost.recorded (the agent id is filled in later).
event_json() { # AGENT -> client-facing JSON of the event, with {SEQ} {ISO} {TS} placeholders
  printf '{"id":"{SEQ}","type":"cost.recorded","timestamp":"{ISO}","data":{"cost":{"id":"cst_bench{SEQ}","agentId":"%s","tool":"bench_{TS}","inputTokens":1,"outputTokens":1,"costUsd":0.001,"recordedAt":"{ISO}"},"actor":{"id":"admin"}},"agentId":"%s","userId":"bench"}' "$1" "$1"
}

# run_load NAME OUTFILE ARGS...: one SseLoad run, its log in the run dir.
run_load() {
  local name="$1" out="$2"; shift 2
  log "run $name"
  local cp_args=()
  [[ -n "${LOAD_CP:-}" ]] && cp_args=(-cp "$LOAD_CP")
  # Bounded: connect (≤180 s) + settle + duration + POST wait (≤15 s) + drain + margin.
  local source_args=()
  [[ -n "${BENCH_SOURCE_ADDRESSES:-}" ]] && source_args=(--source-addresses "$BENCH_SOURCE_ADDRESSES")
  if ! timeout $((300 + DURATION + DRAIN)) java -Xmx1g "${cp_args[@]}" "$sse/SseLoad.java" --threads "$THREADS" \
      --duration "$DURATION" --drain "$DRAIN" --warmup "$WARMUP" --out "$out" "${source_args[@]}" "$@" \
      >"$run_dir/$name.log" 2>&1; then
    fail "$name: load client failed (see $run_dir/$name.log)"
  fi
  grep -E '^\[sseload' "$run_dir/$name.log" | sed 's/^/    /' >&2 || true
  if [[ -f "$out" ]]; then
    local want got recv
    want=$(prop "$out" clients_requested); got=$(prop "$out" connected); recv=$(prop "$out" deliveries_received)
    if [[ "$got" != "$want" ]]; then fail "$name: connected $got of $want clients ($(prop "$out" errors))"; fi
    if [[ "${recv:-0}" == 0 ]]; then fail "$name: no event delivered"; fi
  fi
  sleep 5
}

prop() { [[ -f "$1" ]] && sed -n "s/^$2=//p" "$1" | head -1; }

# ---------------------------------------------------------------- Warden

# warden_start: a fresh `warden dev` (new data dir), sets warden_port, warden_kafka, warden_agent.
warden_start() {
  warden_port=$(free_port)
  warden_data=$(mktemp -d /var/tmp/warden-sse-bench.XXXXXX)
  chmod 755 "$warden_data"
  log "starting warden dev on 127.0.0.1:$warden_port (data $warden_data; ${WARDEN_JAR:-./warden, builds first if sources changed})"
  local before
  before=$(grep -c '^ *Kafka: ' "$run_dir/warden.log" 2>/dev/null || true)
  before=${before:-0}
  local java_opts="-Xmx$XMX ${BENCH_WARDEN_JAVA_OPTS--XX:MaxGCPauseMillis=50}" launcher=("$root/warden")
  if [[ -n "$WARDEN_JAR" ]]; then
    [[ -f "$WARDEN_JAR" ]] || { fail "BENCH_WARDEN_JAR=$WARDEN_JAR does not exist"; return 1; }
    # shellcheck disable=SC2206
    launcher=(java --enable-native-access=ALL-UNNAMED
      "-Djava.util.logging.config.file=$root/api/server/src/main/resources/logging.properties" $java_opts -jar "$WARDEN_JAR")
  fi
  WARDEN_BOOTSTRAP_TOKEN="$ADMIN" WARDEN_EVENTS_MAX__CONNECTIONS=$((max_clients + 2000)) \
    WARDEN_EVENTS_HEARTBEAT__INTERVAL__MS=30000 \
    WARDEN_JAVA_OPTS="$java_opts" setsid "${launcher[@]}" dev --port "$warden_port" --data-dir "$warden_data" \
    >>"$run_dir/warden.log" 2>&1 &
  warden_pid=$!
  if ! wait_http "http://127.0.0.1:$warden_port/observe/health" 900 "$warden_pid"; then
    fail "warden did not become healthy (see $run_dir/warden.log)"
    warden_stop
    return 1
  fi
  # ./warden execs java: the pid is the JVM's.
  # The banner (with the Kafka address) is printed just after the server answers: wait for it.
  local banner_deadline=$((SECONDS + 60))
  while [[ "$(grep -c '^ *Kafka: ' "$run_dir/warden.log" || true)" == "$before" ]] && ((SECONDS < banner_deadline)); do
    sleep 0.2
  done
  warden_kafka=$(sed -n 's/^ *Kafka: *\(127\.0\.0\.1:[0-9]*\).*/\1/p' "$run_dir/warden.log" | tail -1)
  warden_agent=$(curl -s -X POST "http://127.0.0.1:$warden_port/agents" -H "Authorization: Bearer $ADMIN" \
    -H 'Content-Type: application/json' \
    -d '{"ownerId":"bench","name":"sse-bench","type":"autonomous","permissions":[]}' |
    sed -n 's/^{"id":"\(agt_[a-z0-9]*\)".*/\1/p')
  if [[ -z "$warden_agent" ]]; then fail "could not create the bench agent"; warden_stop; return 1; fi
  log "warden ready (JVM pid $warden_pid, Kafka $warden_kafka, agent $warden_agent)"
}

warden_stop() {
  stop_pid "$warden_pid" warden; warden_pid=""
  [[ -n "$warden_data" && -d "$warden_data" ]] && rm -rf "$warden_data"
  warden_data=""
}

# warden_point MODE CLIENTS RATE SHAPE: one point on a freshly started Warden. MODE kafka | api; SHAPE bcast |
# part (kafka only: CLIENTS agents, each client subscribed with one agent's token, each event about one agent).
warden_point() {
  local mode="$1" clients="$2" rate="$3" shape="$4" name="warden-$1-$2-$3-$4"
  if ! fits "$clients"; then fail "$name: skipped, $clients clients need more than the open files limit $NOFILE"; return 0; fi
  warden_start || return 0
  local publish=() partition=() url="http://127.0.0.1:$warden_port/events/stream?types=cost.recorded"
  local auth=(--header "Authorization: Bearer $ADMIN")
  if [[ "$shape" == part ]]; then
    log "creating $clients agents (one per client)"
    if ! java "$sse/SetupAgents.java" "http://127.0.0.1:$warden_port" "$ADMIN" "$clients" "$run_dir/$name-agents.tsv"         >>"$run_dir/$name-setup.log" 2>&1; then
      fail "$name: agents not created (see $run_dir/$name-setup.log)"; warden_stop; return 0
    fi
    log "$(tail -1 "$run_dir/$name-setup.log")"
    partition=(--partition-file "$run_dir/$name-agents.tsv")
    auth=()
  fi
  if [[ "$mode" == kafka ]]; then
    # The topic value of a cost.recorded event (StreamEventCodec's draft form: no id).
    local about="$warden_agent" key="$warden_agent"
    [[ "$shape" == part ]] && about="{P}" key="{P}"
    event_json "$about" | sed 's/^{"id":"{SEQ}",/{/' >"$run_dir/$name-body.json"
    publish=(--publish-kafka "$warden_kafka" --publish-topic warden.events --publish-key "$key")
    LOAD_CP="$(kafka_cp)"
  else
    printf '{"tool":"bench_{TS}","inputTokens":1,"outputTokens":1,"costUsd":0.001}' >"$run_dir/$name-body.json"
    publish=(--publish-url "http://127.0.0.1:$warden_port/agents/$warden_agent/costs"
      --publish-header "Authorization: Bearer $ADMIN" --publish-header 'Content-Type: application/json')
    LOAD_CP=""
  fi
  # Warden sends the 200 and headers with the first event: connect slots are freed once the request is written,
  # and an unmeasured event is published every second while clients wait for their 200.
  run_load "$name" "$run_dir/$name.properties" --label "warden $mode $shape" --clients "$clients" --rate "$rate" \
    --url "$url" "${auth[@]}" "${partition[@]}" \
    --release-on-write true --rss-pid "$warden_pid" --jcmd-pid "$warden_pid" --histogram "$run_dir/$name-histogram.txt" \
    --cpu-tree "$warden_pid" \
    "${publish[@]}" --publish-body-file "$run_dir/$name-body.json"
  LOAD_CP=""
  warden_stop
}

# ---------------------------------------------------------------- Pushpin

pushpin_prepare() {
  local offset=0
  # Pushpin's publish endpoint is 5561 (+ port_offset, which also moves its ZeroMQ ports 5560, 5562, 5563).
  while ! { port_free $((5560 + offset)) && port_free $((5561 + offset)) && port_free $((5562 + offset)) &&
            port_free $((5563 + offset)); }; do
    offset=$((offset + 10))
    ((offset > 1000)) && { fail "no free port block for pushpin's control ports"; return 1; }
  done
  pushpin_pub=$((5561 + offset))
  pushpin_http=$(free_port)
  origin_port=$(free_port)
  pushpin_dir=$(mktemp -d /var/tmp/pushpin-sse-bench.XXXXXX)
  echo "* 127.0.0.1:$origin_port" >"$pushpin_dir/routes"
  # The packaged config, with: private run/log dirs, our ports, zurl started by the runner (Debian's internal.conf
  # points the proxy at a system-wide zurl in /var/run/zurl), warnings-only logging, and the delivery rate limiter
  # (message_rate 2,500 messages/s, message_hwm 25,000 queued, then dropped) raised out of the way.
  sed -e "s#^rundir=.*#rundir=$pushpin_dir/run#" \
      -e "s#^logdir=.*#logdir=$pushpin_dir/log#" \
      -e "s#^port_offset=.*#port_offset=$offset#" \
      -e "s#^services=.*#services=condure,zurl,pushpin-proxy,pushpin-handler#" \
      -e "s#^http_port=.*#http_port=127.0.0.1:$pushpin_http#" \
      -e "s#^log_level=.*#log_level=1#" \
      -e "s#^routesfile=.*#routesfile=$pushpin_dir/routes#" \
      -e "s#^message_rate=.*#message_rate=50000000#" \
      -e "s#^message_hwm=.*#message_hwm=5000000#" \
      -e "s#^\[proxy\]\$#[proxy]\nzurl_out_specs=ipc://{rundir}/{ipc_prefix}zurl-in\nzurl_out_stream_specs=ipc://{rundir}/{ipc_prefix}zurl-in-stream\nzurl_in_specs=ipc://{rundir}/{ipc_prefix}zurl-out#" \
      /etc/pushpin/pushpin.conf >"$pushpin_dir/pushpin.conf"
  setsid java "$sse/GripOrigin.java" "$origin_port" bench >"$run_dir/grip-origin.log" 2>&1 &
  origin_pid=$!
  if ! wait_http "http://127.0.0.1:$origin_port/health" 60 "$origin_pid"; then
    fail "grip origin did not start (see $run_dir/grip-origin.log)"; return 1
  fi
  local data esc
  data=$(event_json "agt_benchbaselinebenchbaselinexx")
  esc=${data//\"/\\\"}
  printf '{"items":[{"channel":"bench","formats":{"http-stream":{"content":"id: {SEQ}\\nevent: cost.recorded\\ndata: %s\\n\\n"}}}]}' \
    "$esc" >"$run_dir/pushpin-body-bcast.json"
  sed 's/"channel":"bench"/"channel":"{P}"/' "$run_dir/pushpin-body-bcast.json" >"$run_dir/pushpin-body-part.json"
}

pushpin_start() {
  rm -rf "$pushpin_dir/run" "$pushpin_dir/log"
  mkdir -p "$pushpin_dir/run" "$pushpin_dir/log"
  log "starting pushpin on 127.0.0.1:$pushpin_http (publish 127.0.0.1:$pushpin_pub, origin 127.0.0.1:$origin_port)"
  setsid pushpin --config "$pushpin_dir/pushpin.conf" --merge-output >>"$run_dir/pushpin.log" 2>&1 &
  pushpin_pid=$!
  local deadline=$((SECONDS + 30))
  while port_free "$pushpin_http" || port_free "$pushpin_pub"; do
    if ((SECONDS > deadline)) || ! kill -0 "$pushpin_pid" 2>/dev/null; then
      fail "pushpin did not start (see $run_dir/pushpin.log)"; return 1
    fi
    sleep 0.5
  done
  sleep 2
  log "pushpin ready (runner pid $pushpin_pid; $(ps -o comm= --ppid "$pushpin_pid" | tr '\n' ' '))"
}

pushpin_point() {
  local clients="$1" rate="$2" shape="$3" name="pushpin-$1-$2-$3" partition=() query=""
  if ! fits "$clients"; then fail "$name: skipped, $clients clients need more than the open files limit $NOFILE"; return 0; fi
  pushpin_start || return 0
  if [[ "$shape" == part ]]; then
    seq 0 $((clients - 1)) | sed 's/^/ch/' >"$run_dir/$name-channels.txt"
    partition=(--partition-file "$run_dir/$name-channels.txt")
    query="?ch={P}"
  fi
  run_load "$name" "$run_dir/$name.properties" --label "pushpin $shape" --clients "$clients" --rate "$rate" \
    --url "http://127.0.0.1:$pushpin_http/events/stream$query" "${partition[@]}" --release-on-write false \
    --publish-url "http://127.0.0.1:$pushpin_pub/publish/" --publish-header 'Content-Type: application/json' \
    --publish-body-file "$run_dir/pushpin-body-$shape.json" --rss-tree "$pushpin_pid" --cpu-tree "$pushpin_pid"
  stop_pid "$pushpin_pid" pushpin; pushpin_pid=""
}

# ---------------------------------------------------------------- run

log "points: $POINTS (Warden via Kafka, Pushpin); Warden via API: ${API_POINTS:-none}; ${DURATION}s each; logs in $run_dir"
log "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# Every point runs on freshly started servers (memory figures are not blurred by earlier points, and an
# overloaded point's backlog does not spill into the next); one server at a time.
for p in $POINTS; do warden_point kafka "$(point_clients "$p")" "$(point_rate "$p")" "$(point_shape "$p")"; done
for p in $API_POINTS; do warden_point api "$(point_clients "$p")" "$(point_rate "$p")" bcast; done
if [[ "$SKIP_PUSHPIN" != 1 ]] && pushpin_prepare; then
  for p in $POINTS; do pushpin_point "$(point_clients "$p")" "$(point_rate "$p")" "$(point_shape "$p")"; done
fi
stop_pid "$origin_pid" "grip origin"; origin_pid=""

# ---------------------------------------------------------------- report

report="$run_dir/report.txt"
{
  echo
  echo "SSE fan-out, $(nproc) cores, JDK $(java -version 2>&1 | head -1 | cut -d'"' -f2), ${DURATION}s of publishing per row"
  echo
  printf '| %-13s | %7s | %-11s | %-19s | %8s | %8s | %8s | %9s | %-17s | %-11s | %4s |\n' server clients "events/s" \
    "deliveries/s" p50 p99 max delivered "RSS/conn (heap)" "publish p50" CPU
  printf '|%s|\n' "---------------|---------|-------------|---------------------|----------|----------|----------|-----------|-------------------|-------------|------"
  # required deliveries/s: clients x rate (broadcast), rate (one partition per client)
  required_deliveries() {
    local r; r=$(prop "$1" rate_requested | cut -d. -f1)
    if [[ "$(prop "$1" partitions)" == broadcast ]]; then echo $(( $(prop "$1" clients_requested) * r ));
    else echo $(( $(prop "$1" clients_requested) * r / $(prop "$1" partitions) )); fi
  }
  rows=()
  for p in $POINTS; do
    id="$(point_clients "$p")-$(point_rate "$p")-$(point_shape "$p")"
    rows+=("$run_dir/warden-kafka-$id.properties")
    [[ " $API_POINTS " == *" $p "* ]] && rows+=("$run_dir/warden-api-$id.properties")
    rows+=("$run_dir/pushpin-$id.properties")
  done
  for p in $API_POINTS; do
    [[ " $POINTS " == *" $p "* ]] || rows+=("$run_dir/warden-api-$(point_clients "$p")-$(point_rate "$p")-bcast.properties")
  done
  for f in "${rows[@]}"; do
    [[ -f "$f" ]] || continue
    exp=$(prop "$f" deliveries_expected); got=$(prop "$f" deliveries_received)
    pct="n/a"; [[ "${exp:-0}" -gt 0 ]] && pct=$(awk -v a="$got" -v b="$exp" 'BEGIN{printf "%.1f%%", 100*a/b}')
    heap=$(prop "$f" live_heap_per_conn_kb)
    rss="$(prop "$f" rss_per_conn_kb) KB${heap:+ ($heap)}"
    printf '| %-13s | %7s | %-11s | %-19s | %8s | %8s | %8s | %9s | %-17s | %-11s | %3s%% |\n' \
      "$(prop "$f" label)" "$(prop "$f" connected)/$(prop "$f" clients_requested)" \
      "$(prop "$f" publish_rate_achieved)/$(prop "$f" rate_requested | cut -d. -f1)" \
      "$(prop "$f" deliveries_per_s)/$(required_deliveries "$f")" \
      "$(prop "$f" latency_p50_ms)" "$(prop "$f" latency_p99_ms)" "$(prop "$f" latency_max_ms)" "$pct" \
      "$rss" "$(prop "$f" publish_post_p50_ms) ms" "$(prop "$f" server_cpu_pct)"
  done
  echo
  echo "events/s: achieved/requested publish rate; deliveries/s: received per second over publish+drain / required"
  echo "(broadcast: clients x rate; part: rate, each event to one client); delivered: received / expected; latencies in ms,"
  echo "publish-to-receive at the client; RSS/conn: server VmRSS"
  echo "growth while connecting / clients, (heap): Warden's live heap growth after full GC / clients;"
  echo "publish p50: time of the publish call itself; CPU: server process(es), % of one core."
  echo
  echo "Ratios Warden (kafka) / Pushpin, same point:"
  for p in $POINTS; do
    c=$(point_clients "$p") r=$(point_rate "$p") sh=$(point_shape "$p")
    w="$run_dir/warden-kafka-$c-$r-$sh.properties" b="$run_dir/pushpin-$c-$r-$sh.properties"
    [[ -f "$w" && -f "$b" ]] || continue
    awk -v c="$c" -v r="$r" -v sh="$sh" -v wp="$(prop "$w" latency_p99_ms)" -v bp="$(prop "$b" latency_p99_ms)" \
        -v wm="$(prop "$w" rss_per_conn_kb)" -v bm="$(prop "$b" rss_per_conn_kb)" \
        -v wd="$(prop "$w" deliveries_per_s)" -v bd="$(prop "$b" deliveries_per_s)" 'BEGIN {
      printf "  %6d clients x %5d ev/s %-5s: p99 %s, RSS/conn %s, deliveries/s %s\n", c, r, sh,
        (bp > 0 ? sprintf("%.2f", wp / bp) : "n/a"), (bm > 0 ? sprintf("%.2f", wm / bm) : "n/a"),
        (bd > 0 ? sprintf("%.2f", wd / bd) : "n/a") }'
  done
  targets_printed=0
  for p in $POINTS; do
    [[ "$(point_shape "$p")" == part && "$(point_rate "$p")" == "$TARGET_RATE" ]] || continue
    c=$(point_clients "$p")
    spec="$run_dir/warden-kafka-$c-$TARGET_RATE-part.properties"
    [[ -f "$spec" ]] || continue
    ((targets_printed++ == 0)) && { echo; echo "Target ($TARGET_CLIENTS clients, $TARGET_RATE events/s in total, p99 < $TARGET_P99_MS ms," \
      "every event delivered, live heap < $TARGET_HEAP_KB KB per connection), at each Warden part point:"; }
    p99=$(prop "$spec" latency_p99_ms) heap=$(prop "$spec" live_heap_per_conn_kb)
    lat="NOT met" all="NOT met" mem="NOT met"
    [[ "$p99" != n/a ]] && awk -v p="$p99" -v t="$TARGET_P99_MS" 'BEGIN{exit !(p < t)}' && lat=met
    [[ "$(prop "$spec" connected)" == "$c" && "$(prop "$spec" deliveries_missing)" == 0 ]] && all=met
    [[ -n "$heap" && "$heap" != n/a ]] && awk -v h="$heap" -v t="$TARGET_HEAP_KB" 'BEGIN{exit !(h < t)}' && mem=met
    echo "  $c clients: p99 $p99 ms ($lat); $(prop "$spec" deliveries_received) of $(prop "$spec" deliveries_expected)" \
      "deliveries ($all); live heap $heap KB per connection ($mem)"
  done
  if ! [[ " $POINTS " == *" $TARGET_CLIENTS:$TARGET_RATE:part "* ]]; then
    echo "  ($TARGET_CLIENTS clients were not run$( fits "$TARGET_CLIENTS" || echo ": over this machine's open files limit $NOFILE"))"
  fi
  echo
  echo "Raw results and logs: $run_dir"
} | tee "$report"

((failures == 0)) || { log "$failures problem(s), see above"; exit 1; }
