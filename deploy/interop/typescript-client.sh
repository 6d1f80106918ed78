#!/usr/bin/env bash
# The TypeScript client library (deploy/clients/typescript, npm package @warden/client) against a running Warden, as a user
# installs it: builds it (openapi-typescript regenerates its types from the OpenAPI document, then tsc, strict: a
# contract change that breaks the client fails here), packs it with npm pack, installs the tarball into a new
# temporary project, type-checks a consumer against the installed types (test/consumer.ts), and runs the tests
# (node --test on deploy/clients/typescript/test/*.test.mjs, copied into that project, so they import the installed
# package and never the sources).
#   WARDEN_URL=http://localhost:18080 deploy/interop/typescript-client.sh
# The server must allow private webhook targets (WARDEN_WEBHOOKS_ALLOW__PRIVATE__TARGETS=true, as run.sh starts it).
# Runs `npm ci` in deploy/clients/typescript when node_modules is missing or older than package-lock.json.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pkg="$root/deploy/clients/typescript"
started=$SECONDS

log() { echo "typescript-client: [$((SECONDS - started)) s] $*" >&2; }

if [[ -z "${WARDEN_URL:-}" ]]; then
  log "WARDEN_URL is not set (a running warden dev, e.g. WARDEN_URL=http://localhost:18080)"
  exit 2
fi
export WARDEN_URL="${WARDEN_URL%/}"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  log "node and npm are needed (Node.js 20 or newer; bin/setup.sh installs them)"
  exit 1
fi
if (($(node -p 'process.versions.node.split(".")[0]') < 20)); then
  log "node $(node --version) is older than 20, which the client needs"
  exit 1
fi

if [[ ! -f "$pkg/node_modules/.package-lock.json" || "$pkg/package-lock.json" -nt "$pkg/node_modules/.package-lock.json" ]]; then
  log "installing the pinned build tools (npm ci in deploy/clients/typescript)"
  (cd "$pkg" && npm ci --no-audit --no-fund)
fi

log "building: openapi-typescript from api/rest/src/main/resources/openapi/openapi.json, then tsc (npm run build)"
(cd "$pkg" && npm run --silent build)

work="$(mktemp -d "${TMPDIR:-/tmp}/warden-ts-client.XXXXXX")"
trap 'rm -rf "$work"' EXIT
log "packing the package (npm pack) into $work"
(cd "$pkg" && npm pack --ignore-scripts --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/*.tgz)"
log "$(basename "$tarball"): $(tar -tzf "$tarball" | wc -l) files"

project="$work/project"
mkdir -p "$project/test"
cat >"$project/package.json" <<'JSON'
{ "name": "warden-client-user", "version": "0.0.0", "private": true, "type": "module" }
JSON
log "installing the tarball into a new project ($project)"
(cd "$project" && npm install --no-audit --no-fund --no-package-lock --prefer-offline --loglevel=error "$tarball")

cp "$pkg"/test/*.mjs "$pkg"/test/consumer.ts "$project/test/"
cat >"$project/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "lib": ["ES2022"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "exactOptionalPropertyTypes": true, "noEmit": true,
    "types": ["node"], "typeRoots": ["$pkg/node_modules/@types"]
  },
  "files": ["test/consumer.ts"]
}
JSON
log "type-checking a consumer against the installed types (test/consumer.ts)"
"$pkg/node_modules/.bin/tsc" -p "$project/tsconfig.json"

log "running the tests against $WARDEN_URL (node --test, importing the installed @warden/client)"
rc=0
(cd "$project" && node --test --test-concurrency=1 --test-timeout=60000 --test-force-exit test/*.test.mjs) || rc=$?
log "$( ((rc == 0)) && echo passed || echo FAILED ) in $((SECONDS - started)) s"
exit "$rc"
