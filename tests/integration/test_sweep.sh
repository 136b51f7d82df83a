#!/usr/bin/env bash
# scaler simulate --sweep a person can read: plain column names with a legend, --csv and
# --json with the same rows, an SVG plot, a key left at its default swept (and a typo of
# one refused with its "did you mean"), and --fail-exit: exit 3 when a row's expectations
# failed, 0 when every one held.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

bin="$ROOT/$BUILD/bin/scaler"
cd "$ROOT"
sw() { # NAME ARGS...: stdout NAME.out, stderr NAME.err, exit status NAME.rc
    local name=$1 rc=0
    shift
    timeout 120 "$bin" simulate "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
    echo "$rc" >"$TMP/$name.rc"
}
rc_of() { cat "$TMP/$1.rc"; }

# flapping.json's group is flappy; demand_target_pct is not in it (default 70)
sw table scenarios/flapping.json --sweep demand_target_pct=50:90:20
check "table: exit 0 (got $(rc_of table))" [ "$(rc_of table)" = 0 ]
check "table: plain column names" \
    grep -qE '^demand_target_pct +group +inst-hours +under% +over% +t-under% +t-over% +unstable% +failed% +p99-ms +expect$' "$TMP/table.out"
check "table: a row per value" [ "$(grep -cE '^(50|70|90) +flappy ' "$TMP/table.out")" = 3 ]
check "table: a legend naming each column" \
    bash -c "grep -qE '^  under% +under-provisioning accuracy \\(theta_U\\)' '$TMP/table.out' && grep -qE '^  unstable% +instability' '$TMP/table.out' && grep -qE '^  inst-hours +cost' '$TMP/table.out'"
check "table: says the key was at its default" \
    grep -q '^demand_target_pct is not in the scenario: the sweep sets it over its default$' "$TMP/table.out"

# the default key acts: another demand basis changes the figures
sw json scenarios/flapping.json --sweep demand_target_pct=50:90:20 --json
check "--json: exit 0 (got $(rc_of json))" [ "$(rc_of json)" = 0 ]
got=$(python3 - "$TMP/json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rows"]
print(d["param"], d["defaulted"], len(r), [x["value"] for x in r] == [50, 70, 90],
      len({x["over_pct"] for x in r}) > 1, "under_pct" in d["columns"], r[0]["expect"])
PY
)
check "--json: rows, their values, the default swept acts, the legend ($got)" \
    [ "$got" = "demand_target_pct True 3 True True True FAIL" ]

sw csv scenarios/flapping.json --sweep demand_target_pct=50:90:20 --csv
check "--csv: the header" \
    [ "$(head -1 "$TMP/csv.out")" = "value,group,instance_hours,under_pct,over_pct,time_under_pct,time_over_pct,unstable_pct,failed_pct,p99_ms,expect" ]
same=$(python3 - "$TMP/csv.out" "$TMP/json.out" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
js = json.load(open(sys.argv[2]))["rows"]
ok = len(rows) == len(js) == 3 and all(
    abs(float(a["instance_hours"]) - b["instance_hours"]) < 1e-6 and a["group"] == b["group"]
    and abs(float(a["under_pct"]) - b["under_pct"]) < 1e-6 for a, b in zip(rows, js))
print(int(ok))
PY
)
check "--csv: the same rows as --json" [ "$same" = 1 ]

sw svg scenarios/flapping.json --sweep demand_target_pct=50:90:20 --svg "$TMP/sweep.svg"
check "--svg: a standalone SVG with a line per figure" \
    bash -c "head -1 '$TMP/sweep.svg' | grep -q '<?xml' && grep -q '<svg' '$TMP/sweep.svg' && grep -q 'under%' '$TMP/sweep.svg' && grep -q 'inst-hours' '$TMP/sweep.svg' && grep -q 'demand_target_pct' '$TMP/sweep.svg'"

# a typo of a key is not swept: the reader refuses it with its did-you-mean
sw typo scenarios/flapping.json --sweep groups.flappy.default_cooldwn=60:60:1
check "a typo of a key: exit 2 and did you mean (got $(rc_of typo))" \
    bash -c "[ $(rc_of typo) = 2 ] && grep -q 'default_cooldwn: unknown key (did you mean \"default_cooldown\"?)' '$TMP/typo.err'"

# --fail-exit
sw failexit scenarios/flapping.json --sweep alarms.cold.evaluation_periods=1:2:1 --fail-exit
check "--fail-exit: exit 3 when a row failed (got $(rc_of failexit))" [ "$(rc_of failexit)" = 3 ]
check "--fail-exit: says why on stderr" grep -q -- "--fail-exit: a row's expectations failed" "$TMP/failexit.err"
sw nofail scenarios/flapping.json --sweep alarms.cold.evaluation_periods=1:2:1
check "without --fail-exit: exit 0 (got $(rc_of nofail))" [ "$(rc_of nofail)" = 0 ]
sw passing scenarios/failover.json --sweep groups.svc.default_cooldown=60:300:240 --fail-exit
check "--fail-exit with every row ok: exit 0 (got $(rc_of passing))" [ "$(rc_of passing)" = 0 ]
sw usage scenarios/flapping.json --csv
check "--csv without --sweep: usage error" [ "$(rc_of usage)" = 2 ]
finish
