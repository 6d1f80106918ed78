#!/usr/bin/env bash
# Helpers of the wrk-driven HTTP benchmarks (authorize.sh, sinks.sh), sourced after lib.sh. They read the caller's
# DURATION, THREADS, WAIT_QUIET and run_dir, fill its RPS/P50/P99/REQS/NON2XX/ERRS/CPU arrays, and call its fail and
# log, and append to its warnings array.

# to_ms "1.23ms" | "456.00us" | "1.02s" | "2.00m" -> milliseconds
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v; sub(/[a-z]+$/, "", n); u = v; sub(/^[0-9.]+/, "", u);
    f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m") ? 60000 : -1;
    if (f < 0) { print "?"; exit } printf "%.2f", n * f }'
}

# ensure_wrk: installs wrk (apt-get, its log in run_dir/apt.log) when it is missing; exits when it cannot.
ensure_wrk() {
  command -v wrk >/dev/null && return 0
  log "installing wrk (apt-get)"
  apt-get install -y wrk >"$run_dir/apt.log" 2>&1 || {
    apt-get update >>"$run_dir/apt.log" 2>&1
    apt-get install -y wrk >>"$run_dir/apt.log" 2>&1
  }
  command -v wrk >/dev/null || { log "wrk is not installed and could not be installed (see $run_dir/apt.log)"; exit 1; }
}

# write_lua FILE BODY HEADER...: a wrk script that POSTs BODY with the given headers.
write_lua() {
  local file="$1" body="$2"
  shift 2
  {
    echo 'wrk.method = "POST"'
    printf 'wrk.body = [==[%s]==]\n' "$body"
    echo 'wrk.headers["Content-Type"] = "application/json"'
    local h
    for h in "$@"; do
      printf 'wrk.headers["%s"] = [==[%s]==]\n' "${h%%:*}" "${h#*: }"
    done
  } >"$file"
}

# server_pids SERVER_PID MARKER: pids of the server's process group, of processes whose command line
# holds MARKER (the embedded PostgreSQL leaves the group but runs from Warden's data directory), and of
# all their descendants.
server_pids() {
  ps -eo pid=,ppid=,pgid=,args= | awk -v sp="$1" -v m="$2" '
    { pid[NR] = $1; ppid[NR] = $2; if ($3 == sp || (m != "" && index($0, m))) in_set[$1] = 1 }
    END {
      do { grew = 0; for (i = 1; i <= NR; i++) if (!(pid[i] in in_set) && (ppid[i] in in_set)) { in_set[pid[i]] = 1; grew = 1 } } while (grew)
      for (p in in_set) print p
    }'
}

# cpu_split SERVER_PIDS_FILE < top-output: "server S wrk W other O idle I" from top's second frame.
cpu_split() {
  awk '
    FNR == NR { srv[$1] = 1; next }
    /^top -/ { frame++ }
    frame == 2 && /^%Cpu/ { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^id/) idle = $i }
    frame == 2 && $1 ~ /^[0-9]+$/ {
      if ($1 in srv) s += $9; else if ($12 == "wrk") w += $9; else o += $9
    }
    END { printf "%.0f %.0f %.0f %.0f\n", s, w, o, idle * 2 }' "$1" -
}

# sample_cpu KEY DELAY SERVER_PID MARKER: after DELAY seconds, record the %CPU over 2 s (200% = both
# cores) of the server (for Warden: the JVM with Kafka, Kafka Streams and the sinks, plus the embedded
# PostgreSQL), of wrk and of anything else; and the server's busiest threads (top-threads-KEY.txt).
sample_cpu() {
  local key="$1" delay="$2" server_pid="$3" marker="$4"
  sleep "$delay"
  server_pids "$server_pid" "$marker" >"$run_dir/pids-$key.txt"
  top -H -b -n 2 -d 2 -w 200 -p "$server_pid" >"$run_dir/top-threads-$key.txt" 2>/dev/null &
  top -b -n 2 -d 2 -w 200 >"$run_dir/top-$key.txt" 2>/dev/null || return 0
  wait
  cpu_split "$run_dir/pids-$key.txt" <"$run_dir/top-$key.txt" >"$run_dir/cpu-$key.txt"
}

# wait_quiet WHAT SERVER_PID MARKER: waits up to BENCH_WAIT_QUIET seconds until processes other than
# the (idle) server use at most 10% CPU; load from other processes skews every figure, so it is reported.
wait_quiet() {
  local what="$1" deadline=$((SECONDS + WAIT_QUIET)) other=0 said=0
  while :; do
    server_pids "$2" "$3" >"$run_dir/pids-quiet.txt"
    read -r _ _ other _ < <(top -b -n 2 -d 2 -w 200 | cpu_split "$run_dir/pids-quiet.txt")
    ((other <= 10)) && return 0
    ((SECONDS >= deadline)) && break
    if ((said == 0)); then
      log "other processes use ${other}% CPU (of 200%); waiting up to ${WAIT_QUIET}s for quiet before $what"
      said=1
    fi
    sleep 3
  done
  log "WARNING: other processes still use ${other}% CPU (of 200%) before $what; its figures will be low"
  warnings+=("other processes used ${other}% CPU (of 200%) just before $what")
}

# run_wrk KEY URL LUA CONNECTIONS SERVER_PID MARKER: one measured run; fills RPS/P50/P99/... for KEY.
run_wrk() {
  local key="$1" url="$2" lua="$3" conns="$4" server_pid="$5" marker="$6" out="$run_dir/wrk-$1.txt"
  log "wrk: $key ($conns connections, $THREADS threads, ${DURATION}s)"
  sample_cpu "$key" $((DURATION / 2 - 1)) "$server_pid" "$marker" &
  local sampler=$!
  wrk -t "$THREADS" -c "$conns" -d "${DURATION}s" --timeout 5s --latency -s "$lua" "$url" >"$out" 2>&1 || {
    fail "wrk exited with an error for $key (see $out)"
  }
  wait "$sampler" 2>/dev/null || true
  RPS[$key]="$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$out")"
  P50[$key]="$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")"
  P99[$key]="$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")"
  REQS[$key]="$(awk '/requests in/ { print $1 }' "$out")"
  NON2XX[$key]="$(awk '/Non-2xx or 3xx responses:/ { print $5 }' "$out")"
  NON2XX[$key]="${NON2XX[$key]:-0}"
  ERRS[$key]="$(sed -n 's/.*Socket errors: //p' "$out")"
  local srv=? w=? other=? idle=?
  [[ -s "$run_dir/cpu-$key.txt" ]] && read -r srv w other idle <"$run_dir/cpu-$key.txt"
  CPU[$key]="server ${srv}%, wrk ${w}%, other ${other}%, idle ${idle}%"
  if [[ "$other" != "?" ]] && ((other > 20)); then
    CPU[$key]+=" (!)"
    warnings+=("other processes used ${other}% CPU (of 200%) during $key")
  fi
  [[ -z "${RPS[$key]}" ]] && fail "$key: could not parse wrk output (see $out)"
  [[ "${NON2XX[$key]}" != 0 ]] && fail "$key: ${NON2XX[$key]} non-2xx responses"
  [[ -n "${ERRS[$key]}" ]] && fail "$key: socket errors: ${ERRS[$key]}"
  log "  $key: ${RPS[$key]:-?} req/s, p50 ${P50[$key]} ms, p99 ${P99[$key]} ms, non-2xx ${NON2XX[$key]}; cpu: ${CPU[$key]}"
}

