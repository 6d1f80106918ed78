#!/usr/bin/env bash
# OAuth token endpoint benchmark: `warden dev` against Keycloak (org.keycloak:keycloak-quarkus-dist 26.x, started
# by this script with `kc.sh start-dev`) on the same machine in the same run, with equivalent clients. For each
# of the refresh_token grant, client_credentials, token exchange (RFC 8693) and introspection (RFC 7662) it
# prints throughput, p50 and p99 per worker count and the Warden/Keycloak ratios, and whether the issue's
# target was met: at least 10x Keycloak's refresh-grant throughput with a p99 under 20 ms.
#
#   deploy/bench/token.sh
#
# Environment (all optional):
#   BENCH_DURATION=20        seconds per measured run
#   BENCH_WARMUP=30          seconds of unmeasured load per grant before its runs, at the largest worker count
#   BENCH_WARM_ALL=90        before any grant is measured, seconds of unmeasured load of each grant in turn at the
#                            largest worker count (0: none), so that the order of the grants does not decide how warm
#                            a server is when a grant is measured (Keycloak's refresh ran 1.6-1.9x faster after the
#                            other grants than first; Warden's 1.15x)
#   BENCH_FIRST_WARMUP=60    the same for the first grant of each target (JIT of the shared HTTP, JSON and
#                            database paths; on 2 cores a fresh JVM compiles for a minute or more)
#   BENCH_WORKERS="16 64"    closed-loop workers, each on its own keep-alive HTTP/1.1 connection ("4 16 64"
#                            also shows where the p99 falls under 20 ms; each count adds a run per grant)
#   BENCH_GRANTS="refresh client_credentials token_exchange introspection"
#   BENCH_HEAP=1g            -Xmx of both servers (Keycloak's own default is 512m, Warden's a quarter of RAM)
#   BENCH_WAIT_QUIET=120     seconds to wait, before each target, for other processes to go quiet
#   BENCH_TIMEOUT=10         seconds before a request counts as failed (timeout)
#   BENCH_SKIP_KEYCLOAK=1    Warden only
#   BENCH_SKIP_WARDEN=1      Keycloak only
#   BENCH_KEYCLOAK_VERSION=26.7.3   keycloak-quarkus-dist version, resolved through Maven (the build's
#                            repositories and mirrors)
#   BENCH_KEYCLOAK_ALG=ES256 signature algorithm of Keycloak's access tokens (ES256 = Warden's; RS256 is
#                            Keycloak's default)
#   BENCH_KEYCLOAK_NOROTATE=1  also measure Keycloak's refresh grant with rotation off (0: skip)
#   BENCH_WARDEN_JAR=PATH    run this launcher jar (its libs/ beside it) instead of `./warden dev`, which
#                            rebuilds from the work tree when sources changed
#
# What is compared (the load client is deploy/bench/token/TokenLoad.java, which also does the setup):
#   Warden:   warden dev (embedded PostgreSQL with fsync and synchronous_commit off, embedded Kafka); the
#             OAuth token endpoint's per-IP limit raised to 100,000,000 a minute (the limiter still runs) and
#             registration's to 100, introspection's to 100,000,000 and the authorization endpoint's to 1,000 (one
#             code flow per worker; a build that refuses the token-exchange grant type costs a second
#             registration); a confidential client (client_secret_basic) registered with an initial access
#             token; refresh tokens from the authorization code flow (PKCE, the built-in consent page driven
#             over HTTP), one grant per worker. Refresh tokens rotate; reuse revokes the family.
#   Keycloak: start-dev (Keycloak's own quick start: embedded H2 file database, local caches, dev profile),
#             a realm with refresh token rotation and reuse detection (revokeRefreshToken, reuse 0: Warden's
#             behaviour), 1 h access tokens, ES256, one confidential client with direct access grants (for the
#             setup's password grants only), service account and standard token exchange, one user session
#             per worker. "keycloak-norot" rows: the same realm with rotation off (Keycloak's default).
#   client_credentials: Warden: a `service` agent bound to an OAuth client (its token is the secret), scope
#             agents:read; Keycloak: the client's service account.
#   token exchange: Warden: a user's access token as subject and an agent owned by the user as actor; Keycloak
#             standard token exchange (V2) has no actor token (delegation is not supported there): its nearest
#             equivalent, the user's access token exchanged by the client in its audience, is measured.
#   introspection: a user's access token, introspected by the confidential client.
# Grants that this Warden build does not have (a 404 on POST /agents/{id}/oauth-client, or
# unsupported_grant_type) are reported as "not available in this build" and skipped.
#
# The other targets' verdicts, at each worker count: client credentials >= 3x Keycloak with a p99 no worse, token
# exchange >= 5x, introspection >= 5x with a p99 < 20 ms.
# The refresh target's verdict: Warden's best throughput among runs with p99 < 20 ms, divided by Keycloak's best
# refresh throughput (rotation on, any latency), must be at least 10. Per worker count the table shows the
# plain ratios.
#
# Needs: JDK 21+ (bin/find-jdk.sh picks the newest; Keycloak runs on it too), curl, tar. Resolves Keycloak through Maven
# into deploy/bench/.cache once. Logs and raw results: deploy/bench/.cache/runs/token-<timestamp>/
# (results.tsv: one line per measured run; status.tsv: warm-ups and unavailable grants; errors-*.txt).
# Exit status: 0 when every run completed without errors (whether or not the target was met), 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$here/.cache"

DURATION="${BENCH_DURATION:-20}"
WARMUP="${BENCH_WARMUP:-30}"
FIRST_WARMUP="${BENCH_FIRST_WARMUP:-60}"
WARM_ALL="${BENCH_WARM_ALL:-90}"
WORKERS="${BENCH_WORKERS:-16 64}"
GRANTS="${BENCH_GRANTS:-refresh client_credentials token_exchange introspection}"
HEAP="${BENCH_HEAP:-1g}"
WAIT_QUIET="${BENCH_WAIT_QUIET:-120}"
TIMEOUT="${BENCH_TIMEOUT:-10}"
SKIP_KEYCLOAK="${BENCH_SKIP_KEYCLOAK:-0}"
SKIP_WARDEN="${BENCH_SKIP_WARDEN:-0}"
KC_VERSION="${BENCH_KEYCLOAK_VERSION:-26.7.3}"
KC_ALG="${BENCH_KEYCLOAK_ALG:-ES256}"
KC_NOROTATE="${BENCH_KEYCLOAK_NOROTATE:-1}"
WARDEN_JAR="${BENCH_WARDEN_JAR:-}"
ADMIN_TOKEN="wdn_adm_bench"
TARGET_RATIO=10
TARGET_P99_MS=20

run_dir="$cache/runs/token-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run_dir"
failures=0
warnings=()
warden_pid="" warden_data="" kc_pid="" kc_dir=""

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() { log "FAIL: $*"; failures=$((failures + 1)); }

# ---------------------------------------------------------------- helpers

# shellcheck source=lib.sh
source "$here/lib.sh"

cleanup() {
  stop_pid "$warden_pid" warden
  warden_pid=""
  stop_pid "$kc_pid" keycloak
  kc_pid=""
  [[ -n "$warden_data" && -d "$warden_data" ]] && rm -rf "$warden_data"
  [[ -n "$kc_dir" && -d "$kc_dir" ]] && rm -rf "$kc_dir"
  return 0
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# server_pids SERVER_PID MARKER: the server's process tree, plus processes whose command line holds MARKER
# (Warden's embedded PostgreSQL is re-parented to init but runs from Warden's data directory).
server_pids() {
  ps -eo pid=,ppid=,args= | awk -v sp="$1" -v m="$2" '
    { pid[NR] = $1; ppid[NR] = $2; if ($1 == sp || (m != "" && index($0, m))) in_set[$1] = 1 }
    END {
      do { grew = 0; for (i = 1; i <= NR; i++) if (!(pid[i] in in_set) && (ppid[i] in in_set)) { in_set[pid[i]] = 1; grew = 1 } } while (grew)
      for (p in in_set) print p
    }'
}

# other_cpu SERVER_PID MARKER: % of one core (200 = both cores) used over 3 s by everything but the server.
other_cpu() {
  local pids t0 i0 s0 t1 i1 s1
  pids="$(server_pids "$1" "$2" | tr '\n' ' ')"
  ticks() { local p s=0 v; for p in $pids; do v="$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat" 2>/dev/null || echo 0)"; s=$((s + ${v:-0})); done; echo "$s"; }
  read -r t0 i0 < <(awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $5 + $6 }' /proc/stat)
  s0="$(ticks)"
  sleep 3
  read -r t1 i1 < <(awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $5 + $6 }' /proc/stat)
  s1="$(ticks)"
  awk -v b=$(((t1 - t0) - (i1 - i0))) -v s=$((s1 - s0)) 'BEGIN { o = (b - s) / 3; if (o < 0) o = 0; printf "%.0f\n", o }'
}

# wait_quiet WHAT SERVER_PID MARKER: waits up to BENCH_WAIT_QUIET seconds until processes other than the
# (idle) server use at most 10% of a core; load from other processes skews every figure, so it is reported.
wait_quiet() {
  local what="$1" deadline=$((SECONDS + WAIT_QUIET)) other said=0
  while :; do
    other="$(other_cpu "$2" "$3")"
    ((other <= 10)) && return 0
    ((SECONDS >= deadline)) && break
    if ((said == 0)); then
      log "other processes use ${other}% CPU (of 200%); waiting up to ${WAIT_QUIET}s for quiet before $what"
      said=1
    fi
    sleep 2
  done
  log "WARNING: other processes still use ${other}% CPU (of 200%) before $what; its figures will be low"
  warnings+=("other processes used ${other}% CPU (of 200%) just before $what")
}

# run_load TARGET BASE_URL SERVER_PID MARKER EXTRA_ARGS...: setup and measurement by TokenLoad.java.
run_load() {
  local target="$1" base="$2" pid="$3" marker="$4" rc=0 n_grants n_workers bound
  shift 4
  n_grants="$(wc -w <<<"$GRANTS")"
  n_workers="$(wc -w <<<"$WORKERS")"
  bound=$((600 + (n_grants + 1) * (WARM_ALL + FIRST_WARMUP + WARMUP + n_workers * (DURATION + TIMEOUT + 20))))
  log "$target: setup and load (log $run_dir/load-$target.log)"
  timeout "$bound" java -Xmx1g "$here/token/TokenLoad.java" --target "$target" --base "$base" \
    --grants "$(tr ' ' ',' <<<"$GRANTS" | sed 's/,*$//')" --workers "$(tr ' ' ',' <<<"$WORKERS" | sed 's/,*$//')" \
    --duration "$DURATION" --warmup "$WARMUP" --first-warmup "$FIRST_WARMUP" --warm-all "$WARM_ALL" --timeout "$TIMEOUT" \
    --cpu-pid "$pid" --cpu-match "$marker" --out-dir "$run_dir" "$@" 2> >(tee "$run_dir/load-$target.log" >&2) || rc=$?
  case "$rc" in
    0) ;;
    2) fail "$target: some runs had errors (see $run_dir/errors-$target-*.txt)" ;;
    124) fail "$target: the load client did not finish within ${bound}s" ;;
    *) fail "$target: the load client failed (exit $rc; see $run_dir/load-$target.log)" ;;
  esac
}

# ---------------------------------------------------------------- 1. tools

# shellcheck source=../../bin/find-jdk.sh
source "$root/bin/find-jdk.sh"
JAVA_VERSION="$(java -version 2>&1 | head -1)"
log "JDK: $JAVA_HOME ($JAVA_VERSION)"

kc_tar="" kc_problem=""
if [[ "$SKIP_KEYCLOAK" == 1 ]]; then
  kc_problem="skipped (BENCH_SKIP_KEYCLOAK=1)"
else
  # fetch_kc VERSION: resolves the distribution through Maven (dependency:copy, so the repositories and mirrors
  # configured for the build serve it, and Maven checks its checksum) into the cache.
  fetch_kc() {
    local v="$1" f="$cache/keycloak-quarkus-dist-$1.tar.gz"
    [[ -s "$f" ]] && { echo "$f"; return 0; }
    log "resolving org.keycloak:keycloak-quarkus-dist:$v:tar.gz through Maven"
    "$root/mvnw" -q -B dependency:copy -Dartifact="org.keycloak:keycloak-quarkus-dist:$v:tar.gz" \
      -DoutputDirectory="$cache" -Dmdep.overWriteIfNewer=true >>"$run_dir/download.log" 2>&1 || return 1
    [[ -s "$f" ]] || return 1
    echo "$f"
  }
  mkdir -p "$cache"
  if ! kc_tar="$(fetch_kc "$KC_VERSION")"; then
    kc_tar=""
    kc_problem="org.keycloak:keycloak-quarkus-dist:$KC_VERSION:tar.gz could not be resolved (see $run_dir/download.log;"
    kc_problem+=" BENCH_KEYCLOAK_VERSION picks another)"
  fi
fi
[[ -n "$kc_problem" ]] && log "Keycloak baseline unavailable: $kc_problem"

# ---------------------------------------------------------------- 2. Warden

warden_label="warden dev"
if [[ "$SKIP_WARDEN" != 1 ]]; then
  warden_port="$(free_port)"
  warden_data="$(mktemp -d /var/tmp/warden-bench.XXXXXX)"
  chmod 755 "$warden_data"
  reg_token="wdn_bench_reg_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  W="http://127.0.0.1:$warden_port"
  if [[ -n "$WARDEN_JAR" ]]; then
    warden_label="warden dev ($WARDEN_JAR)"
    [[ -f "$WARDEN_JAR" ]] || { log "BENCH_WARDEN_JAR=$WARDEN_JAR does not exist"; exit 1; }
  else
    warden_label="warden dev (./warden, built from this work tree)"
  fi
  log "starting $warden_label on 127.0.0.1:$warden_port (heap $HEAP, data $warden_data, log $run_dir/warden.log)"
  (
    cd "$root"
    export WARDEN_BOOTSTRAP_TOKEN="$ADMIN_TOKEN" WARDEN_SERVER_HOST=127.0.0.1 \
      WARDEN_OAUTH_REGISTRATION__TOKENS="$reg_token" \
      WARDEN_RATE__LIMIT_ENDPOINTS_OAUTH__TOKEN_LIMIT=100000000 \
      WARDEN_RATE__LIMIT_ENDPOINTS_REGISTRATION_LIMIT=100 \
      WARDEN_RATE__LIMIT_ENDPOINTS_OAUTH__AUTHORIZE_LIMIT=1000 \
      WARDEN_RATE__LIMIT_ENDPOINTS_OAUTH__INTROSPECT_LIMIT=100000000 \
      WARDEN_JAVA_OPTS="-Xmx$HEAP ${WARDEN_JAVA_OPTS:-}"
    if [[ -n "$WARDEN_JAR" ]]; then
      # shellcheck disable=SC2086
      exec setsid java --enable-native-access=ALL-UNNAMED \
        -Djava.util.logging.config.file="$root/api/server/src/main/resources/logging.properties" \
        $WARDEN_JAVA_OPTS -jar "$WARDEN_JAR" dev --port "$warden_port" --data-dir "$warden_data"
    fi
    exec setsid ./warden dev --port "$warden_port" --data-dir "$warden_data"
  ) >"$run_dir/warden.log" 2>&1 &
  warden_pid=$!

  wait_warden_healthy "$W" "$warden_pid" "$run_dir/warden.log" || exit 1
  wait_quiet "the Warden runs" "$warden_pid" "$warden_data"
  run_load warden "$W" "$warden_pid" "$warden_data" --admin-token "$ADMIN_TOKEN" --registration-token "$reg_token"
  stop_pid "$warden_pid" warden
  warden_pid=""
  if grep -q "NoClassDefFoundError" "$run_dir/warden.log"; then
    fail "warden: NoClassDefFoundError in its log: the launcher jar was rebuilt while Warden ran (a concurrent build); rerun"
  fi
  rm -rf "$warden_data"
  warden_data=""
fi

# ---------------------------------------------------------------- 3. Keycloak

if [[ -n "$kc_tar" ]]; then
  kc_dir="$(mktemp -d /var/tmp/keycloak-bench.XXXXXX)"
  tar xzf "$kc_tar" -C "$kc_dir" --strip-components 1
  kc_port="$(free_port)"
  kc_mgmt="$(free_port)"
  [[ "$kc_mgmt" == "$kc_port" ]] && kc_mgmt="$(free_port)"
  kc_password="bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  K="http://127.0.0.1:$kc_port"
  log "starting keycloak $KC_VERSION start-dev on 127.0.0.1:$kc_port (heap $HEAP, $kc_dir, log $run_dir/keycloak.log)"
  (
    export JAVA_HOME KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD="$kc_password" \
      JAVA_OPTS_KC_HEAP="-Xms64m -Xmx$HEAP" JAVA_OPTS_APPEND="-Dvertx.cacheDirBase=$kc_dir/vertx-cache"
    exec setsid "$kc_dir/bin/kc.sh" start-dev --http-host=127.0.0.1 --http-port="$kc_port" \
      --http-management-port="$kc_mgmt" --features=token-exchange-standard
  ) >"$run_dir/keycloak.log" 2>&1 &
  kc_pid=$!
  if wait_http "$K/realms/master/.well-known/openid-configuration" 300 "$kc_pid"; then
    log "keycloak is up"
    wait_quiet "the Keycloak runs" "$kc_pid" "$kc_dir"
    norot=true
    [[ "$KC_NOROTATE" == 1 ]] || norot=false
    run_load keycloak "$K" "$kc_pid" "$kc_dir" --kc-admin "admin:$kc_password" --kc-alg "$KC_ALG" --kc-norotate "$norot"
  else
    kc_problem="keycloak did not start within 300 s (see $run_dir/keycloak.log)"
    fail "$kc_problem"
    tail -20 "$run_dir/keycloak.log" >&2
  fi
  stop_pid "$kc_pid" keycloak
  kc_pid=""
  rm -rf "$kc_dir"
  kc_dir=""
fi

# ---------------------------------------------------------------- 4. report

results="$run_dir/results.tsv"
status="$run_dir/status.tsv"
touch "$results" "$status"

# field TARGET GRANT WORKERS COLUMN: one value of results.tsv
field() {
  awk -F'\t' -v t="$1" -v g="$2" -v w="$3" -v c="$4" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == t && $2 == g && $3 == w { print $(col[c]); exit }' "$results"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
grant_title() {
  case "$1" in
    refresh) echo "refresh_token grant (rotating refresh tokens)" ;;
    client_credentials) echo "client_credentials grant" ;;
    token_exchange) echo "token exchange (RFC 8693)" ;;
    introspection) echo "introspection of an access token (RFC 7662)" ;;
    *) echo "$1" ;;
  esac
}
# unavailable TARGET GRANT: the reason, if status.tsv says the grant was skipped or failed its check
unavailable() { awk -F'\t' -v t="$1" -v g="$2" '$1 == t && $2 == g && ($3 == "unavailable" || $3 == "failed") { print $4; exit }' "$status"; }
setup_failed() { awk -F'\t' -v t="$1" '$1 == t && $2 == "setup" { print $4; exit }' "$status"; }

if [[ -s "$results" ]]; then
  total_429="$(awk -F'\t' 'NR > 1 && $1 == "warden" { s += $12 } END { print s + 0 }' "$results")"
else
  total_429=0
fi

{
  echo
  echo "OAuth token endpoint: $warden_label vs Keycloak $KC_VERSION start-dev"
  echo "closed loop, keep-alive HTTP/1.1, ${DURATION}s per run after ${WARM_ALL}s of each grant in turn, then a ${WARMUP}s warm-up per grant (${FIRST_WARMUP}s for the first)"
  echo "at the largest worker count; $(nproc) cores shared by the load client and the server; 127.0.0.1; heap $HEAP each; $JAVA_VERSION"
  for t in warden keycloak; do
    s="$(setup_failed "$t")"
    [[ -n "$s" ]] && echo "$t: SETUP FAILED: $s"
  done
  [[ -n "$kc_problem" ]] && echo "Keycloak: not measured: $kc_problem"
  for g in $GRANTS; do
    echo
    echo "$(grant_title "$g")"
    printf '  %-16s %7s %9s %8s %8s %9s %7s   %s\n' target workers "req/s" "p50 ms" "p99 ms" "p99.9 ms" errors \
      "cpu % of a core: server / load client / other"
    rows=("warden:$g")
    rows+=("keycloak:$g")
    [[ "$g" == refresh && "$KC_NOROTATE" == 1 ]] && rows+=("keycloak-norot:refresh_norotate")
    for row in "${rows[@]}"; do
      name="${row%%:*}" key="${row#*:}" t="${name%%-*}"
      why="$(unavailable "$t" "$key")"
      [[ -z "$why" && -n "$(setup_failed "$t")" ]] && why="not measured (setup failed)"
      [[ -z "$why" && "$t" == warden && "$SKIP_WARDEN" == 1 ]] && why="skipped"
      [[ -z "$why" && "$t" == keycloak && -n "$kc_problem" ]] && why="not measured"
      if [[ -n "$why" ]]; then
        printf '  %-16s %s\n' "$name" "$why"
        continue
      fi
      for w in $WORKERS; do
        rps="$(field "$t" "$key" "$w" req_s)"
        if [[ -z "$rps" ]]; then
          printf '  %-16s %7s %9s\n' "$name" "$w" "no result"
          continue
        fi
        other="$(field "$t" "$key" "$w" cpu_other)"
        mark=""
        ((${other:-0} > 20)) && mark=" (!)"
        printf '  %-16s %7s %9s %8s %8s %9s %7s   %s / %s / %s%s\n' "$name" "$w" "$rps" "$(field "$t" "$key" "$w" p50_ms)" \
          "$(field "$t" "$key" "$w" p99_ms)" "$(field "$t" "$key" "$w" p999_ms)" "$(field "$t" "$key" "$w" errors)" \
          "$(field "$t" "$key" "$w" cpu_server)" "$(field "$t" "$key" "$w" cpu_loader)" "$other" "$mark"
      done
    done
  done
  echo
  echo "Ratios warden / keycloak (same worker count)"
  printf '  %-36s %7s %12s %12s\n' grant workers "req/s W/K" "p99 W/K"
  for g in $GRANTS; do
    pairs=("$g:$g")
    [[ "$g" == refresh && "$KC_NOROTATE" == 1 ]] && pairs+=("refresh (keycloak without rotation):refresh_norotate")
    for p in "${pairs[@]}"; do
      label="${p%%:*}" kkey="${p#*:}"
      for w in $WORKERS; do
        wr="$(field warden "$g" "$w" req_s)" kr="$(field keycloak "$kkey" "$w" req_s)"
        [[ -z "$wr" || -z "$kr" ]] && continue
        printf '  %-36s %7s %12s %12s\n' "$label" "$w" "$(ratio "$wr" "$kr")" \
          "$(ratio "$(field warden "$g" "$w" p99_ms)" "$(field keycloak "$kkey" "$w" p99_ms)")"
      done
    done
  done
  echo
  # The target: Warden's best refresh throughput among runs with p99 < 20 ms vs Keycloak's best (rotation on).
  best_w="" best_w_at="" best_k="" best_k_at="" has_w=0
  for w in $WORKERS; do
    r="$(field warden refresh "$w" req_s)" p="$(field warden refresh "$w" p99_ms)"
    [[ -n "$r" ]] && has_w=1
    if [[ -n "$r" && -n "$p" && "$p" != "-" ]] && awk -v p="$p" -v t="$TARGET_P99_MS" 'BEGIN { exit !(p < t) }' \
      && { [[ -z "$best_w" ]] || ((r > best_w)); }; then
      best_w="$r" best_w_at="$w workers, p99 $p ms"
    fi
    r="$(field keycloak refresh "$w" req_s)"
    if [[ -n "$r" ]] && { [[ -z "$best_k" ]] || ((r > best_k)); }; then
      best_k="$r" best_k_at="$w workers, p99 $(field keycloak refresh "$w" p99_ms) ms"
    fi
  done
  if ((has_w == 0)); then
    echo "Target (refresh: >= ${TARGET_RATIO}x Keycloak's throughput at p99 < ${TARGET_P99_MS} ms): not evaluated (no Warden refresh runs)"
  elif [[ -z "$best_k" ]]; then
    echo "Target (refresh: >= ${TARGET_RATIO}x Keycloak's throughput at p99 < ${TARGET_P99_MS} ms): not evaluated (no Keycloak refresh runs)"
  elif [[ -z "$best_w" ]]; then
    echo "Target (refresh: >= ${TARGET_RATIO}x Keycloak's throughput at p99 < ${TARGET_P99_MS} ms): MISSED: no Warden run had p99 < ${TARGET_P99_MS} ms"
    echo "  (Keycloak's best: $best_k req/s at $best_k_at)"
  else
    x="$(ratio "$best_w" "$best_k")"
    verdict="$(awk -v x="$x" -v t="$TARGET_RATIO" 'BEGIN { print (x >= t ? "MET" : "MISSED") }')"
    echo "Target (refresh: >= ${TARGET_RATIO}x Keycloak's throughput at p99 < ${TARGET_P99_MS} ms): $verdict: ${x}x"
    echo "  (Warden's best with p99 < ${TARGET_P99_MS} ms: $best_w req/s at $best_w_at; Keycloak's best: $best_k req/s at $best_k_at)"
  fi
  # The other targets (issue 41), at each worker count: client credentials >= 3x with a p99 no worse than
  # Keycloak's, token exchange >= 5x, introspection >= 5x with a p99 under TARGET_P99_MS.
  for spec in "client_credentials:3:keycloak" "token_exchange:5:" "introspection:5:$TARGET_P99_MS"; do
    g="${spec%%:*}" rest="${spec#*:}"
    want="${rest%%:*}" p99_rule="${rest#*:}"
    [[ " $GRANTS " == *" $g "* ]] || continue
    for w in $WORKERS; do
      wr="$(field warden "$g" "$w" req_s)" kr="$(field keycloak "$g" "$w" req_s)"
      [[ -z "$wr" || -z "$kr" ]] && continue
      x="$(ratio "$wr" "$kr")" wp="$(field warden "$g" "$w" p99_ms)" kp="$(field keycloak "$g" "$w" p99_ms)"
      case "$p99_rule" in
        keycloak) rule=", p99 no worse than Keycloak's" bound="$kp" ;;
        "") rule="" bound="" ;;
        *) rule=", p99 < $p99_rule ms" bound="$p99_rule" ;;
      esac
      verdict="$(awk -v x="$x" -v t="$want" -v p="$wp" -v b="$bound" -v rule="$p99_rule" 'BEGIN {
        ok = (x != "-" && x + 0 >= t)
        if (rule == "keycloak") ok = ok && p != "-" && p + 0 <= b + 0
        else if (rule != "") ok = ok && p != "-" && p + 0 < b + 0
        print (ok ? "MET" : "MISSED") }')"
      echo "Target ($g: >= ${want}x Keycloak's throughput$rule), $w workers: $verdict: ${x}x, p99 $wp ms (Keycloak $kp ms)"
    done
  done
  echo
  echo "Warden answered $total_429 requests with 429 during the measured runs (token endpoint limit raised to 100,000,000/min)."
  echo "Keycloak: start-dev is its quick-start mode (embedded H2 file database, local Infinispan caches, dev profile),"
  echo "  not a production setup, as warden dev is Warden's (embedded PostgreSQL and Kafka)."
  echo "Token exchange: Keycloak's standard token exchange takes no actor_token; its row exchanges the user's token only."
  for f in warden:SEVERE keycloak:ERROR; do
    n="$(grep -c " ${f#*:} " "$run_dir/${f%%:*}.log" 2>/dev/null || true)"
    if [[ -n "$n" && "$n" != 0 ]]; then
      echo "WARNING: ${f%%:*}.log has $n ${f#*:} lines:"
      grep " ${f#*:} " "$run_dir/${f%%:*}.log" | sed -E "s/^[0-9T:.,-]+( [0-9:.,]+)? //" | cut -c1-200 | sort | uniq -c | sort -rn | head -5 | sed 's/^/  /'
    fi
  done
  for w in "${warnings[@]}"; do echo "WARNING: $w"; done
  awk -F'\t' 'NR > 1 && $17 + 0 > 20 { printf "WARNING: other processes used %s%% of a core during %s %s at %s workers (marked (!))\n", $17, $1, $2, $3 }' "$results"
  echo "Raw output: $run_dir"
  if ((failures > 0)); then echo "CHECKS FAILED: $failures (see the log above)"; fi
} | tee "$run_dir/summary.txt"

((failures == 0))
