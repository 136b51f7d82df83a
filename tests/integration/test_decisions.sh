#!/usr/bin/env bash
# Every decision explained, in both worlds (issue 12 part 4, issue 17's decision events;
# docs/decisions.md): `scaler simulate --explain` shows a simple policy refused for its
# cooldown and, later, at MaxSize, as decision events in the terminal and --json with the
# arithmetic and the figures; without --explain the --json has none. The emulator under
# boto3 (PutMetricData driving an alarm on a step policy of a group at MaxSize) streams a
# decision with reason at-max on /_scalelab/events (SSE and JSON lines, with curl) and logs
# it on stderr. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need curl curl || finish
need python3 python3-boto3 || finish

# --- the simulator ---------------------------------------------------------------------------
cat >"$TMP/cooldown.json" <<'EOF'
{
  "name": "decisions",
  "seed": 1,
  "duration": "50m",
  "infrastructure": {
    "load_balancers": [
      { "name": "lb", "zones": ["us-east-1a", "us-east-1b"],
        "listeners": [{ "lb_port": 80, "instance_port": 8080, "protocol": "HTTP" }],
        "health_check": { "target": "TCP:8080", "interval": 10, "timeout": 5,
                          "unhealthy_threshold": 2, "healthy_threshold": 2 } }
    ],
    "launch_configurations": [
      { "name": "lc", "instance_type": "c5.large",
        "app": { "boot_s": 60, "workers": 4,
                 "service_ms": { "dist": "exponential", "mean": 20 }, "queue_limit": 500 } }
    ],
    "groups": [
      { "name": "web", "launch_configuration": "lc", "min": 1, "max": 3,
        "load_balancers": ["lb"] }
    ],
    "policies": [
      { "name": "add-one", "group": "web", "type": "SimpleScaling",
        "adjustment_type": "ChangeInCapacity", "adjustment": 1, "cooldown": 600 }
    ],
    "alarms": [
      { "name": "cpu-high", "dimensions": { "AutoScalingGroupName": "web" },
        "period": 60, "evaluation_periods": 2, "comparison": ">", "threshold": 60,
        "actions": ["add-one"] }
    ]
  },
  "load": [ { "at": "0s", "until": "50m", "rate": 900 } ]
}
EOF
BIN="$BUILD/bin/scaler"
"$BIN" simulate "$TMP/cooldown.json" --explain >"$TMP/sim.out" 2>"$TMP/sim.err" || true
"$BIN" simulate "$TMP/cooldown.json" --explain --json >"$TMP/sim.json" 2>>"$TMP/sim.err" || true
"$BIN" simulate "$TMP/cooldown.json" --json >"$TMP/plain.json" 2>>"$TMP/sim.err" || true

check "simulate --explain: a decision refused for the cooldown, with the seconds left" \
    grep -qE '\^ [0-9:]+ decision group web policy add-one \(SimpleScaling, alarm cpu-high, metric [0-9.]+, threshold 60\): [0-9] \+ 1 = [0-9]; desired stays [0-9]: cooldown \(the group is in cooldown, [0-9]+ s left\)' "$TMP/sim.out"
check "simulate --explain: the decision that changed capacity, 1 + 1 = 2" \
    grep -qE '\^ [0-9:]+ decision .*policy add-one .*: 1 \+ 1 = 2; desired 1 -> 2$' "$TMP/sim.out"
check "simulate --explain: a decision at MaxSize 3" \
    grep -qE 'decision .*policy add-one .*: 3 \+ 1 = 4; desired stays 3: at-max \(at MaxSize 3\)' "$TMP/sim.out"
python3 - "$TMP/sim.json" "$TMP/plain.json" <<'EOF' || failed=1
import json, sys
import tap
from tap import check

doc = json.load(open(sys.argv[1]))
ds = [e for e in doc["timeline"] if e.get("type") == "decision"]
cool = [d for d in ds if d.get("reason") == "cooldown"]
atmax = [d for d in ds if d.get("reason") == "at-max"]
check("--json --explain: decision events with reason cooldown", cool and all(
    d["policy_type"] == "SimpleScaling" and d["alarm"] == "cpu-high" and d["threshold"] == 60 and
    d["result"] == "unchanged" and d["desired"] == d["current"] and d["computed"] == d["current"] + 1 and
    0 < d["cooldown_left_s"] <= 600 for d in cool), cool[:1])
check("--json --explain: decision events with reason at-max (computed 4, max 3, desired 3)", atmax and all(
    d["computed"] == 4 and d["max"] == 3 and d["desired"] == 3 and d["status"] == "at-max" and
    d["cause"] == "3 + 1 = 4" for d in atmax), len(atmax))
changed = [d for d in ds if d["result"] == "changed"]
check("--json --explain: two changes, 1 -> 2 and 2 -> 3",
      [(d["current"], d["desired"]) for d in changed] == [(1, 2), (2, 3)],
      [(d["current"], d["desired"]) for d in changed])
plain = json.load(open(sys.argv[2]))
check("--json without --explain: no decision events",
      not [e for e in plain["timeline"] if e.get("type") in ("decision", "hook")])
sys.exit(tap.failed)
EOF

# --- the emulator ----------------------------------------------------------------------------
start_emu emu --time-scale 60 || finish

curl -sN "$EP/_scalelab/events" >"$TMP/sse.out" 2>/dev/null &

python3 - "$EP" <<'EOF' || failed=1
import json, sys, time, urllib.request
import boto3
import tap
from tap import check, wait

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
cw = boto3.client("cloudwatch", endpoint_url=ep)

def events():
    with urllib.request.urlopen(f"{ep}/_scalelab/events?format=jsonl", timeout=5) as r:
        return [json.loads(l) for l in r.read().decode().splitlines()]

asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="t3.micro",
                                UserData=json.dumps({"boot_s": 5, "workers": 2, "service_ms": 2}))
asg.create_auto_scaling_group(AutoScalingGroupName="web", LaunchConfigurationName="lc", MinSize=1,
                              MaxSize=1, DesiredCapacity=1, DefaultInstanceWarmup=0,
                              AvailabilityZones=["us-east-1a"])
arn = asg.put_scaling_policy(AutoScalingGroupName="web", PolicyName="step-out",
                             PolicyType="StepScaling", AdjustmentType="ChangeInCapacity",
                             StepAdjustments=[{"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}])["PolicyARN"]
cw.put_metric_alarm(AlarmName="queue-high", Namespace="Lab", MetricName="QueueDepth",
                    Statistic="Average", Period=60, EvaluationPeriods=1, Threshold=10,
                    ComparisonOperator="GreaterThanThreshold", AlarmActions=[arn])
def in_service():
    g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["web"])["AutoScalingGroups"][0]
    return [i for i in g["Instances"] if i["LifecycleState"] == "InService"]
check("the group's one instance is InService", wait(in_service, 20))

# a datapoint every half second (30 emulated seconds) until the alarm's action has run
got, end = [], time.time() + 40
while not got and time.time() < end:
    cw.put_metric_data(Namespace="Lab", MetricData=[{"MetricName": "QueueDepth", "Value": 50}])
    got = [e for e in events() if e["type"] == "decision" and e.get("reason") == "at-max"]
    time.sleep(0.5)
d = got[0] if got else {}
check("/_scalelab/events: a decision with reason at-max", got,
      "" if got else [e["text"] for e in events()[-5:]])
check("the decision: step-out, alarm queue-high, metric 50 vs threshold 10, computed 2, max 1, desired 1",
      d.get("policy") == "step-out" and d.get("policy_type") == "StepScaling" and
      d.get("alarm") == "queue-high" and d.get("metric") == 50 and d.get("threshold") == 10 and
      d.get("computed") == 2 and d.get("max") == 1 and d.get("desired") == 1 and
      d.get("result") == "unchanged" and d.get("group") == "web", d.get("text", d))
check("its arithmetic and text", d.get("arithmetic") == "metric 50 - threshold 10 = 40 in step [0, +inf): 1 + 1 = 2"
      and "desired stays 1: at-max (at MaxSize 1)" in d.get("text", ""), d.get("arithmetic"))
g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["web"])["AutoScalingGroups"][0]
check("desired stays 1", g["DesiredCapacity"] == 1, g["DesiredCapacity"])
sys.exit(tap.failed)
EOF

check "SSE: the decision arrives as event: decision with reason at-max" \
    wait_for 5 bash -c "grep -q '^event: decision' '$TMP/sse.out' && grep -q '\"reason\":\"at-max\"' '$TMP/sse.out'"
check "stderr: the decision's line at the default level" \
    grep -qE ' I .*event: group web policy step-out \(StepScaling, alarm queue-high, metric 50, threshold 10\): .*desired stays 1: at-max' "$TMP/emu.log"
finish
