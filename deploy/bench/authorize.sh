#!/usr/bin/env bash
# HTTP benchmark: POST /authorize on `warden dev` (audit on: every decision is acknowledged by Kafka
# before the answer) against Cerbos 0.55 POST /api/check/resources with an equivalent policy, both driven
# by wrk with keep-alive connections on 127.0.0.1 in the same run. Prints decisions/s, p50 and p99 per
# connection count and the Warden/Cerbos ratios.
#
#   deploy/bench/authorize.sh
#
# Environment (all optional):
#   BENCH_DURATION=20      seconds per measured wrk run
#   BENCH_WARMUP=90        seconds of unmeasured warm-up per target, at the largest connection count
#                          (on 2 cores Warden's JVM JIT-compiles Kafka, Streams and Helidon for 1-2 minutes:
#                          after 30 s the C2 compiler threads still took a quarter of the CPU)
#   BENCH_WAIT_QUIET=120   seconds to wait, before each target, for other processes to go quiet
#   BENCH_CONNECTIONS="16 64"
#   BENCH_THREADS=2        wrk threads
#   BENCH_CERBOS_AUDIT=1   also measure Cerbos with its `local` audit backend enabled (0: skip)
#   BENCH_SKIP_CERBOS=1    benchmark Warden only
#   BENCH_BATCH=10         also measure batches of this many decisions (0: skip): Warden's AuthZEN
#                          POST /access/v1/evaluations against Cerbos' own batch, /api/check/resources with as
#                          many resources; reported apart, as decisions/s (requests/s x batch), never against a
#                          single call
#
# Installs wrk (apt-get) and Cerbos (npm, into deploy/bench/.cache) when missing. Logs and raw wrk output
# are kept in deploy/bench/.cache/runs/authorize-<timestamp>/. Exit status: 0 when every run answered
# 2xx and every checked decision was allowed (whether or not the throughput target was met), 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$here/.cache"

DURATION="${BENCH_DURATION:-20}"
WARMUP="${BENCH_WARMUP:-90}"
WAIT_QUIET="${BENCH_WAIT_QUIET:-120}"
CONNECTIONS="${BENCH_CONNECTIONS:-16 64}"
WARM_CONNS="$(tr ' ' '\n' <<<"$CONNECTIONS" | sort -n | tail -1)"
THREADS="${BENCH_THREADS:-2}"
CERBOS_AUDIT="${BENCH_CERBOS_AUDIT:-1}"
SKIP_CERBOS="${BENCH_SKIP_CERBOS:-0}"
BATCH="${BENCH_BATCH:-10}"
CERBOS_VERSION_PREFIX="0.55."
ADMIN_TOKEN="wdn_adm_bench"
PERMISSIONS=100
TARGET_RPS=10000
TARGET_P99_MS=20

run_dir="$cache/runs/authorize-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run_dir"
failures=0
warnings=()
declare -A RPS P50 P99 REQS NON2XX ERRS CPU
warden_pid="" cerbos_pid="" warden_data="" cerbos_dir=""

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fail() { log "FAIL: $*"; failures=$((failures + 1)); }

# ---------------------------------------------------------------- helpers

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cleanup() {
  stop_pid "$warden_pid" warden
  warden_pid=""
  stop_pid "$cerbos_pid" cerbos
  cerbos_pid=""
  [[ -n "$warden_data" && -d "$warden_data" ]] && rm -rf "$warden_data"
  [[ -n "$cerbos_dir" && -d "$cerbos_dir" ]] && rm -rf "$cerbos_dir"
  return 0
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# shellcheck source=wrk.sh
source "$(dirname "${BASH_SOURCE[0]}")/wrk.sh"

# ---------------------------------------------------------------- 1. tools

ensure_wrk

cerbos_bin="" cerbos_problem=""
if [[ "$SKIP_CERBOS" == 1 ]]; then
  cerbos_problem="skipped (BENCH_SKIP_CERBOS=1)"
else
  find_cerbos() {
    local f
    f="$cache/node_modules/@cerbos/cerbos-linux-x64/cerbos-linux-x64"
    [[ -x "$f" ]] && "$f" --version 2>/dev/null | head -1 | grep -q "^${CERBOS_VERSION_PREFIX//./\\.}" && echo "$f"
    return 0
  }
  cerbos_bin="$(find_cerbos)"
  if [[ -z "$cerbos_bin" ]]; then
    if [[ "$(uname -sm)" != "Linux x86_64" ]]; then
      cerbos_problem="the npm package @cerbos/cerbos-linux-x64 only runs on Linux x86_64 (this is $(uname -sm))"
    elif ! command -v npm >/dev/null; then
      cerbos_problem="npm is not installed, so @cerbos/cerbos-linux-x64 cannot be fetched"
    else
      version="$(npm view @cerbos/cerbos-linux-x64 versions --json 2>>"$run_dir/npm.log" \
        | tr -d '[]" ' | tr ',' '\n' | grep "^${CERBOS_VERSION_PREFIX//./\\.}" | sort -V | tail -1 || true)"
      if [[ -z "$version" ]]; then
        cerbos_problem="npm has no @cerbos/cerbos-linux-x64 ${CERBOS_VERSION_PREFIX}x (see $run_dir/npm.log)"
      else
        log "installing @cerbos/cerbos-linux-x64@$version (npm, into $cache)"
        if npm install --prefix "$cache" --no-audit --no-fund "@cerbos/cerbos-linux-x64@$version" \
          >>"$run_dir/npm.log" 2>&1; then
          cerbos_bin="$(find_cerbos)"
          [[ -z "$cerbos_bin" ]] && cerbos_problem="installed @cerbos/cerbos-linux-x64@$version but its binary does not run (see $run_dir/npm.log)"
        else
          cerbos_problem="npm install @cerbos/cerbos-linux-x64@$version failed (see $run_dir/npm.log)"
        fi
      fi
    fi
  fi
fi
[[ -n "$cerbos_problem" ]] && log "Cerbos baseline unavailable: $cerbos_problem"
[[ -n "$cerbos_bin" ]] && log "cerbos: $("$cerbos_bin" --version | head -1) ($cerbos_bin)"

# ---------------------------------------------------------------- 2-4. Warden

warden_port="$(free_port)"
warden_data="$(mktemp -d /var/tmp/warden-bench.XXXXXX)"
chmod 755 "$warden_data"
B="http://127.0.0.1:$warden_port"
log "starting warden dev on 127.0.0.1:$warden_port (data $warden_data, log $run_dir/warden.log)"
(
  cd "$root"
  export WARDEN_BOOTSTRAP_TOKEN="$ADMIN_TOKEN" WARDEN_SERVER_HOST=127.0.0.1
  exec setsid ./warden dev --port "$warden_port" --data-dir "$warden_data"
) >"$run_dir/warden.log" 2>&1 &
warden_pid=$!

wait_warden_healthy "$B" "$warden_pid" "$run_dir/warden.log" || exit 1

perms="$(for n in $(seq 0 $((PERMISSIONS - 1))); do
  if ((n > 0)); then printf ','; fi
  printf '{"resource":"mcp:svc%d:*","actions":["read","write"]}' "$n"
done)"
created="$(curl -s --max-time 30 -X POST "$B/agents" -H "Authorization: Bearer $ADMIN_TOKEN" \
  -H 'Content-Type: application/json' \
  -d "{\"ownerId\":\"bench\",\"name\":\"bench-agent\",\"type\":\"autonomous\",\"permissions\":[$perms]}")"
agent_id="$(sed -nE 's/.*"id":"(agt_[^"]+)".*/\1/p' <<<"$created")"
if [[ -z "$agent_id" ]]; then
  log "could not create the bench agent: $created"
  exit 1
fi
log "agent $agent_id (owner bench, $PERMISSIONS permissions mcp:svcN:* read/write, unconstrained)"

warden_body="{\"agentId\":\"$agent_id\",\"action\":\"read\",\"resource\":\"mcp:svc42:items:7\"}"
write_lua "$run_dir/warden.lua" "$warden_body" "Authorization: Bearer $ADMIN_TOKEN"
answer="$(curl -s --max-time 10 -X POST "$B/authorize" -H "Authorization: Bearer $ADMIN_TOKEN" \
  -H 'Content-Type: application/json' -d "$warden_body")"
log "check: POST /authorize -> $answer"
if ! grep -q '"allowed":true' <<<"$answer"; then
  fail "warden: the benchmark decision is not allowed: $answer"
fi
# A negative control: the 101st service must be denied (the policy is really evaluated).
deny="$(curl -s --max-time 10 -X POST "$B/authorize" -H "Authorization: Bearer $ADMIN_TOKEN" \
  -H 'Content-Type: application/json' -d "{\"agentId\":\"$agent_id\",\"action\":\"read\",\"resource\":\"mcp:svc100:items:7\"}")"
grep -q '"allowed":false' <<<"$deny" || fail "warden: mcp:svc100 should be denied: $deny"
checked_calls=2

wait_quiet "the Warden runs" "$warden_pid" "$warden_data"
if ((WARMUP > 0)); then
  log "warden warm-up (${WARMUP}s, $WARM_CONNS connections)"
  wrk -t "$THREADS" -c "$WARM_CONNS" -d "${WARMUP}s" --timeout 5s -s "$run_dir/warden.lua" "$B/authorize" >"$run_dir/wrk-warden-warmup.txt" 2>&1 || true
  warm="$(awk '/requests in/ { print $1 }' "$run_dir/wrk-warden-warmup.txt")"
  checked_calls=$((checked_calls + ${warm:-0}))
fi
for c in $CONNECTIONS; do
  run_wrk "warden-$c" "$B/authorize" "$run_dir/warden.lua" "$c" "$warden_pid" "$warden_data"
  checked_calls=$((checked_calls + ${REQS[warden-$c]:-0}))
done

# Batches: one AuthZEN request of BATCH evaluations (services 0..BATCH-1, all allowed), each one audited.
if ((BATCH > 0)); then
  evaluations="$(for n in $(seq 0 $((BATCH - 1))); do
    ((n > 0)) && printf ','
    printf '{"resource":{"type":"mcp","id":"svc%d:items:7"}}' "$n"
  done)"
  warden_batch="{\"subject\":{\"type\":\"agent\",\"id\":\"$agent_id\"},\"action\":{\"name\":\"read\"},\"evaluations\":[$evaluations]}"
  write_lua "$run_dir/warden-batch.lua" "$warden_batch" "Authorization: Bearer $ADMIN_TOKEN"
  answer="$(curl -s --max-time 10 -X POST "$B/access/v1/evaluations" -H "Authorization: Bearer $ADMIN_TOKEN" \
    -H 'Content-Type: application/json' -d "$warden_batch")"
  allowed="$(grep -o '"decision":true' <<<"$answer" | wc -l)"
  log "check: POST /access/v1/evaluations ($BATCH) -> $allowed allowed"
  ((allowed == BATCH)) || fail "warden: the batch should allow all $BATCH: $answer"
  checked_calls=$((checked_calls + BATCH))
  if ((WARMUP > 0)); then
    log "warden batch warm-up ($((WARMUP / 3))s, $WARM_CONNS connections)"
    wrk -t "$THREADS" -c "$WARM_CONNS" -d "$((WARMUP / 3))s" --timeout 5s -s "$run_dir/warden-batch.lua" \
      "$B/access/v1/evaluations" >"$run_dir/wrk-warden-batch-warmup.txt" 2>&1 || true
    warm="$(awk '/requests in/ { print $1 }' "$run_dir/wrk-warden-batch-warmup.txt")"
    checked_calls=$((checked_calls + ${warm:-0} * BATCH))
  fi
  for c in $CONNECTIONS; do
    run_wrk "wardenbatch-$c" "$B/access/v1/evaluations" "$run_dir/warden-batch.lua" "$c" "$warden_pid" "$warden_data"
    checked_calls=$((checked_calls + ${REQS[wardenbatch-$c]:-0} * BATCH))
  done
fi

# Every answered decision has an audit entry on Kafka; the pipeline's count must reach the number of
# answers wrk counted (it may exceed it by the requests still in flight when wrk stopped).
log "checking the audit count (GET /dashboard/stats) reaches $checked_calls"
audit_total="" deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
  stats="$(curl -s --max-time 5 "$B/dashboard/stats" -H "Authorization: Bearer $ADMIN_TOKEN" || true)"
  audit_total="$(sed -nE 's/.*"totalAuditEntries":([0-9]+).*/\1/p' <<<"$stats")"
  [[ -n "$audit_total" ]] && ((audit_total >= checked_calls)) && break
  sleep 1
done
denial_rate="$(sed -nE 's/.*"denialRateLast24h":([0-9.]+).*/\1/p' <<<"${stats:-}")"
audit_note="audit entries counted by the pipeline: ${audit_total:-?} for $checked_calls answered decisions (1 denied control call; denial rate ${denial_rate:-?}%)"
log "$audit_note"
if [[ -z "$audit_total" ]] || ((audit_total < checked_calls)); then
  fail "warden: the audit count (${audit_total:-none}) did not reach $checked_calls answered decisions within 60 s"
fi

stop_pid "$warden_pid" warden
warden_pid=""
if grep -q "NoClassDefFoundError" "$run_dir/warden.log"; then
  fail "warden: NoClassDefFoundError in its log: the launcher jar was rebuilt while Warden ran (a concurrent build); rerun"
fi
rm -rf "$warden_data"
warden_data=""

# ---------------------------------------------------------------- 5. Cerbos

# start_cerbos AUDIT(0|1): writes the config and starts the PDP; sets cerbos_pid and C.
start_cerbos() {
  local audit="$1" http_port grpc_port
  http_port="$(free_port)"
  grpc_port="$(free_port)"
  [[ "$grpc_port" == "$http_port" ]] && grpc_port="$(free_port)"
  rm -rf "$cerbos_dir/audit"
  {
    cat <<EOF
server:
  httpListenAddr: "127.0.0.1:$http_port"
  grpcListenAddr: "127.0.0.1:$grpc_port"
engine:
  defaultPolicyVersion: default
storage:
  driver: disk
  disk:
    directory: "$cerbos_dir/policies"
    watchForChanges: false
telemetry:
  disabled: true
EOF
    if [[ "$audit" == 1 ]]; then
      cat <<EOF
audit:
  enabled: true
  accessLogsEnabled: false
  decisionLogsEnabled: true
  backend: local
  local:
    storagePath: "$cerbos_dir/audit"
    retentionPeriod: 24h
EOF
    else
      printf 'audit:\n  enabled: false\n'
    fi
  } >"$cerbos_dir/config-$audit.yaml"
  C="http://127.0.0.1:$http_port"
  log "starting cerbos on 127.0.0.1:$http_port (audit $( ((audit)) && echo 'local backend' || echo off))"
  CERBOS_NO_TELEMETRY=1 setsid "$cerbos_bin" server --config "$cerbos_dir/config-$audit.yaml" --log-level warn \
    >"$run_dir/cerbos-$audit.log" 2>&1 &
  cerbos_pid=$!
  if ! wait_http "$C/_cerbos/health" 60 "$cerbos_pid"; then
    tail -20 "$run_dir/cerbos-$audit.log" >&2
    return 1
  fi
}

cerbos_keys=()
cerbos_batch_keys=()
if [[ -n "$cerbos_bin" ]]; then
  cerbos_dir="$(mktemp -d /var/tmp/cerbos-bench.XXXXXX)"
  mkdir -p "$cerbos_dir/policies"
  # The equivalent of the agent's 100 grants mcp:svcN:* [read, write]: one resource policy for kind "mcp"
  # with one ALLOW rule per service, each a CEL prefix match on the resource id (what Warden's trailing
  # ":*" pattern means), for the principal's role "agent".
  {
    cat <<'EOF'
apiVersion: api.cerbos.dev/v1
resourcePolicy:
  version: default
  resource: mcp
  rules:
EOF
    for n in $(seq 0 $((PERMISSIONS - 1))); do
      cat <<EOF
    - name: svc$n
      actions: ["read", "write"]
      effect: EFFECT_ALLOW
      roles: ["agent"]
      condition:
        match:
          expr: R.id.startsWith("mcp:svc$n:")
EOF
    done
  } >"$cerbos_dir/policies/mcp.yaml"
  if ! "$cerbos_bin" compile "$cerbos_dir/policies" >"$run_dir/cerbos-compile.log" 2>&1; then
    cerbos_problem="the Cerbos policy does not compile (see $run_dir/cerbos-compile.log)"
    log "$cerbos_problem"
  fi
  cerbos_body='{"requestId":"bench","principal":{"id":"'"$agent_id"'","roles":["agent"]},"resources":[{"actions":["read"],"resource":{"kind":"mcp","id":"mcp:svc42:items:7"}}]}'
  cerbos_deny='{"requestId":"bench","principal":{"id":"'"$agent_id"'","roles":["agent"]},"resources":[{"actions":["read"],"resource":{"kind":"mcp","id":"mcp:svc100:items:7"}}]}'
  write_lua "$run_dir/cerbos.lua" "$cerbos_body"
  cerbos_resources="$(for n in $(seq 0 $((BATCH > 0 ? BATCH - 1 : 0))); do
    ((n > 0)) && printf ','
    printf '{"actions":["read"],"resource":{"kind":"mcp","id":"mcp:svc%d:items:7"}}' "$n"
  done)"
  cerbos_batch='{"requestId":"bench","principal":{"id":"'"$agent_id"'","roles":["agent"]},"resources":['"$cerbos_resources"']}'
  write_lua "$run_dir/cerbos-batch.lua" "$cerbos_batch"

  modes=(0)
  [[ "$CERBOS_AUDIT" == 1 ]] && modes+=(1)
  for audit in "${modes[@]}"; do
    [[ -n "$cerbos_problem" ]] && break
    if ! start_cerbos "$audit"; then
      cerbos_problem="cerbos server did not become healthy (see $run_dir/cerbos-$audit.log)"
      log "$cerbos_problem"
      stop_pid "$cerbos_pid" cerbos
      cerbos_pid=""
      break
    fi
    name="cerbos"
    ((audit)) && name="cerbos+audit"
    wait_quiet "the $name runs" "$cerbos_pid" ""
    answer="$(curl -s --max-time 10 -X POST "$C/api/check/resources" -H 'Content-Type: application/json' -d "$cerbos_body")"
    log "check: POST /api/check/resources -> $answer"
    grep -q '"read":"EFFECT_ALLOW"' <<<"$answer" || fail "$name: the benchmark check is not allowed: $answer"
    deny="$(curl -s --max-time 10 -X POST "$C/api/check/resources" -H 'Content-Type: application/json' -d "$cerbos_deny")"
    grep -q '"read":"EFFECT_DENY"' <<<"$deny" || fail "$name: mcp:svc100 should be denied: $deny"
    if ((WARMUP > 0)); then
      log "$name warm-up (${WARMUP}s, $WARM_CONNS connections)"
      wrk -t "$THREADS" -c "$WARM_CONNS" -d "${WARMUP}s" --timeout 5s -s "$run_dir/cerbos.lua" "$C/api/check/resources" \
        >"$run_dir/wrk-$name-warmup.txt" 2>&1 || true
    fi
    for c in $CONNECTIONS; do
      run_wrk "$name-$c" "$C/api/check/resources" "$run_dir/cerbos.lua" "$c" "$cerbos_pid" ""
      cerbos_keys+=("$name-$c")
    done
    if ((BATCH > 0)); then
      answer="$(curl -s --max-time 10 -X POST "$C/api/check/resources" -H 'Content-Type: application/json' -d "$cerbos_batch")"
      allowed="$(grep -o '"read":"EFFECT_ALLOW"' <<<"$answer" | wc -l)"
      ((allowed == BATCH)) || fail "$name: the batch should allow all $BATCH: $answer"
      if ((WARMUP > 0)); then
        wrk -t "$THREADS" -c "$WARM_CONNS" -d "$((WARMUP / 3))s" --timeout 5s -s "$run_dir/cerbos-batch.lua" \
          "$C/api/check/resources" >"$run_dir/wrk-$name-batch-warmup.txt" 2>&1 || true
      fi
      for c in $CONNECTIONS; do
        run_wrk "${name}batch-$c" "$C/api/check/resources" "$run_dir/cerbos-batch.lua" "$c" "$cerbos_pid" ""
        cerbos_batch_keys+=("${name}batch-$c")
      done
    fi
    stop_pid "$cerbos_pid" cerbos
    cerbos_pid=""
  done
fi

# ---------------------------------------------------------------- 6. report

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0 || a == "?" || b == "?") print "-"; else printf "%.2f", a / b }'; }

{
  echo
  echo "POST /authorize (warden dev, audit on) vs Cerbos $("${cerbos_bin:-false}" --version 2>/dev/null | head -1 || true) POST /api/check/resources"
  echo "wrk ${THREADS} threads, keep-alive, ${DURATION}s per run after a ${WARMUP}s warm-up at $WARM_CONNS connections; $(nproc) cores shared by wrk and the server; 127.0.0.1"
  echo
  printf '%-14s %5s %12s %10s %10s   %s\n' target conns "req/s" "p50 ms" "p99 ms" "cpu mid-run (top over 2 s; 200% = both cores; (!) = other load)"
  for key in $(for c in $CONNECTIONS; do echo "warden-$c"; done) "${cerbos_keys[@]}"; do
    [[ -z "$key" ]] && continue
    printf '%-14s %5s %12s %10s %10s   %s\n' "${key%-*}" "${key##*-}" "${RPS[$key]:-?}" "${P50[$key]:-?}" \
      "${P99[$key]:-?}" "${CPU[$key]:-?}"
  done
  echo
  if ((${#cerbos_keys[@]} > 0)); then
    printf '%-24s %5s %14s %14s\n' ratio conns "req/s W/C" "p99 W/C"
    for base in cerbos cerbos+audit; do
      for c in $CONNECTIONS; do
        [[ -z "${RPS[$base-$c]:-}" ]] && continue
        printf '%-24s %5s %14s %14s\n' "warden / $base" "$c" "$(ratio "${RPS[warden-$c]:-}" "${RPS[$base-$c]}")" \
          "$(ratio "${P99[warden-$c]:-}" "${P99[$base-$c]}")"
      done
    done
    echo
  else
    echo "Cerbos baseline: not measured: $cerbos_problem"
    echo
  fi
  if ((BATCH > 0)); then
    echo "Batches of $BATCH decisions: Warden POST /access/v1/evaluations (AuthZEN, each decision audited and"
    echo "  acknowledged by Kafka before the answer) vs Cerbos /api/check/resources with $BATCH resources."
    printf '%-16s %5s %12s %14s %10s\n' target conns "req/s" "decisions/s" "p99 ms"
    for key in $(for c in $CONNECTIONS; do echo "wardenbatch-$c"; done) "${cerbos_batch_keys[@]}"; do
      [[ -z "$key" ]] && continue
      printf '%-16s %5s %12s %14s %10s\n' "${key%-*}" "${key##*-}" "${RPS[$key]:-?}" \
        "$(awk -v r="${RPS[$key]:-}" -v b="$BATCH" 'BEGIN { if (r == "" || r == "?") print "?"; else printf "%.0f", r * b }')" \
        "${P99[$key]:-?}"
    done
    for base in cerbosbatch cerbos+auditbatch; do
      for c in $CONNECTIONS; do
        [[ -z "${RPS[$base-$c]:-}" ]] && continue
        printf '%-24s %5s %14s %14s\n' "wardenbatch / $base" "$c" "$(ratio "${RPS[wardenbatch-$c]:-}" "${RPS[$base-$c]}")" \
          "$(ratio "${P99[wardenbatch-$c]:-}" "${P99[$base-$c]}")"
      done
    done
    echo
  fi
  echo "Warden answers each decision only after Kafka acknowledged its audit entry (acks=all);"
  echo "  $audit_note."
  echo "cerbos: no audit. cerbos+audit: Cerbos decision logs to its 'local' backend (an embedded Badger store,"
  echo "  written asynchronously from a buffer; not acknowledged per decision before the answer)."
  r16="${RPS[warden-16]:-}" p16="${P99[warden-16]:-}"
  if [[ -n "$r16" && -n "$p16" ]]; then
    verdict="$(awk -v r="$r16" -v p="$p16" -v tr="$TARGET_RPS" -v tp="$TARGET_P99_MS" \
      'BEGIN { print ((r >= tr && p < tp) ? "MET" : "MISSED") }')"
    echo "Target (>= $TARGET_RPS decisions/s and p99 < $TARGET_P99_MS ms at 16 connections): $verdict ($r16/s, p99 $p16 ms)"
  fi
  for w in "${warnings[@]}"; do echo "WARNING: $w"; done
  echo "Raw output: $run_dir"
  if ((failures > 0)); then echo "CHECKS FAILED: $failures (see the log above)"; fi
} | tee "$run_dir/summary.txt"

((failures == 0))
