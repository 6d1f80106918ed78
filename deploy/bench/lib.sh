# Helpers shared by the benchmark scripts (sourced, not run). The caller defines `log MESSAGE`.

# port_free PORT: true when nothing listens on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port: a free port in 20000-31999, below the kernel's ephemeral range (32768+), so thousands of client
# connections never take it.
free_port() {
  local p i
  for i in $(seq 1 200); do
    p=$((20000 + RANDOM % 12000))
    if port_free "$p"; then echo "$p"; return 0; fi
  done
  echo "no free port found" >&2
  return 1
}

# wait_http URL SECONDS [PID]: until URL answers 200, the deadline passes or PID dies.
wait_http() {
  local url="$1" deadline=$((SECONDS + $2)) pid="${3:-}"
  while ((SECONDS < deadline)); do
    if [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)" == 200 ]]; then return 0; fi
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    sleep 0.5
  done
  return 1
}

# stop_pid PID NAME: SIGTERM, wait up to 60 s, then SIGKILL its process group (started with setsid: the group
# holds only what it started, e.g. the embedded PostgreSQL or pushpin's children).
stop_pid() {
  local pid="$1" name="$2" i
  [[ -z "$pid" ]] && return 0
  kill -0 "$pid" 2>/dev/null || return 0
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 120); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name did not stop in 60 s; killing its process group"
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  # Leftover children in the group (normally none after a clean shutdown).
  if pgrep -g "$pid" >/dev/null 2>&1; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    sleep 2
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
}

# wait_warden_healthy URL PID LOG: until URL/observe/health answers 200 (120 s; when ./warden first has to build,
# as its LOG says, the build gets 15 more minutes). Returns 1, after printing the log's last lines, when Warden
# dies or never becomes healthy.
wait_warden_healthy() {
  local url="$1" pid="$2" logfile="$3" deadline=$((SECONDS + 120)) building=0
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    if [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url/observe/health" || true)" == 200 ]]; then
      log "warden is healthy"
      return 0
    fi
    if ((building == 0)) && grep -q "warden: building" "$logfile"; then
      log "./warden is building the launcher first (sources changed); waiting up to 15 more minutes"
      building=1
      deadline=$((deadline + 900))
    fi
    sleep 0.5
  done
  log "warden did not become healthy; last log lines:"
  tail -30 "$logfile" >&2
  return 1
}

# build_java_bench: builds the project (the benchmarks are the deploy/bench module, warden-bench) and sets
# BENCH_CP to the classpath the benchmarks (dev.warden.bench.*) run on. Needs bin/find-jdk.sh sourced and the
# repository root as the working directory.
build_java_bench() {
  ./mvnw -q -B -DskipTests -Djib.skip=true install >/dev/null
  ./mvnw -q -B -pl deploy/bench dependency:build-classpath -Dmdep.outputFile=target/bench.cp >/dev/null
  BENCH_CP="deploy/bench/target/classes:$(cat deploy/bench/target/bench.cp)"
}

# java_bench HEAP CLASS [ARGS...]: runs the benchmark dev.warden.bench.CLASS (after build_java_bench) with a fixed heap
# of HEAP (-Xms and -Xmx) and $BENCH_JAVA_OPTS added to the JVM's options. Fixed, as a benchmark's heap should be: from
# the default initial heap (1/64 of the RAM, 384 MB here) G1 kept the heap near 375 MB under StreamBench's 240-280 MB
# of live data (a broker and two instances in one JVM) and ran a concurrent mark cycle every 3-4 s.
java_bench() {
  local heap="$1" class="$2"
  shift 2
  # shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
  java "-Xms$heap" "-Xmx$heap" ${BENCH_JAVA_OPTS:-} --enable-native-access=ALL-UNNAMED \
    -Djava.util.logging.config.file=api/server/src/main/resources/logging.properties \
    -cp "$BENCH_CP" "dev.warden.bench.$class" "$@"
}

# run_java_bench HEAP CLASS [ARGS...]: build_java_bench, then java_bench.
run_java_bench() {
  build_java_bench
  java_bench "$@"
}

# The launcher jar in a build's deploy/dev/target.
DEV_JAR=warden-dev-0.1.0-SNAPSHOT.jar

# dev_builds [DIR ...]: the builds to measure, one per line: the given copies of deploy/dev/target, each checked to
# hold the launcher jar; none given, this checkout's (built first when its sources changed). Needs $root.
dev_builds() {
  if (($# == 0)); then
    "$root/warden" build >/dev/null || return 1
    set -- "$root/deploy/dev/target"
  fi
  local dir
  for dir in "$@"; do
    [[ -f "$dir/$DEV_JAR" ]] || { log "no $DEV_JAR in $dir"; return 1; }
    echo "$dir"
  done
}

# start_dev DIR PORT DATA LOG: `warden dev` of the build in DIR (a copy of deploy/dev/target) on PORT with its data
# in DATA, in a session of its own, its output in LOG; sets dev_pid. Needs $root and a JDK 21+ first on PATH.
# BENCH_LOGGING names another java.util.logging configuration than the server's own. A file DIR/bench.env of
# NAME=VALUE lines (e.g. WARDEN_STREAMS_BACKGROUND__FETCH__WAIT__MS=1000) sets those variables for that build alone,
# so that one build measured with two settings is two directories.
start_dev() {
  local settings=()
  if [[ -f "$1/bench.env" ]]; then
    readarray -t settings < <(grep -E '^[A-Z_][A-Z0-9_]*=' "$1/bench.env")
  fi
  setsid env "${settings[@]}" java --enable-native-access=ALL-UNNAMED \
    -Djava.util.logging.config.file="${BENCH_LOGGING:-$root/api/server/src/main/resources/logging.properties}" \
    -jar "$1/$DEV_JAR" dev --port "$2" --data-dir "$3" >"$4" 2>&1 &
  dev_pid=$!
}

# await_dev_ready PID LOG: waits until the `warden dev` PID has written "Warden is ready" to its output LOG; returns 1,
# with LOG on stderr, when the process exits first.
await_dev_ready() {
  while ! grep -q "Warden is ready" "$2"; do
    kill -0 "$1" 2>/dev/null || { cat "$2" >&2; return 1; }
    sleep 0.1
  done
}

# stop_dev PID: SIGTERM to a `warden dev` (what Ctrl-C does to the JVM: a background job of a script ignores SIGINT),
# then waits until the process has exited.
stop_dev() {
  kill -TERM "$1"
  while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
}

# tree_ticks DATA: utime+stime, in clock ticks, of every process of one `warden dev`: the JVM and the embedded
# PostgreSQL (which daemonizes away from the JVM) both name the data directory DATA on their command lines.
tree_ticks() {
  local total=0 p
  for p in $(pgrep -f -- "$1" || true); do
    if [[ -r /proc/$p/stat ]]; then
      total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat")))
    fi
  done
  echo "$total"
}
