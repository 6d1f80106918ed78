#!/usr/bin/env bash
# The console's live feed under load (issue 38): a signed-in user's feed open in headless Chromium while their
# agents' decisions arrive at RATE a second for SECONDS; in the same run, the same load into a naive page (one row
# per event, never removed) as the peer. Prints Long Tasks (count, longest, total), the JavaScript heap (start,
# peak, end) and how long after the last decision its row was on top, for both, and the ratios.
#   deploy/bench/console.sh [JDBC_URL] [RATE] [SECONDS]
# Defaults: the machine's PostgreSQL (database test; a private schema per run), 1000 decisions/s, 30 s.
# Needs Debian's chromium and chromium-driver (bin/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bin/find-jdk.sh
source deploy/bench/lib.sh
url="${1:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
rate="${2:-1000}"
seconds="${3:-30}"
run_java_bench 2g ConsoleFeedBench "$url" "$rate" "$seconds"
