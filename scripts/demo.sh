#!/usr/bin/env bash
# make demo: the seed tutorial's infrastructure played for real on an emulator of its own
# (scenarios/demo.json, 2 emulated hours at --time-scale 60: about two minutes): load
# rises, the high-CPU alarm fires, the group grows, an instance is killed and replaced,
# load falls, the group shrinks. loadgen prints a live line per emulated minute, checks
# the scenario's expectations, compares the observed capacity with the simulator's
# prediction for the same file, and ends by naming the report.
#   scripts/demo.sh [extra loadgen scenario options, e.g. --json FILE]
# Exit status: loadgen scenario's (0 every expectation holds).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
report=$BUILD/demo-report.html

# build what is missing (make demo has done both already)
if [ ! -x "$BUILD/bin/loadgen" ] || [ ! -x "$BUILD/bin/emulator" ]; then
    scripts/deps.sh --build
    make --no-print-directory BUILD="$BUILD" "$BUILD/bin/loadgen" "$BUILD/bin/emulator" \
        $([ -f emulator/instance/main.c ] && echo "$BUILD/bin/emulator-instance")
fi
mkdir -p "$BUILD"
exec "$BUILD/bin/loadgen" scenario scenarios/demo.json --time-scale 60 --report "$report" "$@"
