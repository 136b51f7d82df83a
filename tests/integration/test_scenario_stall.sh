#!/usr/bin/env bash
# Host stalls on a time-scaled run (docs/loadgen.md, "Host stalls"; scaler/stall.h). The
# closed-burst scenario (tests/integration/data/closed_bursts_fast.json, 1 emulated hour, 6
# real seconds at x600) against an emulator this test starts, with one more expectation
# that cannot hold (3 InService by 50 minutes; the group's max is 2). Mid-run the test
# stops the emulator's process group with SIGSTOP for 300 real ms (180 emulated s) and
# resumes it: the run must report a stall measured by the emulator's loop, at least 200
# real ms long, in a window between the emulator's clock read before the stop and after
# the resume, in the terminal, --json and the report alike; the failed expectation gets
# the note that the host may be the cause, and the exit status stays 3. Then a run left
# alone reports its stalls the same way (how many a loaded host makes is not asserted:
# only that every output says the one figure).
# TAP lines; KEEP_TMP=1 keeps $TMP.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
export TMPDIR=$TMP

need python3 python3 || finish
need curl curl || finish
python3 - "$HERE/data/closed_bursts_fast.json" "$TMP/scn.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["expect"].append({"name": "three instances by 50 minutes (the group's max is 2: fails)",
                    "by": "50m", "group": "g", "in_service": {"min": 3}})
json.dump(d, open(sys.argv[2], "w"))
PY

TS=$(ts 600)
start_emu emu --time-scale "$TS" --quiet || { notok "the emulator starts"; finish; }
EMU_PID=$LAST
rc=0
timeout 120 "$LG" scenario "$TMP/scn.json" --endpoint "$EP" --quiet --json "$TMP/run.json" \
    --report "$TMP/run.html" >"$TMP/run.out" 2>"$TMP/run.err" &
LGPID=$!
# wait until the load runs (the group's first instance InService, about 00:02 emulated),
# then stop the emulator's process group (this test started it: pid = pgid) for 300 ms at
# x600: 180 emulated s, past the 60 s that mark a failure as maybe the host's; at a smaller
# scale (ASAN=1) longer, so that the emulated time lost stays the same
STOP_S=$(awk -v ts="$TS" 'BEGIN { printf "%.3f", 0.3 * 600 / ts }')
inservice() {
    curl -s "$EP/_scalelab/overview" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = sum(1 for w in d.get("worlds", []) for g in w.get("groups", []) for i in g.get("instances", [])
        if i.get("lifecycle_state") == "InService")
sys.exit(0 if n >= 1 else 1)'
}
wait_for 60 inservice || notok "an instance is InService within 60 s"
sleep 1
# the emulator's clock just before the stop and just after the resume, raw (parsed later so
# that nothing slow runs between the reads and the signals): the stall lies between them
curl -s "$EP/_scalelab/clock" >"$TMP/clock.stop"
kill -STOP -- "-$EMU_PID"
sleep "$STOP_S"
kill -CONT -- "-$EMU_PID"
curl -s "$EP/_scalelab/clock" >"$TMP/clock.cont"
wait "$LGPID" || rc=$?
check "the run exits 3 (the impossible expectation fails; a stall does not change it)" test "$rc" = 3
[ "$rc" = 3 ] || tail -n 20 "$TMP/run.out" "$TMP/run.err" | sed 's/^/#   /'

python3 - "$TMP/run.json" "$TMP/clock.stop" "$TMP/clock.cont" "$TS" >"$TMP/verdict.out" 2>&1 <<'PY' || true
import json, sys
run = json.load(open(sys.argv[1]))
h = run.get("host_stalls", {})
t_stop, t_cont = [(json.load(open(f))["now_ms"] - h.get("origin_epoch_ms", 0)) / 1000.0
                  for f in sys.argv[2:4]]
ts = float(sys.argv[4])  # 200 real ms are 0.2 x ts emulated s
out = []
out.append(("--json has host_stalls with the emulator's loop measured",
            "emulator" in h.get("sources", {}), str(h)[:400]))
out.append(("at least one stall, seen by the emulator's loop",
            h.get("count", 0) >= 1 and h.get("sources", {}).get("emulator", 0) >= 1, str(h)[:400]))
out.append(("the longest is >= 200 real ms (the 300 ms stop) = emulated s x600",
            h.get("longest_real_ms", 0) >= 200
            and abs(h.get("longest_emulated_s", 0) - h["longest_real_ms"] * h["time_scale"] / 1000) < 0.01,
            str(h)[:400]))
cover = [w for w in h.get("windows", [])
         if w["from_s"] <= t_cont and w["to_s"] >= t_stop and w["lost_emulated_s"] >= 0.2 * ts]
out.append(("a window between the clock read before the stop (emulated %.0f s) and after the "
            "resume (%.0f s) lost >= 200 real ms" % (t_stop, t_cont), len(cover) >= 1,
            str(h.get("windows"))[:400]))
out.append(("time lost >= 200 real ms in emulated s", h.get("lost_emulated_s", 0) >= 0.2 * ts, str(h)[:200]))
out.append(("the failed expectation is marked as maybe the host's", h.get("failures_marked", 0) >= 1,
            str(h.get("failures_marked"))))
for what, good, detail in out:
    print(("ok" if good else "not ok") + " - " + what + ": " + detail)
PY
while IFS= read -r line; do
    case "$line" in
    "ok - "*) ok "${line#ok - }" ;;
    "not ok - "*) notok "${line#not ok - }" ;;
    *) echo "# $line" ;;
    esac
done <"$TMP/verdict.out"
grep -q "^ok - \|^not ok - " "$TMP/verdict.out" || notok "the verdicts were computed"

# the emulator says it itself (docs/admin-api.md): its loop's stalls since its start
curl -s "$EP/_scalelab/health" >"$TMP/health.json"
check "GET /_scalelab/health \"loop\" lists a stall of >= 200 real ms" python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))["loop"]
assert l["stalls"] >= 1 and l["longest_ms"] >= 200 and l["stall_threshold_ms"] > 0
assert any(x["late_ms"] >= 200 for x in l["recent"]) or l["stalls"] > 64
' "$TMP/health.json"
check "the terminal says it: host: N stalls, longest ..." grep -q "^host: [0-9]* stalls\? (.*longest" "$TMP/run.out"
check "the terminal's note beside the failure" \
    grep -q "^  note: \$.expect\[2\]: the host stalled for .* rerun at a lower --time-scale or on a quieter machine" "$TMP/run.out"
check "stderr's failure has the note too" grep -q "note: \$.expect\[2\]: the host stalled" "$TMP/run.err"
# one figure, one source: the report's host row is the terminal's line
python3 - "$TMP/run.out" "$TMP/run.html" >"$TMP/same.out" 2>&1 <<'PY' && ok "the report's host row is the terminal's line" || { notok "the report's host row is the terminal's line"; sed 's/^/#   /' "$TMP/same.out"; }
import html, re, sys
line = [l.rstrip("\n") for l in open(sys.argv[1]) if l.startswith("host: ")]
m = re.search(r'<td id="host-stalls">([^<]*)</td>', open(sys.argv[2]).read())
print(line, m and html.unescape(m.group(1)))
sys.exit(0 if line and m and html.unescape(m.group(1)) == line[0] else 1)
PY
check "the report marks the windows on the timeline" grep -q "host stall" "$TMP/run.html"
check "the report's failed expectation carries the note" grep -q "note: the host stalled for" "$TMP/run.html"

# left alone: every output says the same figure (a loaded host may still stall it)
rc=0
timeout 120 "$LG" scenario "$HERE/data/closed_bursts_fast.json" --time-scale "$TS" --quiet \
    --json "$TMP/quiet.json" --report "$TMP/quiet.html" >"$TMP/quiet.out" 2>"$TMP/quiet.err" || rc=$?
check "the run left alone exits 0 or 3" test "$rc" = 0 -o "$rc" = 3
python3 - "$TMP/quiet.json" "$TMP/quiet.out" "$TMP/quiet.html" >"$TMP/quiet.verdict" 2>&1 <<'PY' && ok "left alone: --json, the terminal and the report say the same count" || notok "left alone: --json, the terminal and the report say the same count"
import html, json, re, sys
h = json.load(open(sys.argv[1]))["host_stalls"]
line = [l.rstrip("\n") for l in open(sys.argv[2]) if l.startswith("host: ")][0]
m = re.search(r'<td id="host-stalls">([^<]*)</td>', open(sys.argv[3]).read())
print("# left alone: %d stall(s), longest %.1f real ms, %.1f emulated s lost" %
      (h["count"], h["longest_real_ms"], h["lost_emulated_s"]))
said = 0 if line.startswith("host: no stall") else int(line.split()[1])
sys.exit(0 if said == h["count"] and m and html.unescape(m.group(1)) == line else 1)
PY
sed 's/^/#   /' "$TMP/quiet.verdict"
finish
