#!/usr/bin/env bash
# Interoperability checks: three real npm OAuth/MCP client libraries (openid-client, oauth4webapi and the MCP
# TypeScript SDK, pinned in package.json) against a `warden dev` started here on a free port with 5-second access
# tokens (and a registration cap of 20 a minute), each script in turn (120 s each): openid-client, oauth4webapi,
# oauth4webapi-agents (token exchange and the device grant), mcp-sdk, mcp-sdk-2026 (the MCP SDK 2.x client on the
# 2026-07-28 revision: server/discover, no initialize), otplib, and authzen (the AuthZEN certification
# scenario and the todo and search interop harnesses of openid/authzen, vendored in authzen/), and ssf (the Shared
# Signals transmitter, every token verified with npm jose; the server allows private push targets for its local
# receiver), and sinks (the three HTTP audit sinks through a minute-long outage, read with the cloudevents SDK and
# the OpenTelemetry protobufs; the server is started with those sinks pointing at ports picked here), and cli (the
# `warden` CLI's jar, one process per command, signed in through the device grant), and python-client (the Python
# client library's tests, python-client.sh), and typescript-client (the TypeScript package built, packed, installed
# into a scratch project and tested, typescript-client.sh), and generated-clients (a Java and a Python client generated
# by OpenAPI Generator from openapi.json, compiled and called, generated-clients.sh; 300 s: it runs the generator
# and Maven). Exits non-zero when any fails.
#   deploy/interop/run.sh                                   start a server, run the scripts, stop it
#   WARDEN_URL=http://localhost:18080 deploy/interop/run.sh  use a running server instead (its access tokens
#                                                           must be short-lived for mcp-sdk.mjs: see README.md)
# Installs the pinned packages (npm ci) when node_modules is missing or older than package-lock.json.
# WARDEN_INTEROP_KEEP=1 keeps the server's data directory and log.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

# INTEROP_SCRIPTS="a b" runs only those (test/self-test.sh: the mock implements what the first three check).
read -r -a SCRIPTS <<<"${INTEROP_SCRIPTS:-openid-client oauth4webapi oauth4webapi-agents mcp-sdk mcp-sdk-2026 otplib authzen ssf sinks cli python-client typescript-client generated-clients}"
SCRIPT_TIMEOUT=120
# sinks.mjs holds a minute-long outage and waits for the catch-up.
SINKS_SCRIPT_TIMEOUT=300
# generated-clients.sh generates two clients and compiles one (30 to 50 s), and its Maven runs may wait for another
# build's /tmp/maven.lock.
GENERATED_CLIENTS_SCRIPT_TIMEOUT=300
START_TIMEOUT=240
BUILD_TIMEOUT=900

log() { echo "interop: $*" >&2; }

# A JDK 21+ for cli.mjs, which runs the CLI's jar (deploy/cli/target) as a person would.
# shellcheck source=../../bin/find-jdk.sh
source "$root/bin/find-jdk.sh"

if ! command -v node >/dev/null 2>&1; then
  log "node is not installed (run bin/setup.sh as root, or install Node.js 20+ and npm)"
  exit 1
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if ((node_major < 20)); then
  log "warning: node $(node --version) is older than the 20 the pinned clients need; expect failures"
fi

# ---------------------------------------------------------------- the pinned clients
if [[ ! -f "$here/node_modules/.package-lock.json" || "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]]; then
  log "installing the pinned clients (npm ci in deploy/interop)"
  (cd "$here" && npm ci --no-audit --no-fund)
fi

# ---------------------------------------------------------------- the server
server_pid=""
script_pid=""
data_dir=""
server_log=""
status=0

# N distinct ports nothing listens on: the kernel picks them for a moment, all N held at once (picked one at a time,
# a port just released could come back: the CloudEvents receiver once got the server's own).
free_ports() {
  node -e '
    const net = require("net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
    let left = servers.length;
    for (const s of servers) {
      s.listen(0, "127.0.0.1", () => {
        if (--left === 0) {
          console.log(servers.map((x) => x.address().port).join(" "));
          servers.forEach((x) => x.close());
        }
      });
    }' "$1"
}

stop_server() {
  [[ -z "$server_pid" ]] && return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    log "stopping warden dev (process group $server_pid)"
    kill -TERM -- "-$server_pid" 2>/dev/null || kill -TERM "$server_pid" 2>/dev/null || true
    local i
    for i in $(seq 1 40); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      log "warden dev did not stop in 20 s; killing its process group"
    fi
  fi
  # Whatever is left in the group (normally nothing after a clean shutdown).
  kill -KILL -- "-$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

cleanup() {
  status=$?
  trap - EXIT INT TERM
  if [[ -n "$script_pid" ]]; then
    kill -TERM "$script_pid" 2>/dev/null || true
    wait "$script_pid" 2>/dev/null || true
  fi
  stop_server
  if [[ -n "$server_log" && -f "$server_log" ]]; then
    if ((status != 0)); then
      echo "---------------------------------------------------------------- warden dev log (last 80 lines of $server_log)" >&2
      tail -n 80 "$server_log" >&2 || true
      echo "----------------------------------------------------------------" >&2
    elif [[ "${WARDEN_INTEROP_KEEP:-0}" != 1 ]]; then
      rm -f "$server_log"
    fi
  fi
  if [[ -n "$data_dir" && -d "$data_dir" && "${WARDEN_INTEROP_KEEP:-0}" != 1 ]]; then
    rm -rf "$data_dir"
  fi
  exit "$status"
}

# Starts `warden dev` on $port with $data_dir and $sinks_config (the log appended to $server_log), and waits until it
# answers; sets $url.
start_server() {
  # cli.mjs runs about 40 commands a minute, each a process of its own that renews its 5-second access token
  # when it is half spent: the token endpoint's 20 a minute per IP is raised to 120 for this server only.
  WARDEN_OAUTH_ACCESS__TOKEN__TTL__SECONDS=5 WARDEN_RATE__LIMIT_ENDPOINTS_REGISTRATION_LIMIT=20 \
    WARDEN_RATE__LIMIT_ENDPOINTS_SIGN__UP_LIMIT=20 WARDEN_RATE__LIMIT_ENDPOINTS_OAUTH__TOKEN_LIMIT=120 \
    WARDEN_WEBHOOKS_ALLOW__PRIVATE__TARGETS=true \
    setsid ./warden dev --port "$port" --data-dir "$data_dir" --config "$sinks_config" >>"$server_log" 2>&1 \
    </dev/null &
  server_pid=$!

  local deadline=$((SECONDS + START_TIMEOUT)) building=0
  url=""
  while :; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      log "warden dev exited before it was ready"
      exit 1
    fi
    url="$(sed -n 's/^  URL: *//p' "$server_log" | head -n 1 | tr -d '[:space:]')"
    if [[ -n "$url" ]] && curl -fsS -o /dev/null --max-time 2 "$url/observe/health" 2>/dev/null; then
      break
    fi
    if ((building == 0)) && grep -q '^warden: building' "$server_log"; then
      building=1
      deadline=$((deadline + BUILD_TIMEOUT))
      log "./warden is building the launcher first (sources changed); waiting up to $((BUILD_TIMEOUT / 60)) more minutes"
    fi
    if ((SECONDS >= deadline)); then
      log "warden dev was not ready (health and the URL: line) within the time allowed"
      exit 1
    fi
    sleep 1
  done
}

# A script that restarts the server in the middle of what it tests (sinks.mjs: every role at once, during an outage)
# sends this runner SIGUSR1 ($INTEROP_RUNNER_PID) and waits until $INTEROP_RESTARTS_FILE holds a larger count: the
# server is stopped as an operator stops it (TERM, then 20 s) and started again on the same port, data and settings.
restart_requested=0
restarts=0
restart_server() {
  log "restarting warden dev (asked by the script)"
  stop_server
  start_server
  restarts=$((restarts + 1))
  echo "$restarts" >"$INTEROP_RESTARTS_FILE"
  log "warden dev is ready again at $url (restart $restarts)"
}

if [[ -n "${WARDEN_URL:-}" ]]; then
  WARDEN_URL="${WARDEN_URL%/}"
  log "using the running server at $WARDEN_URL"
else
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # The server's port and the three sink receivers' (below).
  read -r port INTEROP_HEC_PORT INTEROP_CE_PORT INTEROP_OTLP_PORT < <(free_ports 4)
  # Running as root, the embedded PostgreSQL runs as 'nobody': its directory must be world-traversable.
  data_dir="$(mktemp -d /var/tmp/warden-interop.XXXXXX)"
  chmod 755 "$data_dir"
  server_log="$(mktemp /tmp/warden-interop-server.XXXXXX)"
  export INTEROP_RUNNER_PID=$$ INTEROP_RESTARTS_FILE="$data_dir/restarts"
  echo 0 >"$INTEROP_RESTARTS_FILE"
  trap 'restart_requested=1' USR1
  log "starting warden dev on port $port (data $data_dir, log $server_log, access tokens live 5 s)"
  # 5-second access tokens, so that mcp-sdk.mjs sees one expire. A run registers 4 clients and signs up 5 users from
  # one IP: with /mcp/register open, the registration cap is 1 a minute (docs/oauth.md), and sign-up's is 5 a minute,
  # which would add minutes of 429 waits; both are raised for this server only.
  # The audit sinks of sinks.mjs, each at a port its receiver will listen on (refused until then: the sinks retry,
  # at most 2 s apart, and deliver the backlog once it listens).
  export INTEROP_HEC_PORT INTEROP_CE_PORT INTEROP_OTLP_PORT
  sinks_config="$data_dir/interop-sinks.yaml"
  cat >"$sinks_config" <<YAML
warden:
  sinks:
    audit:
      - type: splunk-hec
        url: http://127.0.0.1:$INTEROP_HEC_PORT
        secret: interop-hec-token
        options: {name: interop-hec, retry-ceiling-ms: 2000}
      - type: cloudevents
        url: http://127.0.0.1:$INTEROP_CE_PORT/events
        secret: interop-cloudevents-hmac-key
        options: {name: interop-cloudevents, retry-ceiling-ms: 2000}
      - type: otlp-logs
        url: http://127.0.0.1:$INTEROP_OTLP_PORT
        options: {name: interop-otlp, retry-ceiling-ms: 2000, request-timeout-ms: 10000}
YAML
  start_server
  WARDEN_URL="$url"
  log "warden dev is ready at $WARDEN_URL"
fi
export WARDEN_URL

# ---------------------------------------------------------------- the client scripts
passed=0 failed=0 failures=()
for script in "${SCRIPTS[@]}"; do
  # A script is a node module (X.mjs) or, for a client library of another language, a shell driver (X.sh).
  runner=(node "$here/$script.mjs")
  [[ -f "$here/$script.mjs" ]] || runner=(bash "$here/$script.sh")
  echo "# $script (${runner[1]} against $WARDEN_URL)"
  rc=0
  # In the background and waited for, so that Ctrl-C or a TERM reaches the traps (and stops the server) at once.
  limit="$SCRIPT_TIMEOUT"
  [[ "$script" == sinks ]] && limit="$SINKS_SCRIPT_TIMEOUT"
  [[ "$script" == generated-clients ]] && limit="$GENERATED_CLIENTS_SCRIPT_TIMEOUT"
  timeout "$limit" "${runner[@]}" &
  script_pid=$!
  # A restart request interrupts the wait: restart, then wait on.
  while :; do
    rc=0
    wait "$script_pid" || rc=$?
    if ((restart_requested)); then
      restart_requested=0
      restart_server
      continue
    fi
    break
  done
  script_pid=""
  if ((rc == 0)); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    if ((rc == 124)); then
      failures+=("$script (timed out after $limit s)")
    else
      failures+=("$script (exit $rc)")
    fi
  fi
done

if ((failed > 0)); then
  log "failed: ${failures[*]}"
fi
echo "interop: $passed passed, $failed failed"
# With a server started here, the EXIT trap stops it (and prints its log on failure).
exit $((failed > 0 ? 1 : 0))
