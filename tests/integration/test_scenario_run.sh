#!/usr/bin/env bash
# `loadgen scenario FILE` end to end on the emulator: short scenarios (a few emulated
# minutes at --time-scale 120..600) run with exit 0; a failing expectation exits 3 naming
# it; a bad file exits 2; an unreachable --endpoint exits 1; SIGINT mid-run tears the
# infrastructure down (checked through the API of an emulator the test owns) and leaves
# no child process; --json parses and has samples; --report is written; --keep leaves
# the infrastructure; the SigV4 path against an emulator verifying signatures.
# Every emulator here is started by the test (or by loadgen inside the test's TMPDIR)
# and stopped by process group (lib.sh). TAP lines; KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
export TMPDIR=$TMP # loadgen's own emulators put their folders (and args) under it

# check_flag DESC FLAG FILE...: ok if FLAG is 1, else not ok and the files' tails
check_flag() {
    local d=$1 c=$2
    shift 2
    if [ "$c" = 1 ]; then ok "$d"; else
        notok "$d"
        for f in "$@"; do [ -f "$f" ] && { echo "# $f:"; tail -n 25 "$f" | sed 's/^/#   /'; }; done
    fi
}

# Processes still alive whose command line names the test's folder (loadgen's emulators
# and their instances, which inherit TMPDIR in their --port-file path).
leftovers() { ps -eo pid=,args= | grep -F "$TMP/scalelab-emu" | grep -v grep || true; }

# A no-load scenario on the seed tutorial's infrastructure (its load comes with the player).
python3 - "$ROOT/scenarios/seed-tutorial.json" "$TMP" <<'EOF'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
s = json.load(open(src))
s["name"] = "short"
s["duration"] = "4m"
s.pop("load", None)
s.pop("faults", None)
s["infrastructure"]["launch_configurations"][0]["app"]["boot_s"] = 30
s["expect"] = [
    {"name": "one instance InService by 3m", "by": "3m", "group": "autoscleasg",
     "in_service": {"min": 1}},
    {"name": "capacity within 1..10", "throughout": True, "group": "autoscleasg",
     "desired": {"min": 1, "max": 10}}]
json.dump(s, open(tmp + "/short.json", "w"), indent=1)
s["name"] = "failing"
s["expect"].append({"name": "three instances at 2m (cannot hold)", "at": "2m",
                    "group": "autoscleasg", "in_service": {"min": 3}})
json.dump(s, open(tmp + "/failing.json", "w"), indent=1)
s["name"] = "long"
s["duration"] = "2h"
s["expect"] = []
json.dump(s, open(tmp + "/long.json", "w"), indent=1)
s["name"] = "killed"
s["duration"] = "6m"
s["faults"] = [{"at": "2m", "kill": {"group": "autoscleasg", "count": 1}}]
s["expect"] = [{"name": "replaced by 5m", "at": "5m", "group": "autoscleasg",
                "in_service": {"min": 1}}]
json.dump(s, open(tmp + "/killed.json", "w"), indent=1)
EOF

# --- end to end on its own emulator: exit 0, --json, --report, live lines ---------------
rc=0
"$LG" scenario "$TMP/short.json" --time-scale 120 --json "$TMP/short.out.json" \
    --report "$TMP/short.html" >"$TMP/short.out" 2>"$TMP/short.err" || rc=$?
check_flag "a short scenario runs end to end on its own emulator with exit 0 (rc $rc)" \
    "$([ "$rc" = 0 ] && echo 1)" "$TMP/short.out" "$TMP/short.err"
check_flag "a live line per emulated minute (4), with instances and alarm states" \
    "$([ "$(grep -cE '^00:0[1-4]:00 ' "$TMP/short.out")" = 4 ] && grep -q 'des/ins/pen' "$TMP/short.out" && echo 1)" \
    "$TMP/short.out"
check_flag "the terminal names the predicted-vs-observed figure and both final capacities" \
    "$(grep -qE '^predicted \(scaler simulate, [a-z]+ mode\): final InService [0-9]+, observed [0-9]+; capacity differs by more than one instance' "$TMP/short.out" && echo 1)" \
    "$TMP/short.out"
check_flag "--json parses as scaler simulate's format, with samples and the runner's CPU per period" \
    "$(python3 - "$TMP/short.out.json" <<'EOF' && echo 1
import json, sys
d = json.load(open(sys.argv[1]))
s = [e for e in d["timeline"] if e["type"] == "sample"]
assert d["mode"] == "emulator" and d["groups"] == ["autoscleasg"], d["groups"]
assert len(s) == 4 and s[0]["t_s"] == 60 and s[-1]["t_s"] == 240, [e["t_s"] for e in s]
assert all(e["groups"][0]["in_service"] >= 1 for e in s[1:])
assert d["exit"] == 0 and all(x["ok"] for x in d["expectations"])
assert d["runner"]["periods"] == 4 and d["runner"]["cpu_ms_per_period"] > 0
assert "over_one_instance_pct" in d["predicted"]
assert d["summary"]["groups"][0]["final_in_service"] >= 1
EOF
)" "$TMP/short.out.json"
check_flag "--report is written, with the predicted series and the expectations" \
    "$(grep -q 'predicted (scaler simulate' "$TMP/short.html" && grep -q 'compare-figure' "$TMP/short.html" && echo 1)" \
    "$TMP/short.out"
check_flag "its emulator and instances are gone after the run" "$([ -z "$(leftovers)" ] && echo 1)"

# --- load through the load balancer (the load player) --------------------------------
python3 - "$TMP" <<'EOF'
import json, sys
t = sys.argv[1]
s = json.load(open(t + "/short.json"))
s["name"] = "loaded"
s["duration"] = "5m"
s["load"] = [{"at": "1m", "until": "5m", "target": "autoscalelb", "rate": 40}]
s["expect"] = [
    {"name": "one instance InService by 2m", "by": "2m", "group": "autoscleasg",
     "in_service": {"min": 1}},
    # from 2m: a load that arrives before the one instance is healthy gets the load
    # balancer's 503s, as on AWS (a slow, sanitized build boots late)
    {"name": "fewer than 1% of requests fail", "throughout": True, "from": "2m", "failed_pct": {"max": 1}},
    {"name": "p99 under 2 s", "throughout": True, "from": "2m", "p99_ms": {"max": 2000}}]
json.dump(s, open(t + "/loaded.json", "w"), indent=1)
EOF
rc=0
"$LG" scenario "$TMP/loaded.json" --time-scale 60 --json "$TMP/loaded.out.json" >"$TMP/loaded.out" 2>"$TMP/loaded.err" || rc=$?
cat >"$TMP/loaded.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = [e for e in d["timeline"] if e["type"] == "sample"]
busy = [e for e in s if e["t_s"] >= 180]
assert all(e["load"] == 40 and e["load_unit"] == "req/s" for e in busy), [e["load"] for e in busy]
assert sum(e["completed"] for e in busy) > 80, [e["completed"] for e in busy]
assert sum(e["failed"] for e in busy) * 100 < sum(e["completed"] for e in busy), busy
# 40 req/s of ~79 ms on 8 workers: ~40 % busy; the emulator's CPU reading once warmed up
assert all(e["p99_ms"] is not None and e["p99_ms"] > 0 for e in busy)
EOF
c=0
[ "$rc" = 0 ] && python3 "$TMP/loaded.py" "$TMP/loaded.out.json" >"$TMP/loaded.py.out" 2>&1 && c=1
check_flag "load phases play through the load balancer's listener: requests complete, latency and load in the samples (rc $rc)" \
    "$c" "$TMP/loaded.out" "$TMP/loaded.err" "$TMP/loaded.py.out"

# --- a failing expectation: exit 3 naming it --------------------------------------------
rc=0
"$LG" scenario "$TMP/failing.json" --time-scale 240 --quiet >"$TMP/fail.out" 2>"$TMP/fail.err" || rc=$?
check_flag "a failing expectation exits 3 and names it, when, and what was observed (rc $rc)" \
    "$([ "$rc" = 3 ] && grep -qE 'expectation \$\.expect\[2\] failed: three instances at 2m.*in_service was [0-9]+ at 00:02:00' "$TMP/fail.err" && echo 1)" \
    "$TMP/fail.out" "$TMP/fail.err"

# --- usage and bad files: exit 2 --------------------------------------------------------
printf '{"name":"x","duration":"1h","load":[{"rate":-1}]}' >"$TMP/bad.json"
rc=0
"$LG" scenario "$TMP/bad.json" 2>"$TMP/bad.err" || rc=$?
check_flag "a bad file exits 2 with the JSON path" \
    "$([ "$rc" = 2 ] && grep -qF 'bad.json: $' "$TMP/bad.err" && echo 1)" "$TMP/bad.err"
rc=0
"$LG" scenario "$TMP/short.json" --time-scale fast 2>"$TMP/u.err" || rc=$?
check_flag "a bad option value exits 2" "$([ "$rc" = 2 ] && grep -q 'try' "$TMP/u.err" && echo 1)" "$TMP/u.err"
rc=0
"$LG" scenario "$TMP/short.json" --aws --endpoint http://127.0.0.1:1 2>"$TMP/u2.err" || rc=$?
check_flag "--aws with --endpoint exits 2" "$([ "$rc" = 2 ] && echo 1)" "$TMP/u2.err"
python3 - "$TMP" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1] + "/short.json"))
s["name"] = "az"
s["duration"] = "6m"
inf = s["infrastructure"]
inf["load_balancers"][0]["zones"] = inf["groups"][0]["zones"] = ["us-east-1a", "us-east-1b"]
inf["groups"][0]["min"] = 2
s["faults"] = [{"at": "2m", "az_outage": {"zone": "us-east-1a", "for": "3m"}}]
s["expect"] = [{"name": "two InService again", "at": "6m", "group": "autoscleasg",
                "in_service": {"min": 2}}]
json.dump(s, open(sys.argv[1] + "/az.json", "w"))
EOF
rc=0
"$LG" scenario "$TMP/az.json" --aws 2>"$TMP/az.err" || rc=$?
check_flag "az_outage on AWS exits 2 before sending anything" \
    "$([ "$rc" = 2 ] && grep -q 'az_outage faults need the emulator' "$TMP/az.err" && echo 1)" "$TMP/az.err"
rc=0
"$LG" scenario "$TMP/az.json" --time-scale 120 --json "$TMP/az.out.json" >"$TMP/az.out" 2>"$TMP/az2.err" || rc=$?
cat >"$TMP/az.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = [e for e in d["timeline"] if e["type"] == "fault"]
assert [e["cause"] for e in f] == ["az-outage", "az-outage-end"], f
assert f[0]["t_s"] == 120 and f[0]["description"].startswith("i-") and f[1]["t_s"] == 300, f
failed = [e for e in d["timeline"] if e["type"] == "activity" and e["status"] == "Failed"]
assert failed and "us-east-1a" in failed[0]["description"], failed
EOF
c=0
[ "$rc" = 0 ] && python3 "$TMP/az.py" "$TMP/az.out.json" >"$TMP/az.py.out" 2>&1 && c=1
check_flag "an az_outage goes through the emulator's zone fault: the zone's instance dies, launches there fail, the group recovers (rc $rc)" \
    "$c" "$TMP/az.out" "$TMP/az2.err" "$TMP/az.py.out"

# --- an unreachable endpoint: exit 1 ----------------------------------------------------
rc=0
AWS_MAX_ATTEMPTS=1 timeout 60 "$LG" scenario "$TMP/short.json" --endpoint http://127.0.0.1:9 \
    >"$TMP/unr.out" 2>"$TMP/unr.err" || rc=$?
check_flag "an unreachable --endpoint exits 1 naming the call (rc $rc)" \
    "$([ "$rc" = 1 ] && grep -q 'setup: CreateLoadBalancer' "$TMP/unr.err" && echo 1)" "$TMP/unr.err"

# --- SIGINT mid-run against an emulator the test owns: the API shows nothing left --------
start_emu sig --quiet --time-scale 120
export AWS_ENDPOINT_URL=$EP AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN
setsid "$LG" scenario "$TMP/long.json" --endpoint "$EP" --prefix sigt >"$TMP/sig.out" 2>"$TMP/sig.err" </dev/null &
LGPID=$!
for _ in $(seq 100); do grep -qE '^00:01:00 ' "$TMP/sig.out" && break; sleep 0.1; done
groups_before=$("$LG" aws autoscaling DescribeAutoScalingGroups | grep -c '<AutoScalingGroupName>sigt-' || true)
kill -INT "$LGPID"
rc=0
wait "$LGPID" || rc=$?
groups=$("$LG" aws autoscaling DescribeAutoScalingGroups | grep -c '<AutoScalingGroupName>' || true)
lbs=$("$LG" aws elb DescribeLoadBalancers | grep -c '<LoadBalancerName>' || true)
alarms=$("$LG" aws cloudwatch DescribeAlarms | grep -c '<AlarmName>' || true)
lcs=$("$LG" aws autoscaling DescribeLaunchConfigurations | grep -c '<LaunchConfigurationName>' || true)
check_flag "SIGINT mid-run exits 1 and tears down: $groups_before group before, $groups groups, $lbs LBs, $alarms alarms, $lcs LCs after (rc $rc)" \
    "$([ "$rc" = 1 ] && [ "$groups_before" = 1 ] && [ "$groups$lbs$alarms$lcs" = 0000 ] && grep -q 'interrupted' "$TMP/sig.err" && echo 1)" \
    "$TMP/sig.out" "$TMP/sig.err"

# --- SIGINT with its own emulator: no child process left --------------------------------
setsid "$LG" scenario "$TMP/long.json" --time-scale 120 >"$TMP/sig2.out" 2>"$TMP/sig2.err" </dev/null &
LGPID=$!
for _ in $(seq 100); do grep -qE '^00:01:00 ' "$TMP/sig2.out" && break; sleep 0.1; done
had=$(leftovers | wc -l)
kill -INT "$LGPID"
rc=0
wait "$LGPID" || rc=$?
check_flag "SIGINT with its own emulator: exit 1, its emulator ($had processes before) and instances gone (rc $rc)" \
    "$([ "$rc" = 1 ] && [ "$had" -ge 1 ] && [ -z "$(leftovers)" ] && echo 1)" "$TMP/sig2.out" "$TMP/sig2.err"

# --- a kill fault on the emulator: replaced --------------------------------------------
rc=0
"$LG" scenario "$TMP/killed.json" --endpoint "$EP" --json "$TMP/killed.out.json" >"$TMP/kill.out" 2>"$TMP/kill.err" || rc=$?
cat >"$TMP/killed.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = [e for e in d["timeline"] if e["type"] == "fault"]
a = [e for e in d["timeline"] if e["type"] == "activity" and e["status"] == "Successful"]
assert len(f) == 1 and f[0]["cause"] == "kill" and f[0]["description"].startswith("i-"), f
assert f[0]["t_s"] == 120, f
assert any(e["t_s"] >= 120 and "Launching" in e["description"] for e in a), a
EOF
c=0
[ "$rc" = 0 ] && python3 "$TMP/killed.py" "$TMP/killed.out.json" >"$TMP/killed.py.out" 2>&1 && c=1
check_flag "a kill fault goes through the admin API and the group replaces the instance (rc $rc)" \
    "$c" "$TMP/kill.out" "$TMP/kill.err" "$TMP/killed.py.out"

# --- --keep: the infrastructure stays, the way to it is printed -------------------------
rc=0
"$LG" scenario "$TMP/short.json" --endpoint "$EP" --keep --prefix keept --quiet >"$TMP/keep.out" 2>"$TMP/keep.err" || rc=$?
groups=$("$LG" aws autoscaling DescribeAutoScalingGroups | grep -c '<AutoScalingGroupName>keept-' || true)
check_flag "--keep leaves the group and prints how to reach and delete it (rc $rc, $groups group)" \
    "$([ "$rc" = 0 ] && [ "$groups" = 1 ] && grep -q -- '--dry-run --prefix keept' "$TMP/keep.out" && echo 1)" \
    "$TMP/keep.out" "$TMP/keep.err"

# --- SigV4: an emulator verifying signatures --------------------------------------------
printf 'AKIDSCALELAB secretscalelab\n' >"$TMP/creds"
start_emu auth --quiet --time-scale 240 --auth sigv4 --credentials "$TMP/creds"
rc=0
AWS_ACCESS_KEY_ID=AKIDSCALELAB AWS_SECRET_ACCESS_KEY=secretscalelab \
    "$LG" scenario "$TMP/short.json" --endpoint "$EP" --quiet >"$TMP/auth.out" 2>"$TMP/auth.err" || rc=$?
check_flag "against an emulator verifying SigV4: exit 0 (rc $rc)" "$([ "$rc" = 0 ] && echo 1)" "$TMP/auth.out" "$TMP/auth.err"
rc=0
AWS_ACCESS_KEY_ID=AKIDSCALELAB AWS_SECRET_ACCESS_KEY=wrong \
    "$LG" scenario "$TMP/short.json" --endpoint "$EP" --quiet >"$TMP/auth2.out" 2>"$TMP/auth2.err" || rc=$?
check_flag "a wrong secret: setup refused with AWS's code, exit 1 (rc $rc)" \
    "$([ "$rc" = 1 ] && grep -q 'SignatureDoesNotMatch' "$TMP/auth2.err" && echo 1)" "$TMP/auth2.err"

finish
