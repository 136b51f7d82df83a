#!/usr/bin/env bash
# loadgen scenario plays a scenario's composite alarms (docs/loadgen.md "Composite
# alarms"): a shortened copy of scenarios/composite-alarm.json (20 emulated minutes, the
# step at 4 minutes) against an emulator at x60. PutCompositeAlarm carries the rule with
# the runner's prefixed names (renamed through libscaler's AlarmRule parser), the
# suppressor and its periods, the actions as PolicyARNs; the observed run shows the
# composite's transitions and its Action history items (the failed Auto Scaling action) as
# `scaler simulate` does (terminal, --json); web-overloaded goes
# to ALARM as the simulator predicts; teardown deletes the composites before their
# children and leaves nothing (DescribeAlarms of every type empty). TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

need python3 python3 || finish
SIM="$ROOT/$BUILD/bin/scaler"
python3 - "$ROOT/scenarios/composite-alarm.json" "$TMP/short.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "composite-alarm-short"
d["duration"] = "20m"
d["load"] = [{"at": "0s", "until": "20m", "rate": 100, "shape": {"type": "step", "at": "4m", "to": 600}}]
d["expect"] = [{"name": "the step is answered by a scale-out within 5 minutes", "group": "web",
                "scale_out": {"after": "4m", "within": "5m"}}]
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
"$SIM" simulate "$TMP/short.json" --json >"$TMP/sim.json" 2>"$TMP/sim.err" ||
    notok "scaler simulate plays the shortened scenario"

check "dry-run: PutCompositeAlarm with the prefixed rule, suppressor and periods; teardown composites first" bash -c "
    '$LG' scenario '$TMP/short.json' --dry-run --prefix cx >'$TMP/plan'
    grep -qF 'cloudwatch PutCompositeAlarm AlarmName=cx-web-overloaded '\''AlarmRule=ALARM(\"cx-cpu-high\") AND ALARM(\"cx-requests-high\")'\'' '\''AlarmActions.member.1={arn:scale-out}'\'' ActionsEnabled=true' '$TMP/plan'
    grep -qF 'AlarmRule=ALARM(cx-requests-high) AND NOT ALARM(cx-cpu-high)' '$TMP/plan'
    grep -qF 'ActionsSuppressor=cx-cpu-low ActionsSuppressorWaitPeriod=120 ActionsSuppressorExtensionPeriod=60' '$TMP/plan'
    awk '/^# teardown/{on=1; next} on && /DeleteAlarms/' '$TMP/plan' | head -3 | tr '\n' ' ' |
        grep -q 'member.1=cx-web-busy-not-cpu .*member.1=cx-web-overloaded .*member.1=cx-cpu-high'"

start_emu emu --quiet --time-scale 60 || {
    notok "emulator starts"
    finish
}
EMU_PID=$LAST
rc=0
timeout 200 "$LG" scenario "$TMP/short.json" --endpoint "$EP" --prefix cx --json "$TMP/run.json" \
    --report "$TMP/run.html" >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then ok "loadgen scenario plays it (exit $rc)"; else
    notok "loadgen scenario plays it, got exit $rc"
    tail -n 20 "$TMP/run.out" "$TMP/run.err" | sed 's/^/#   /'
fi
check "the terminal shows the composite going to ALARM as the simulator does" \
    grep -qE '^  \^ [0-9:]+ alarm web-overloaded (OK|INSUFFICIENT_DATA) -> ALARM' "$TMP/run.out"
check "the terminal shows the composite's failed Auto Scaling action, once for each ALARM, as the simulator does" bash -c "
    n=\$(grep -cE '^  \^ [0-9:]+ alarm web-overloaded Failed to execute action arn:aws:autoscaling:.*policyName/scale-out: composite alarms can.t trigger Auto Scaling actions' '$TMP/run.out')
    a=\$(grep -cE '^  \^ [0-9:]+ alarm web-overloaded [A-Z_]+ -> ALARM' '$TMP/run.out')
    echo \"# action items \$n, transitions to ALARM \$a\"; [ \$n -ge 1 ] && [ \$n = \$a ]"
check "the terminal's alarm columns name the composites" \
    grep -qE 'web-overloaded +web-busy-not-cpu' "$TMP/run.out"
check "--json: the composites with their rules as written, a transition of web-overloaded to ALARM" \
    python3 - "$TMP/run.json" "$TMP/sim.json" <<'PY'
import json, sys
run, sim = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rules = lambda d: {a["name"]: a.get("alarm_rule") for a in d["alarms"] if a.get("alarm_rule")}
to_alarm = lambda d: [e for e in d["timeline"] if e.get("type") == "alarm" and e["name"] == "web-overloaded"
                      and e.get("cause", "").endswith("-> ALARM")]
print("# observed", [(e["t_s"], e["cause"]) for e in to_alarm(run)], "predicted", [(e["t_s"], e["cause"]) for e in to_alarm(sim)])
sys.exit(0 if rules(run) == rules(sim) and len(rules(run)) == 2 and to_alarm(run) and to_alarm(sim) else 1)
PY
check "the report names the composite" grep -q "web-overloaded" "$TMP/run.html"
check "teardown left no alarm (DescribeAlarms of both types empty)" python3 - "$EP" <<'PY'
import sys, boto3
cw = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1")
r = cw.describe_alarms(AlarmTypes=["MetricAlarm", "CompositeAlarm"])
print("#", [a["AlarmName"] for a in r["MetricAlarms"] + r["CompositeAlarms"]])
sys.exit(0 if r["MetricAlarms"] == [] and r["CompositeAlarms"] == [] else 1)
PY
kill -TERM -- "-$EMU_PID" 2>/dev/null || true
wait "$EMU_PID" 2>/dev/null || true
finish
