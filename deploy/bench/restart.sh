#!/usr/bin/env bash
# How fast `warden dev` starts, restarts on the same data directory and stops, and what it costs idle
# (issue: a dev platform that restarts in seconds). Runs the README's command twice on one data directory:
#
#   first start   time from launch to "Warden is ready"
#   idle CPU      share of one core used by the process tree (JVM + embedded PostgreSQL), sampled over
#                 BENCH_IDLE_SECONDS (default 30) after BENCH_SETTLE_SECONDS (default 60: past the JIT's warm-up) of quiet
#   stop          time from SIGTERM (as Ctrl-C) to the JVM's exit, and any process left behind
#   restarts      as the first, on the data the first left, BENCH_RESTARTS times (default 3)
#
# Usage: deploy/bench/restart.sh            (builds the launcher first when sources changed)
# Targets: second start < 10 s, idle < 3 % of a core, stop < 5 s with no orphan process.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
log() { echo "[restart] $*" >&2; }
# shellcheck source=deploy/bench/lib.sh
source "$here/lib.sh"

settle=${BENCH_SETTLE_SECONDS:-60}
restarts=${BENCH_RESTARTS:-3}
idle=${BENCH_IDLE_SECONDS:-30}
data="$(mktemp -d /var/tmp/warden-restart-XXXXXX)"
chmod 755 "$data"
port=$(free_port)
ticks=$(getconf CLK_TCK)
trap 'pkill -KILL -f -- "$data" 2>/dev/null || true; rm -rf "$data"' EXIT

"$root/warden" build >/dev/null

# start NAME: launches warden dev and waits for readiness; sets pid and ready_seconds.
start() {
  local t0 out="$data/$1.log"
  t0=$(date +%s.%N)
  setsid "$root/warden" dev --port "$port" --data-dir "$data/dev" >"$out" 2>&1 &
  pid=$!
  await_dev_ready "$pid" "$out" || { log "$1: warden exited"; exit 1; }
  ready_seconds=$(echo "$(date +%s.%N) - $t0" | bc)
}

# stop: SIGTERM (what Ctrl-C does to the JVM: a background job of a script ignores SIGINT); sets stop_seconds and left (processes of the platform still alive 1 s later).
stop() {
  local t0
  t0=$(date +%s.%N)
  stop_dev "$pid"
  stop_seconds=$(echo "$(date +%s.%N) - $t0" | bc)
  sleep 1
  left=$(pgrep -f -- "$data/dev" | wc -l || true)
}

start first
first=$ready_seconds
log "first start: ${first} s"
sleep "$settle"
a=$(tree_ticks "$data/dev"); sleep "$idle"; b=$(tree_ticks "$data/dev")
cpu=$(echo "scale=2; 100 * ($b - $a) / $ticks / $idle" | bc)
log "idle: ${cpu} % of one core over ${idle} s"
stop
orphans=$left
log "stop: ${stop_seconds} s, ${orphans} process(es) left"
seconds=()
orphans2=0
for i in $(seq 1 "$restarts"); do
  start "restart-$i"
  seconds+=("$ready_seconds")
  log "restart $i: ready in ${ready_seconds} s"
  stop
  orphans2=$((orphans2 + left))
  log "restart $i: stopped in ${stop_seconds} s, ${left} process(es) left"
done
second="${seconds[*]}"

printf '\n%-28s %s\n' "first start (s)" "$first"
printf '%-28s %s\n' "restarts, same data (s)" "$second"
printf '%-28s %s\n' "idle CPU (% of one core)" "$cpu"
printf '%-28s %s\n' "stop (s)" "$stop_seconds"
printf '%-28s %s\n' "processes left after stop" "$((orphans + orphans2))"
