#!/usr/bin/env bash
# Tests the harness itself, without Warden: the browser's unit tests; run.sh's three scripts against
# test/mock-warden.mjs (a stand-in that follows the contract in README.md); then the mock with one rule broken at a
# time (MOCK_FAULT), where the script that checks that rule must fail at the step that checks it. Proves the scripts
# drive the pinned libraries correctly and notice what they claim to check; says nothing about Warden.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi

node --test test/browser.test.mjs

mock_pid="" mock_log="$(mktemp)" out="$(mktemp)"
stop_mock() {
  if [[ -n "$mock_pid" ]]; then
    kill "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
    mock_pid=""
  fi
}
trap 'stop_mock; rm -f "$mock_log" "$out"' EXIT

# start_mock [FAULT]: a fresh mock with 5-second access tokens; sets url.
start_mock() {
  stop_mock
  : >"$mock_log"
  MOCK_FAULT="${1:-}" WARDEN_OAUTH_ACCESS__TOKEN__TTL__SECONDS=5 node test/mock-warden.mjs >"$mock_log" 2>&1 &
  mock_pid=$!
  url=""
  for _ in $(seq 1 50); do
    url="$(sed -n 's/^  URL: *//p' "$mock_log" | head -n 1 | tr -d '[:space:]')"
    [[ -n "$url" ]] && return 0
    sleep 0.1
  done
  echo "self-test: the mock did not start" >&2
  cat "$mock_log" >&2
  exit 1
}

start_mock
# oauth4webapi-agents.mjs (token exchange, device grant) is not in the mock: it is checked against Warden only.
WARDEN_URL="$url" INTEROP_SCRIPTS="openid-client oauth4webapi mcp-sdk" ./run.sh

# FAULT SCRIPT STEP: the script must fail, and at STEP (a fixed string of its "not ok - " line).
negative() {
  local fault="$1" script="$2" expected="$3" rc=0
  start_mock "$fault"
  WARDEN_URL="$url" timeout 120 node "$script.mjs" >"$out" 2>&1 || rc=$?
  if ((rc == 0)); then
    echo "self-test: $script passed against MOCK_FAULT=$fault; it should have failed" >&2
    cat "$out" >&2
    exit 1
  fi
  if ! grep -qF "not ok - $expected" "$out"; then
    echo "self-test: $script failed against MOCK_FAULT=$fault, but not at \"$expected\":" >&2
    cat "$out" >&2
    exit 1
  fi
  echo "ok - MOCK_FAULT=$fault: $script fails at \"$expected\""
}
negative no-iss openid-client 'authorization code + PKCE S256 (sign-in, consent)'
negative basic-not-form-decoded openid-client 'authorization code + PKCE S256 (sign-in, consent)'
negative no-rotation openid-client 'refresh_token grant: new access token, rotated refresh token'
negative no-resource-metadata oauth4webapi 'GET /mcp without a token'
negative no-iss oauth4webapi 'authorization code + PKCE S256 with resource'
negative no-family-revocation oauth4webapi 'the NEW refresh token is revoked with its family'
negative token-never-expires mcp-sdk 'callTool after expiry succeeds'
echo "self-test: 7 fault checks passed"
