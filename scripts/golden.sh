#!/usr/bin/env bash
# make golden: rewrites scenarios/expected/NAME.json from `scaler simulate --json --seed 1`
# for every scenarios/NAME.json, for review with `git diff scenarios/expected`.
# The flapping scenario fails its expectations on purpose (exit 3); any other status
# than 0 or 3 stops the script.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
bin="$BUILD/bin/scaler"
[ -x "$bin" ] || { echo "golden: $bin missing; run make" >&2; exit 1; }
mkdir -p scenarios/expected
for f in scenarios/*.json; do
    name=$(basename "$f" .json)
    set +e
    "$bin" simulate "$f" --seed 1 --json > "scenarios/expected/$name.json.tmp" 2>/dev/null
    rc=$?
    set -e
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
        rm -f "scenarios/expected/$name.json.tmp"
        echo "golden: $f exited $rc" >&2
        exit 1
    fi
    mv "scenarios/expected/$name.json.tmp" "scenarios/expected/$name.json"
    echo "golden: scenarios/expected/$name.json (exit $rc)"
done
