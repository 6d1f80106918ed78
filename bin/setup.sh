#!/usr/bin/env bash
# Installs what the tests need beyond the JDK (which bin/find-jdk.sh finds), on Debian bookworm, as root:
# Chromium and ChromeDriver (browser tests), Node.js and npm (deploy/interop's client libraries, deploy/check.sh),
# curl, python3 with Debian's pydantic 1, urllib3 and python-dateutil (deploy/interop's Python clients), and for
# deploy/check.sh promtool (Debian's prometheus package) and docker-compose (Compose v1: checks docker-compose.yml
# with no Docker engine); then the pinned npm packages of deploy/interop, deploy/check and
# deploy/a11y (axe-core, which the browser tests inject into pages) (npm ci). Idempotent: fast when everything is
# there, and apt-get update runs only when a package is missing.
# Not root and something missing: says what to install, exits 1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The oldest Node.js the pinned packages support (openid-client and oauth4webapi: "Node.js v20.x as baseline";
# @hono/node-server, a dependency of @modelcontextprotocol/sdk: engines node >=20).
MIN_NODE_MAJOR=20

log() { echo "setup: $*" >&2; }

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# The Python client library's tests (deploy/clients/python: the standard library only).
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# The Python client that OpenAPI Generator generates (deploy/interop/generated-clients.sh, generator
# python-pydantic-v1) imports pydantic 1, urllib3 and python-dateutil: Debian's own, for Debian's python3.
for package in python3-pydantic python3-urllib3 python3-dateutil; do
  [[ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" == "install ok installed" ]] || missing+=("$package")
done
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)

if ((${#missing[@]})); then
  if [[ "$(id -u)" != 0 ]]; then
    log "missing: ${missing[*]}; install them as root:"
    log "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
    log "  (or run bin/setup.sh as root)"
    exit 1
  fi
  log "installing ${missing[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  # Only promtool is wanted from the prometheus package: keep its maintainer scripts from starting the server.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

node_version="$(node --version)"
if (($(node -p 'Number(process.versions.node.split(".")[0])') < MIN_NODE_MAJOR)); then
  log "warning: node $node_version is older than $MIN_NODE_MAJOR, the minimum of deploy/interop's pinned packages"
  log "  (Debian bookworm's own nodejs is 18); the interoperability checks may fail. Install Node.js $MIN_NODE_MAJOR+."
fi

for dir in deploy/interop deploy/check deploy/a11y; do
  pkg="$here/$dir"
  if [[ ! -f "$pkg/node_modules/.package-lock.json" || "$pkg/package-lock.json" -nt "$pkg/node_modules/.package-lock.json" ]]; then
    log "installing $dir's pinned packages (npm ci)"
    (cd "$pkg" && npm ci --no-audit --no-fund)
  fi
done
