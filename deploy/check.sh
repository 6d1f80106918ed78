#!/usr/bin/env bash
# Validates the deployment files offline, with no Docker, kubectl or cluster: what CI runs before the tests.
#   - docker-compose.yml: the Compose Specification's JSON schema, ${VAR} syntax, references, Warden's rules;
#     then `docker-compose config -q` (Debian's Compose v1: its own parser, interpolation and schema; no daemon)
#   - deploy/k8s: every manifest against the Kubernetes API schema, unknown fields, references, Warden's rules
#   - deploy/observability: the Grafana dashboard's structure; metric names against metric-names.txt;
#     `promtool check rules` and `promtool test rules` for the alert rules
#   - deploy/**/*.sh: bash -n
# The first three run in deploy/check/validate.mjs (pinned npm packages in deploy/check/package-lock.json).
# Needs node, npm, promtool (Debian's prometheus package) and docker-compose: bin/setup.sh installs them.
# Exits 1 on any problem.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s%N)

for tool in node npm promtool docker-compose; do
  command -v "$tool" >/dev/null 2>&1 || { echo "deploy-check: $tool not found; run bin/setup.sh (as root)" >&2; exit 1; }
done
check=deploy/check
if [[ ! -f "$check/node_modules/.package-lock.json" || "$check/package-lock.json" -nt "$check/node_modules/.package-lock.json" ]]; then
  (cd "$check" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

passed=0 failed=0
step() {
  local name="$1"; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "deploy-check: FAILED: $name" >&2; fi
}
shell_syntax() {
  local f bad=0
  while IFS= read -r f; do bash -n "$f" || bad=1; done < <(find deploy -name '*.sh' -not -path '*/node_modules/*' -not -path '*/.build/*' | sort)
  return "$bad"
}
rules=deploy/observability/prometheus
step "compose, k8s, dashboard, metric names" node "$check/validate.mjs"
step "docker-compose config" env WARDEN_BOOTSTRAP_TOKEN=x docker-compose -f docker-compose.yml config -q
step "promtool check rules" promtool check rules "$rules/warden-alerts.yml"
step "promtool test rules" bash -c "cd '$rules' && promtool test rules warden-alerts.test.yml"
step "bash -n deploy/**/*.sh" shell_syntax

echo "deploy-check: took $(( ($(date +%s%N) - start) / 1000000 )) ms"
echo "deploy-check: $passed passed, $failed failed"
((failed == 0))
