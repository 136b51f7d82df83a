#!/usr/bin/env bash
# `loadgen scenario` with a load phase aimed at an Application Load Balancer, on its own
# emulator at x60: tests/integration/data/alb_request_count_short.json (alb-request-count.json
# shortened: 20 req/s of /api/orders 70, /static/app.js 25, /favicon.ico 5 through the
# listener's rules) plays through the listener's real port; the path rules route the mix to
# their target groups (RequestCount by TargetGroup in --json), the default fixed 404 answers
# the rest, the api group scales out on its ALBRequestCountPerTarget target tracking policy,
# the expectations are evaluated (exit 0; a variant whose expectation cannot hold exits 3
# naming it); a rule on source_ip is warned about. TAP lines; KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
export TMPDIR=$TMP # loadgen's own emulator puts its folder under it

src=$ROOT/tests/integration/data/alb_request_count_short.json

# check_flag DESC FLAG FILE...: ok if FLAG is 1, else not ok and the files' tails
check_flag() {
    local d=$1 c=$2
    shift 2
    if [ "$c" = 1 ]; then ok "$d"; else
        notok "$d"
        for f in "$@"; do [ -f "$f" ] && { echo "# $f:"; tail -n 25 "$f" | sed 's/^/#   /'; }; done
    fi
}

# --- the run: exit 0, the mix routed by the rules, the scale-out --------------------------
rc=0
timeout 150 "$LG" scenario "$src" --time-scale 60 --json "$TMP/alb.json" \
    >"$TMP/alb.out" 2>"$TMP/alb.err" || rc=$?
check_flag "an ALB request-count scenario plays end to end on its own emulator with exit 0 (rc $rc)" \
    "$([ "$rc" = 0 ] && echo 1)" "$TMP/alb.out" "$TMP/alb.err"
check_flag "the load reached the ALB: its RequestCount, and each rule-routed target group's, > 0; the 404 default answered the rest" \
    "$(python3 - "$TMP/alb.json" <<'PY' && echo 1
import json, sys
d = json.load(open(sys.argv[1]))
a = {x["name"]: x for x in d["albs"]}["front"]
tg = {x["name"]: x for x in a["target_groups"]}
assert a["request_count"] > 0 and a["fixed_response_count"] > 0, a
assert tg["api-tg"]["request_count"] > 0 and tg["web-tg"]["request_count"] > 0, tg
assert a["elb_5xx_count"] == 0, a
PY
)" "$TMP/alb.out" "$TMP/alb.json"
# the metrics count each emulated minute's requests x the time scale: the shares hold to a
# few per cent (the exact mix is tests/unit/loadgen/test_mix.c's)
check_flag "the requests mix arrives in its proportions: /api/* 70 %, /static/* 25 %, the fixed 404 5 % (+-3 points)" \
    "$(python3 - "$TMP/alb.json" <<'PY' && echo 1
import json, sys
d = json.load(open(sys.argv[1]))
a = d["albs"][0]
tg = {x["name"]: x["request_count"] for x in a["target_groups"]}
tot = tg["api-tg"] + tg["web-tg"] + a["fixed_response_count"]
shares = (tg["api-tg"] / tot, tg["web-tg"] / tot, a["fixed_response_count"] / tot)
assert abs(shares[0] - 0.70) <= 0.03 and abs(shares[1] - 0.25) <= 0.03 and abs(shares[2] - 0.05) <= 0.03, shares
PY
)" "$TMP/alb.json"
check_flag "the api group scaled out on its RequestCountPerTarget alarm (above 300 a minute on one target)" \
    "$(python3 - "$TMP/alb.json" <<'PY' && echo 1
import json, sys
d = json.load(open(sys.argv[1]))
high = [a["name"] for a in d["alarms"] if a["metric"] == "RequestCountPerTarget"
        and a["comparison"] == "GreaterThanThreshold" and a["threshold"] == 300]
assert len(high) == 1, d["alarms"]
# the cause names the alarm with the run's prefix: TargetTracking-PREFIX-api-AlarmHigh-ID
tail = "-api-AlarmHigh-" + high[0].split("-AlarmHigh-")[1]
acts = [e for e in d["timeline"] if e["type"] == "activity" and e["group"] == "api"
        and tail in e.get("cause", "") and "Launching" in e["description"]]
assert acts, "no launch caused by " + high[0]
s = [e for e in d["timeline"] if e["type"] == "sample"]
assert max(e["groups"][0]["in_service"] for e in s) >= 2, [e["groups"][0] for e in s]
tg = {x["name"]: x for x in d["albs"][0]["target_groups"]}
assert tg["api-tg"]["request_count_per_target_max"] > 300, tg
PY
)" "$TMP/alb.json"
check_flag "the expectations were evaluated (both ok), the prediction compared, exit 0 in --json" \
    "$(python3 - "$TMP/alb.json" <<'PY' && echo 1
import json, sys
d = json.load(open(sys.argv[1]))
assert [e["ok"] for e in d["expectations"]] == [True, True], d["expectations"]
assert d["exit"] == 0 and d["predicted"]["final_in_service"] >= 2, d.get("predicted")
PY
)" "$TMP/alb.json"
check_flag "the terminal shows the ALB's figures and the targets' health column" \
    "$(grep -qE '^alb front \(AWS/ApplicationELB over the run\): RequestCount [1-9][0-9]*, HTTP_Fixed_Response_Count [1-9]' "$TMP/alb.out" &&
        grep -qE '^  target group api-tg: RequestCount [1-9][0-9]*, RequestCountPerTarget at most [0-9]+ per minute' "$TMP/alb.out" &&
        grep -qE '^00:0[5-9]:00 .* [2-9]/[2-9]$' "$TMP/alb.out" && echo 1)" "$TMP/alb.out"

# --- an expectation that cannot hold: exit 3 naming it -------------------------------------
python3 - "$src" "$TMP/fail.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["name"] = "alb-cannot-hold"
s["duration"] = "6m"
s["expect"] = [{"name": "api stays at one (cannot hold)", "throughout": True, "group": "api",
                "in_service": {"max": 1}}]
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
rc=0
timeout 120 "$LG" scenario "$TMP/fail.json" --time-scale 60 --quiet >"$TMP/fail.out" 2>"$TMP/fail.err" || rc=$?
check_flag "an ALB scenario whose expectation cannot hold exits 3 and names it (rc $rc)" \
    "$([ "$rc" = 3 ] && grep -qE 'expectation \$\.expect\[0\] failed: api stays at one' "$TMP/fail.err" && echo 1)" \
    "$TMP/fail.out" "$TMP/fail.err"

# --- a source_ip rule: the run warns that the requests come from this host -----------------
python3 - "$src" "$TMP/srcip.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["infrastructure"]["albs"][0]["listeners"][0]["rules"].append(
    {"priority": 30, "conditions": {"source_ip": ["198.51.100.0/24"]},
     "action": {"forward": "web-tg"}})
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
rc=0
timeout 30 "$LG" scenario "$TMP/srcip.json" --endpoint http://127.0.0.1:1 --quiet \
    >"$TMP/srcip.out" 2>"$TMP/srcip.err" || rc=$?
check_flag "a rule on source_ip is warned about (the requests come from this host's address)" \
    "$(grep -qF 'warning: $.infrastructure.albs[0].listeners[0].rules[2].conditions.source_ip' "$TMP/srcip.err" && echo 1)" \
    "$TMP/srcip.err"
finish
