#!/usr/bin/env bash
# loadgen scenario plays a group's timed parts through the emulator's Auto Scaling API
# (docs/loadgen.md step 5b, loadgen/scn_asg.c): lifecycle-hook handlers
# (CompleteLifecycleAction), scheduled actions (PutScheduledUpdateGroupAction, the
# recurrence on the scenario's clock through emulator --clock-start) and the instance
# refresh at its time (StartInstanceRefresh). Each scenario runs through its own emulator;
# its expectations must hold (exit 0) and InService must be within one instance of the
# simulator's prediction for at least 90 % of the time (the runner's bar).
# SCALE (default 120) is the time scale; the 48-hour scheduled-actions scenario runs at
# SCALE_LONG (default 600). TAP lines; KEEP_TMP=1 keeps $TMP.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
export TMPDIR=$TMP # loadgen's own emulator puts its folder under it

need python3 python3 || finish
SCALE=${SCALE:-120}
SCALE_LONG=${SCALE_LONG:-600}

play() { # name scale
    local name=$1 scale=$2 rc=0
    timeout 900 "$LG" scenario "$ROOT/scenarios/$name.json" --time-scale "$scale" --quiet \
        --json "$TMP/$name.json" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
    if [ "$rc" = 0 ]; then ok "$name x$scale: exit 0 (every expectation holds)"; else
        notok "$name x$scale: exit 0 (every expectation holds), got $rc"
        tail -n 20 "$TMP/$name.out" "$TMP/$name.err" | sed 's/^/#   /'
    fi
    python3 - "$TMP/$name.json" <<'PY' || notok "$name: InService within one instance of the prediction >= 90 % of the time"
import json, sys
p = json.load(open(sys.argv[1])).get("predicted", {})
print("# predicted:", p)
sys.exit(0 if p.get("over_one_instance_pct", 100) <= 10 else 1)
PY
}

play lifecycle-hooks "$SCALE"
check "lifecycle-hooks: no warning from CompleteLifecycleAction" \
    sh -c "! grep -q 'CompleteLifecycleAction' '$TMP/lifecycle-hooks.err'"
play instance-refresh "$SCALE"
check "instance-refresh: the refresh started (no warning)" \
    sh -c "! grep -q 'instance_refresh' '$TMP/instance-refresh.err'"
check "instance-refresh: terminations in response to an instance refresh" \
    grep -q "instance refresh" "$TMP/instance-refresh.json"
play scheduled-actions "$SCALE_LONG"
check "scheduled-actions: the clock starts at the scenario's start (no warning)" \
    sh -c "! grep -q 'scheduled recurrences' '$TMP/scheduled-actions.err'"
finish
