#!/usr/bin/env bash
# tests/integration/test_sim_validity.sh: the simulator's two modes give one answer inside
# fluid's measured validity (docs/scenarios.md, "Modes"): every scenario of the matrix in
# tests/scenarios/validity/ run in --mode des and --mode fluid over the same seeds, with
# issue 12's bar (same verdict, failed % within max(2 points, 25 %), final desired within
# 1); `auto` keeps a scenario that judges a latency tail in DES; forcing fluid on one says
# so on stderr.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
bin="$BUILD/bin/scaler"
dir=tests/scenarios/validity

if [ ! -x "$bin" ]; then
    notok "scaler binary $bin exists"
    exit 1
fi

# the matrix, one line per scenario ("ok NAME: ..." or "MISS NAME: ... [what missed]")
python3 scripts/validity.py "$bin" --quick > "$TMP/matrix.out" 2> "$TMP/matrix.err"
rc=$?
check "scripts/validity.py ran the matrix (rc $rc)" test "$rc" -eq 0
n=0
while read -r verdict name rest; do
    n=$((n + 1))
    if [ "$verdict" = ok ]; then
        ok "des and fluid agree on ${name%:}: $rest"
    else
        notok "des and fluid agree on ${name%:}: $rest"
    fi
done < "$TMP/matrix.out"
check "the matrix has its 11 conditions (got $n)" test "$n" -eq 11
[ -s "$TMP/matrix.err" ] && sed 's/^/#   /' "$TMP/matrix.err" | head -20

# the issue's first case, seed 1, as a user runs it: fluid no longer collapses
"$bin" simulate "$dir/overload-flat.json" --mode fluid --json > "$TMP/of.json" 2> /dev/null
check "overload-flat in fluid mode scales out (final desired >= 4) as DES does" \
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["summary"]["groups"][0]["final_desired"] < 4)' "$TMP/of.json"

# auto: a long run that judges p99 stays in DES; one that does not goes fluid
"$bin" simulate scenarios/step-scaling.json --json 2> "$TMP/ss.err" > "$TMP/ss.json"
check "auto runs step-scaling (5.9 M requests, a p99 expectation) in DES" \
    grep -q '"mode":"des"' "$TMP/ss.json"
"$bin" simulate scenarios/target-tracking.json --json 2> /dev/null > "$TMP/tt.json"
check "auto runs target-tracking (52 M requests, no tail judged) in fluid" \
    grep -q '"mode":"fluid"' "$TMP/tt.json"

# forcing fluid outside its validity warns; DES and in-validity fluid runs do not
"$bin" simulate "$dir/saturating-fixed.json" --mode fluid --quiet > /dev/null 2> "$TMP/w.err"
check "--mode fluid on a p99 expectation warns, naming it" \
    grep -q 'warning: \$.expect\[1\]: judges a latency tail, which fluid mode gets outside its measured validity' "$TMP/w.err"
"$bin" simulate "$dir/saturating-fixed.json" --mode des --quiet > /dev/null 2> "$TMP/w2.err"
check "--mode des on it does not" bash -c "! grep -q 'measured validity' '$TMP/w2.err'"
"$bin" simulate "$dir/queue-limit.json" --mode fluid --quiet > /dev/null 2> "$TMP/w3.err"
check "--mode fluid on queue-limit warns" grep -q 'measured validity' "$TMP/w3.err"
"$bin" simulate "$dir/overload-flat.json" --mode fluid --quiet > /dev/null 2> "$TMP/w4.err"
check "--mode fluid on overload-flat (no tail judged) does not" \
    bash -c "! grep -q 'measured validity' '$TMP/w4.err'"

finish
