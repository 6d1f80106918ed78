#!/usr/bin/env bash
# What an idle `warden dev` costs, and where it goes (issue 41: under 3 % of one core). For each build, in turns:
#
#   start          `warden dev` on a fresh data directory, until "Warden is ready"
#   settle         BENCH_SETTLE_SECONDS (default 90) of quiet
#   idle CPU       BENCH_WINDOWS (default 6) windows of 30 s: utime+stime of the JVM and the embedded PostgreSQL
#                  (the processes naming the data directory), as a share of one core; then their mean
#   per thread     each JVM thread's CPU over the windows, from two `jcmd <pid> Thread.print` (its cpu=), digits in
#                  names folded so that numbered threads add up; the BENCH_TOP (default 25) largest
#   stop           SIGTERM to the JVM's exit
#
# Usage: deploy/bench/idle.sh                       this checkout (built first when sources changed)
#        deploy/bench/idle.sh DIR [DIR ...]         copies of deploy/dev/target, one per build, measured in turns
#        BENCH_ROUNDS=2 deploy/bench/idle.sh A B    A, B, A, B: the machine's speed moves, so compare in turns
# Target: idle < 3 % of one core.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
log() { echo "[idle] $*" >&2; }
# shellcheck source=deploy/bench/lib.sh
source "$here/lib.sh"
# shellcheck source=bin/find-jdk.sh
source "$root/bin/find-jdk.sh"

settle=${BENCH_SETTLE_SECONDS:-90}
windows=${BENCH_WINDOWS:-6}
rounds=${BENCH_ROUNDS:-1}
top=${BENCH_TOP:-25}
ticks=$(getconf CLK_TCK)
builds="$(dev_builds "$@")" || exit 1
readarray -t builds <<<"$builds"
out="$(mktemp -d /var/tmp/warden-idle-XXXXXX)"
chmod 755 "$out"
trap 'pkill -KILL -f -- "$out/data" 2>/dev/null || true; rm -rf "$out/data"' EXIT

# threads BEFORE AFTER SECONDS: each thread's share of one core between two Thread.print dumps, largest first.
threads() {
  python3 - "$1" "$2" "$3" "$top" <<'EOF'
import collections, re, sys
def load(path):
    cpu = collections.Counter()
    for line in open(path):
        m = re.match(r'^"([^"]*)".*?cpu=([0-9.]+)ms', line)
        if m:
            cpu[re.sub(r'\d+', '#', m.group(1))] += float(m.group(2))
    return cpu
before, after, seconds, top = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rows = sorted(((after[k] - before.get(k, 0)) / seconds / 10, k) for k in after)[::-1]
print("  JVM threads in all: %.2f %%" % sum(r[0] for r in rows))
for share, name in rows[:top]:
    print("  %6.2f %%  %s" % (share, name))
EOF
}

# measure LABEL DIR: one start, settle, windows, per-thread shares and stop of the build in DIR.
measure() {
  local label="$1" dir="$2" data="$out/data/$1" port pid t0 ready a b sum=0 share i stop_s
  mkdir -p "$data"
  port=$(free_port)
  t0=$(date +%s.%N)
  start_dev "$dir" "$port" "$data/dev" "$out/$label.log"
  pid=$dev_pid
  await_dev_ready "$pid" "$out/$label.log" || { log "$label: warden exited"; exit 1; }
  ready=$(echo "$(date +%s.%N) - $t0" | bc)
  log "$label ($dir): ready in $ready s; settling $settle s"
  sleep "$settle"
  jcmd "$pid" Thread.print >"$out/$label.before" 2>/dev/null
  local shares=()
  for i in $(seq 1 "$windows"); do
    a=$(tree_ticks "$data/dev"); sleep 30; b=$(tree_ticks "$data/dev")
    share=$(echo "scale=2; 100 * ($b - $a) / $ticks / 30" | bc)
    shares+=("$share")
    sum=$(echo "$sum + $share" | bc)
  done
  jcmd "$pid" Thread.print >"$out/$label.after" 2>/dev/null
  t0=$(date +%s.%N)
  stop_dev "$pid"
  stop_s=$(echo "$(date +%s.%N) - $t0" | bc)
  {
    printf '\n%s (%s)\n' "$label" "$dir"
    printf '  ready %s s, stop %s s\n' "$ready" "$stop_s"
    printf '  idle, %% of one core, 30 s windows %s-%s s after ready: %s\n' "$settle" "$((settle + 30 * windows))" "${shares[*]}"
    printf '  mean %s %% (target < 3 %%: %s)\n' "$(echo "scale=2; $sum / $windows" | bc)" \
      "$( (($(echo "$sum / $windows < 3" | bc))) && echo met || echo 'not met')"
    threads "$out/$label.before" "$out/$label.after" $((30 * windows))
  } | tee -a "$out/report.txt"
}

for r in $(seq 1 "$rounds"); do
  n=0
  for dir in "${builds[@]}"; do
    n=$((n + 1))
    measure "build$n-round$r" "$dir"
  done
done
log "report: $out/report.txt"
