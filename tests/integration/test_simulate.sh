#!/usr/bin/env bash
# tests/integration/test_simulate.sh: `scaler simulate` end to end: each shipped scenario
# against its golden file byte for byte, exit codes, determinism, bad input (exit 2 with
# the JSON path), usage errors, --sweep and --report.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
bin="$BUILD/bin/scaler"

if [ ! -x "$bin" ]; then
    notok "scaler binary $bin exists"
    exit 1
fi

# every shipped scenario matches its golden file; flapping exits 3 on purpose
for f in scenarios/*.json; do
    name=$(basename "$f" .json)
    want=0
    [ "$name" = flapping ] && want=3
    "$bin" simulate "$f" --seed 1 --json > "$TMP/$name.json" 2> "$TMP/$name.err"
    rc=$?
    check "$name exits $want (got $rc)" test "$rc" -eq "$want"
    if [ -f "scenarios/expected/$name.json" ]; then
        if cmp -s "$TMP/$name.json" "scenarios/expected/$name.json"; then
            ok "$name matches scenarios/expected/$name.json byte for byte"
        else
            notok "$name matches scenarios/expected/$name.json byte for byte"
            diff "$TMP/$name.json" "scenarios/expected/$name.json" | head -20 | sed 's/^/#   /'
        fi
    else
        notok "scenarios/expected/$name.json exists (run make golden)"
    fi
done
check "flapping names the failed expectation on stderr" \
    grep -q 'expectation \$.expect\[0\] failed: no flapping' "$TMP/flapping.err"

# the shipped scenarios follow the published JSON Schema (Debian's python3-jsonschema)
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    notok "python3 imports jsonschema (scripts/deps.sh installs Debian's python3-jsonschema)"
else
    for f in scenarios/*.json bench/year-100.json; do
        if python3 - "$f" <<'PY' 2> "$TMP/schema.err"
import json, sys, jsonschema
schema = json.load(open("docs/scenario.schema.json"))
jsonschema.validate(json.load(open(sys.argv[1])), schema)
PY
        then ok "$f validates against docs/scenario.schema.json"
        else notok "$f validates against docs/scenario.schema.json: $(tail -1 "$TMP/schema.err")"
        fi
    done
fi

# determinism: two runs, same bytes (the DES scenario and a fluid one)
for name in failover seed-tutorial; do
    "$bin" simulate "scenarios/$name.json" --seed 7 --json > "$TMP/a.json" 2>/dev/null
    "$bin" simulate "scenarios/$name.json" --seed 7 --json > "$TMP/b.json" 2>/dev/null
    check "$name: same seed, same --json bytes" cmp -s "$TMP/a.json" "$TMP/b.json"
done
"$bin" simulate scenarios/failover.json --seed 8 --json > "$TMP/c.json" 2>/dev/null
check "failover: another seed, other bytes" bash -c "! cmp -s '$TMP/a.json' '$TMP/c.json'"
"$bin" simulate scenarios/failover.json --mode fluid --json > "$TMP/f.json" 2>/dev/null
check "--mode fluid is honoured" grep -q '"mode":"fluid"' "$TMP/f.json"

# bad input: exit 2 and the JSON path on stderr
bad() { # description, expected stderr text, python edit of the seed scenario
    local d=$1 want=$2 edit=$3
    python3 - "$edit" > "$TMP/bad.json" <<'PY'
import json, sys
s = json.load(open("scenarios/seed-tutorial.json"))
exec(sys.argv[1])
print(json.dumps(s))
PY
    "$bin" simulate "$TMP/bad.json" --quiet > /dev/null 2> "$TMP/bad.err"
    local rc=$?
    if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$TMP/bad.err"; then
        ok "bad input ($d): exit 2, '$want'"
    else
        notok "bad input ($d): exit 2, '$want' (got $rc: $(cat "$TMP/bad.err"))"
    fi
}
bad "unknown key" '$.infrastructure.groups[0].mni: unknown key' \
    's["infrastructure"]["groups"][0]["mni"] = 1'
bad "wrong type" '$.infrastructure.groups[0].max: must be an integer, not a string' \
    's["infrastructure"]["groups"][0]["max"] = "10"'
bad "min > max" '$.infrastructure.groups[0].min: must be <= max (10), is 11' \
    's["infrastructure"]["groups"][0]["min"] = 11'
bad "alarm naming a missing policy" '$.infrastructure.alarms[1].actions[0]: no policy named "nope"' \
    's["infrastructure"]["alarms"][1]["actions"] = ["nope"]'
bad "negative rate" '$.load[1].rate: must be >= 0' \
    's["load"].append({"at": "1h", "until": "2h", "rate": -5})'
bad "library validation (timeout >= interval)" '$.infrastructure.load_balancers[0].health_check: ValidationError' \
    's["infrastructure"]["load_balancers"][0]["health_check"]["timeout"] = 9'
bad "a dimension naming no group" '$.infrastructure.alarms[1].dimensions.AutoScalingGroupName: "autoscleasgg" names no group of the scenario (did you mean "autoscleasg"?)' \
    's["infrastructure"]["alarms"][1]["dimensions"]["AutoScalingGroupName"] = "autoscleasgg"'
bad "an unknown key's did you mean" '$.infrastructure.alarms[0].threshhold: unknown key (did you mean "threshold"?)' \
    's["infrastructure"]["alarms"][0]["threshhold"] = 1'
# every error of a file, each on its own line with the file and the path
python3 - > "$TMP/many.json" <<'PY'
import json
s = json.load(open("scenarios/seed-tutorial.json"))
s["infrastructure"]["groups"][0]["mni"] = 1
s["infrastructure"]["alarms"][0]["threshhold"] = 1
s["infrastructure"]["alarms"][1]["dimensions"]["AutoScalingGroupName"] = "autoscleasgg"
print(json.dumps(s))
PY
"$bin" simulate "$TMP/many.json" --quiet > /dev/null 2> "$TMP/many.err"
rc=$?
check "three errors: exit 2, three lines with file and path (got $rc)" \
    bash -c "[ $rc -eq 2 ] && [ \$(grep -c '^scaler: $TMP/many.json: \\$\\.' '$TMP/many.err') -eq 3 ]"
python3 - > "$TMP/lenient.json" <<'PY'
import json
s = json.load(open("scenarios/seed-tutorial.json"))
s["infrastructure"]["alarms"][1]["dimensions"]["AutoScalingGroupName"] = "autoscleasgg"
print(json.dumps(s))
PY
"$bin" simulate "$TMP/lenient.json" --lenient --quiet > /dev/null 2> "$TMP/lenient.err"
rc=$?
check "--lenient: the dimension is a warning and the run goes on (got $rc)" \
    bash -c "[ $rc -ne 2 ] && grep -q '^scaler: warning: $TMP/lenient.json: .*names no group of the scenario' '$TMP/lenient.err'"
printf '{"duration": "1h",' > "$TMP/trunc.json"
"$bin" simulate "$TMP/trunc.json" > /dev/null 2> "$TMP/trunc.err"
rc=$?
check "malformed JSON exits 2 with line and column (got $rc)" \
    bash -c "[ $rc -eq 2 ] && grep -q 'line 1 column' '$TMP/trunc.err'"
"$bin" simulate "$TMP/missing.json" > /dev/null 2>&1
check "a missing file exits 2" test $? -eq 2

# usage
"$bin" --help > "$TMP/help" 2>&1
check "--help exits 0 on stdout" bash -c "[ $? -eq 0 ] && grep -q 'usage: scaler simulate' '$TMP/help'"
"$bin" --version > "$TMP/ver" 2>&1
check "--version exits 0" bash -c "[ $? -eq 0 ] && grep -q '^scaler ' '$TMP/ver'"
"$bin" simulate > /dev/null 2>&1
check "no file: exit 2" test $? -eq 2
"$bin" simulate scenarios/failover.json --mode quantum > /dev/null 2> "$TMP/u.err"
check "bad --mode: exit 2 and 'try'" bash -c "[ $? -eq 2 ] && grep -q 'try' '$TMP/u.err'"
"$bin" simulate scenarios/failover.json --bogus > /dev/null 2>&1
check "unknown option: exit 2" test $? -eq 2

# --sweep prints a row per value
"$bin" simulate scenarios/flapping.json --sweep alarms.cold.threshold=20:40:10 > "$TMP/sweep" 2>&1
rc=$?
check "--sweep runs every value (exit $rc)" bash -c "[ $rc -eq 0 ] && [ \$(grep -c flappy '$TMP/sweep') -eq 3 ]"
"$bin" simulate scenarios/flapping.json --sweep alarms.nope.threshold=1:2:1 > "$TMP/sweep-bad" 2> "$TMP/sweep-bad.err"
check "--sweep with an unknown path exits 2" test $? -eq 2
check "--sweep with an unknown path names it and prints no table" \
    bash -c "grep -q 'alarms.nope.threshold' '$TMP/sweep-bad.err' && [ ! -s '$TMP/sweep-bad' ]"

# --report writes a self-contained page
"$bin" simulate scenarios/seed-tutorial.json --quiet --report "$TMP/r.html" > /dev/null 2>&1
check "--report writes HTML with SVG" bash -c "grep -q '<svg' '$TMP/r.html' && ! grep -q '<script' '$TMP/r.html'"

finish
