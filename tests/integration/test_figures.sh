#!/usr/bin/env bash
# tests/integration/test_figures.sh: one figure, one source. For several runs of
# `scaler simulate` and of `loadgen scenario` (on its own emulator), the terminal, --json
# and --report print the same values: the requests line (failed %, p50, p99), the
# expectations' verdicts, and above all the predicted-vs-observed figure (the share of time
# InService was more than one instance from the prediction, the largest difference, both
# final capacities); and --junit writes one testcase per expectation with the failure text
# stderr prints, beside --json's observed values and limits as numbers. TAP lines;
# KEEP_TMP=1 keeps the temp dir.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export TMPDIR=$TMP # loadgen's own emulators put their folders under it
cd "$ROOT"
SC="$BUILD/bin/scaler"
LG="$BUILD/bin/loadgen"

# compare.py KIND TERMINAL JSON HTML: prints what differs, exits 1 if anything does
cat > "$TMP/compare.py" <<'EOF'
import html, json, re, sys
kind, term, js, page = sys.argv[1], open(sys.argv[2]).read(), json.load(open(sys.argv[3])), open(sys.argv[4]).read()
bad = []
def same(what, a, b, tol):
    if a is None or b is None or abs(a - b) > tol:
        bad.append(f"{what}: {a} vs {b}")
m = re.search(r"^requests: (\d+) completed, (\d+) failed \(([\d.]+)%\), latency p50 ([\d.]+) ms, p99 ([\d.]+) ms$", term, re.M)
r = re.search(r'id="requests">(\d+) completed, (\d+) failed \(([\d.]+)%\), latency p50 ([\d.]+) ms, p99 ([\d.]+) ms<', page)
if not m or not r:
    bad.append(f"requests line: terminal {bool(m)}, report {bool(r)}")
else:
    s = js["summary"]
    for i, (k, tol) in enumerate([("completed", 0.5), ("failed", 0.5), ("failed_pct", 0.0005), ("p50_ms", 0.05), ("p99_ms", 0.05)]):
        same(f"{k} terminal/json", float(m.group(i + 1)), s[k], tol)
        same(f"{k} report/terminal", float(r.group(i + 1)), float(m.group(i + 1)), 0)
# the verdicts: terminal "ok  /FAIL $.expect[i]", json expectations[i].ok, report rows
tv = [(p, v.strip() == "ok") for v, p in re.findall(r"^  (ok  |FAIL) (\$\.expect\[\d+\])", term, re.M)]
jv = [(e["path"], e["ok"]) for e in js["expectations"]]
if tv != jv:
    bad.append(f"verdicts terminal {tv} vs json {jv}")
held = len([x for x in jv if x[1]])
if jv and f"{held} of {len(jv)}" not in html.unescape(page):
    bad.append(f"report headline lacks '{held} of {len(jv)}'")
if kind == "loadgen":
    m = re.search(r"^predicted \(scaler simulate, (\w+) mode\): final InService (\d+), observed (\d+); capacity differs by more than one instance ([\d.]+)% of the time .*differs at all ([\d.]+)%, largest difference (\d+)$", term, re.M)
    p = js.get("predicted")
    f = re.search(r'id="compare-figure">([\d.]+) %<', page)
    fin = re.search(r"final capacity: predicted / observed</td><td>(\d+) / (\d+)<", page)
    big = re.search(r"largest difference \(instances\)</td><td>([\d.]+)<", page)
    if not (m and p and f and fin and big):
        bad.append(f"predicted figure: terminal {bool(m)}, json {bool(p)}, report {bool(f)}")
    else:
        same("over one instance terminal/json", float(m.group(4)), p["over_one_instance_pct"], 0.05)
        same("over one instance report/json", float(f.group(1)), p["over_one_instance_pct"], 0.005)
        same("differs at all terminal/json", float(m.group(5)), p["differ_pct"], 0.05)
        same("largest difference terminal/json/report", float(m.group(6)), p["max_abs"], 0)
        same("largest difference report/json", float(big.group(1)), p["max_abs"], 0.005)
        same("final predicted terminal/report", float(m.group(2)), float(fin.group(1)), 0)
        same("final observed terminal/report", float(m.group(3)), float(fin.group(2)), 0)
        same("final predicted terminal/json", float(m.group(2)), p["final_in_service"], 0)
        print(f"over one instance {p['over_one_instance_pct']:.4f}% (terminal {m.group(4)}, report {f.group(1)}), largest {p['max_abs']:g}")
if bad:
    print("; ".join(bad))
    sys.exit(1)
EOF

# junit.py XML STDERR JSON: one testcase per expectation (as --json lists them), a failure
# exactly for the failed ones, its text the stderr line; --json's value/min/max numbers
cat > "$TMP/junit.py" <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
root, err, js = ET.parse(sys.argv[1]).getroot(), open(sys.argv[2]).read().splitlines(), json.load(open(sys.argv[3]))
bad = []
cases = root.findall("./testsuite/testcase")
ex = js["expectations"]
if len(cases) != len(ex):
    bad.append(f"{len(cases)} testcases for {len(ex)} expectations")
suite = root.find("./testsuite")
if int(suite.get("failures")) != sum(not e["ok"] for e in ex):
    bad.append(f"failures={suite.get('failures')}")
lines = [l for l in err if " failed: " in l and "expectation $.expect[" in l]
got = []
for c, e in zip(cases, ex):
    if not c.get("name").startswith(e["path"] + ": " + e["what"]):
        bad.append(f"testcase name {c.get('name')!r}")
    f = c.find("failure")
    if (f is None) != e["ok"]:
        bad.append(f"{e['path']}: failure element {f is not None}, ok {e['ok']}")
    if f is not None:
        got.append(f.text)
        if f.get("message") != f.text:
            bad.append("message differs from the text")
    # the observed figure as a number, equal to the one the text states
    # (to the text's precision)
    nums = re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?", e["observed"])
    tol = 0.5 * 10 ** -len(nums[0].partition(".")[2]) + 1e-9 if nums else 0
    if e["value"] is not None and (not nums or abs(float(nums[0]) - e["value"]) > tol):
        bad.append(f"{e['path']}: value {e['value']} vs observed {e['observed']!r}")
    if "max" not in e and "min" not in e:
        bad.append(f"{e['path']}: no limit")
if got != lines:
    bad.append(f"failure texts {got} vs stderr {lines}")
if bad:
    print("; ".join(bad))
    sys.exit(1)
print(f"{len(cases)} testcases, {len(got)} failed")
EOF

# --- scaler simulate: three runs, one per mode of output each --------------------------
for name in failover step-scaling flapping; do
    "$SC" simulate "scenarios/$name.json" --quiet --report "$TMP/$name.html" \
        --junit "$TMP/$name.xml" > "$TMP/$name.term" 2> "$TMP/$name.err"
    "$SC" simulate "scenarios/$name.json" --json > "$TMP/$name.json" 2> /dev/null
    if python3 "$TMP/compare.py" sim "$TMP/$name.term" "$TMP/$name.json" "$TMP/$name.html" > "$TMP/$name.cmp" 2>&1; then
        ok "scaler simulate $name: terminal, --json and --report print the same figures"
    else
        notok "scaler simulate $name: terminal, --json and --report print the same figures: $(tail -1 "$TMP/$name.cmp")"
    fi
    if python3 "$TMP/junit.py" "$TMP/$name.xml" "$TMP/$name.err" "$TMP/$name.json" > "$TMP/$name.jcmp" 2>&1; then
        ok "scaler simulate $name --junit: a testcase per expectation, failures as stderr says them; --json's numbers ($(tail -1 "$TMP/$name.jcmp"))"
    else
        notok "scaler simulate $name --junit: $(tail -1 "$TMP/$name.jcmp")"
    fi
done

# --- loadgen scenario: runs whose capacity moves, so that the timing of the comparison
# matters (the report compared each sample with the prediction one interval apart) ------
python3 - "$ROOT/scenarios/seed-tutorial.json" "$TMP" <<'EOF'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
s = json.load(open(src))
s.pop("load", None)
s.pop("faults", None)
s["infrastructure"]["launch_configurations"][0]["app"]["boot_s"] = 30
g = s["infrastructure"]["groups"][0]
s["name"], s["duration"] = "boot", "4m"
s["expect"] = [{"name": "one instance InService by 3m", "by": "3m", "group": g["name"],
                "in_service": {"min": 1}},
               {"name": "three instances at 2m (cannot hold)", "at": "2m", "group": g["name"],
                "in_service": {"min": 3}}]
json.dump(s, open(tmp + "/boot.json", "w"), indent=1)
s["name"], s["duration"] = "kill2", "6m"
g["min"] = g["max"] = g["desired"] = 3
s["faults"] = [{"at": "2m", "kill": {"group": g["name"], "count": 2}}]
s["expect"] = [{"name": "three InService by 5m", "by": "5m", "group": g["name"],
                "in_service": {"min": 3}},
               {"name": "never more than three", "throughout": True, "group": g["name"],
                "in_service": {"max": 3}}]
json.dump(s, open(tmp + "/kill2.json", "w"), indent=1)
EOF
for name in boot kill2; do
    rc=0
    "$LG" scenario "$TMP/$name.json" --time-scale 120 --json "$TMP/$name.out.json" \
        --report "$TMP/$name.html" --junit "$TMP/$name.xml" > "$TMP/$name.term" 2> "$TMP/$name.err" || rc=$?
    check "loadgen scenario $name ran (rc $rc)" test "$rc" -eq 0 -o "$rc" -eq 3
    if python3 "$TMP/compare.py" loadgen "$TMP/$name.term" "$TMP/$name.out.json" "$TMP/$name.html" > "$TMP/$name.cmp" 2>&1; then
        ok "loadgen scenario $name: terminal, --json and --report print the same figures ($(tail -1 "$TMP/$name.cmp"))"
    else
        notok "loadgen scenario $name: terminal, --json and --report print the same figures: $(tail -1 "$TMP/$name.cmp")"
        tail -n 20 "$TMP/$name.term" "$TMP/$name.err" | sed 's/^/#   /'
    fi
    if python3 "$TMP/junit.py" "$TMP/$name.xml" "$TMP/$name.err" "$TMP/$name.out.json" > "$TMP/$name.jcmp" 2>&1; then
        ok "loadgen scenario $name --junit: a testcase per expectation, failures as stderr says them ($(tail -1 "$TMP/$name.jcmp"))"
    else
        notok "loadgen scenario $name --junit: $(tail -1 "$TMP/$name.jcmp")"
    fi
done
check "the boot run failed its impossible expectation (exit 3)" grep -q 'expectation \$.expect\[1\] failed' "$TMP/boot.err"

finish
