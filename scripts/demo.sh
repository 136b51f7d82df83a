#!/usr/bin/env bash
# make demo: the seed tutorial (CPU > 80 % for 600 s -> +1, CPU < 40 % -> -1, cooldown 300,
# min 1, max 10, TCP health check 5/3/2/2, ab bursts of 4,000 requests at concurrency 200
# with 6-second gaps, 30 hours, one instance killed) run through the scaler library in
# virtual time, ending with the report's path.
#
# The same scenario played on the embedded emulator with real processes (`loadgen
# scenario`) is not built yet; `loadgen scenario --dry-run` shows the AWS calls it will make.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=$BUILD/demo
mkdir -p "$out"
report=$out/seed-tutorial.html

echo "== the AWS calls this scenario makes (loadgen scenario --dry-run)"
"$BUILD/bin/loadgen" scenario scenarios/seed-tutorial.json --dry-run | head -n 20
echo "   ..."
echo
echo "== 30 simulated hours of the seed tutorial (scaler simulate)"
status=0
"$BUILD/bin/scaler" simulate scenarios/seed-tutorial.json --report "$report" || status=$?
echo
echo "report: $report"
exit "$status"
