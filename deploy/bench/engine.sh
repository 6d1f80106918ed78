#!/usr/bin/env bash
# Benchmarks Warden's permission engine (CompiledPolicy.firstMatch) next to Cedar (cedar-java) and jCasbin on the
# same 104-grant policy, and the cost of conditions (ConditionBench), in one JMH run, and prints p50/p99/mean per
# scenario and the ratios Warden/Cedar and
# Warden/jCasbin computed from that run. See docs/benchmarks.md.
#
#   deploy/bench/engine.sh                 # build the bench jar, run everything (about 3 to 4 minutes on 2 cores)
#   deploy/bench/engine.sh -p scenario=miss  # extra arguments go to JMH as they are
#
# Results: authorizer/target/bench/jmh-result.json (JMH JSON) and authorizer/target/bench/jmh.log.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=../../bin/find-jdk.sh
source bin/find-jdk.sh
command -v python3 >/dev/null || { echo "engine.sh: python3 is needed to compute the ratios" >&2; exit 1; }

echo "== building authorizer/target/benchmarks.jar (JDK: $JAVA_HOME)"
./mvnw -q -pl authorizer -am -Pbench -DskipTests package

out="$root/authorizer/target/bench"
mkdir -p "$out"
rm -f "$out/jmh-result.json"
echo "== running JMH (log: $out/jmh.log)"
java -jar authorizer/target/benchmarks.jar -rf json -rff "$out/jmh-result.json" "$@" 2>&1 | tee "$out/jmh.log"

[[ -s "$out/jmh-result.json" ]] || { echo "engine.sh: JMH wrote no result file" >&2; exit 1; }
if grep -q '<failure>' "$out/jmh.log"; then
  echo "engine.sh: some benchmarks failed; see $out/jmh.log (their rows show n/a)" >&2
fi
echo
python3 deploy/bench/engine-report.py "$out/jmh-result.json" | tee "$out/report.txt"
