#!/usr/bin/env bash
# Predictive scaling through boto3 on the emulator's manual clock (docs/autoscaling.md 12):
# 26 hours of a customized load metric put with past timestamps (a daily peak, 400 from
# 09:00 to 17:00 UTC, 100 otherwise), a ForecastAndScale policy over it and a ForecastOnly
# one with the CPU metric pair, DescribePolicies' echo with AWS's defaults,
# GetPredictiveScalingForecast's 48 hourly load and capacity values (capacity = load /
# target), the validation texts with nothing stored changed, the group raised to the 09:00
# forecast at 08:50 (SchedulingBufferTime 600) and not before, and the policies and
# forecast surviving a restart from --state. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --clock manual --state "$TMP/state.json"

python3 - "$EP" <<'EOF2' || failed=1
import datetime, json, sys, urllib.request
import boto3, botocore.exceptions
import tap
from tap import check

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
cw = boto3.client("cloudwatch", endpoint_url=ep)
HOUR = 3600 * 1000

def clock():
    with urllib.request.urlopen(ep + "/_scalelab/clock") as r:
        return json.load(r)["now_ms"]

def advance(s, extra_ms=0):
    body = {"advance_ms": int(s * 1000) + extra_ms}
    req = urllib.request.Request(ep + "/_scalelab/clock", data=json.dumps(body).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()

def dt(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)

def ms(d):
    return int(d.timestamp() * 1000)

def peak(t):
    h = (t // HOUR) % 24
    return 400.0 if 9 <= h < 17 else 100.0

def err(f, **kw):
    try:
        f(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

# to the next midnight UTC (a 6-hour boundary, the peak 9 hours ahead)
advance(0, 24 * HOUR - clock() % (24 * HOUR))
now = clock()
check("the manual clock moved to midnight UTC", now % (24 * HOUR) == 0, now)
dims = [{"Name": "Service", "Value": "web"}]
data = [{"MetricName": "Load", "Dimensions": dims, "Timestamp": dt(now - k * HOUR + 30 * 60 * 1000),
         "Value": peak(now - k * HOUR)} for k in range(26, 0, -1)]
cw.put_metric_data(Namespace="App", MetricData=data)

asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-0c02fb55956c7d316",
                                InstanceType="t3.micro")
asg.create_auto_scaling_group(AutoScalingGroupName="web", LaunchConfigurationName="lc",
                              MinSize=0, MaxSize=6, DesiredCapacity=0,
                              AvailabilityZones=["us-east-1a"])

def q(qid, stat, ret):
    return {"Id": qid, "MetricStat": {"Metric": {"Namespace": "App", "MetricName": "Load",
                                                 "Dimensions": dims}, "Stat": stat},
            "ReturnData": ret}

spec = {"TargetValue": 100.0,
        "CustomizedLoadMetricSpecification": {"MetricDataQueries": [q("load", "Sum", True)]},
        "CustomizedScalingMetricSpecification": {"MetricDataQueries": [q("scaling", "Average", True)]}}
cfg = {"MetricSpecifications": [spec], "Mode": "ForecastAndScale", "SchedulingBufferTime": 600}
r = asg.put_scaling_policy(AutoScalingGroupName="web", PolicyName="pred",
                           PolicyType="PredictiveScaling", PredictiveScalingConfiguration=cfg)
check("PutScalingPolicy PredictiveScaling answers a PolicyARN and no alarms",
      r["PolicyARN"].startswith("arn:aws:autoscaling:") and r.get("Alarms", []) == [], r)
asg.put_scaling_policy(AutoScalingGroupName="web", PolicyName="pair",
                       PolicyType="PredictiveScaling",
                       PredictiveScalingConfiguration={"MetricSpecifications": [{
                           "TargetValue": 50.0,
                           "PredefinedMetricPairSpecification": {"PredefinedMetricType": "ASGCPUUtilization"}}]})

def policies():
    return {p["PolicyName"]: p for p in
            asg.describe_policies(AutoScalingGroupName="web")["ScalingPolicies"]}

ps = policies()
p = ps.get("pred", {})
check("DescribePolicies: type PredictiveScaling", p.get("PolicyType") == "PredictiveScaling", p)
want = dict(cfg, MaxCapacityBreachBehavior="HonorMaxCapacity")
check("the configuration echoed as sent, MaxCapacityBreachBehavior defaulted",
      p.get("PredictiveScalingConfiguration") == want, p.get("PredictiveScalingConfiguration"))
pc = ps.get("pair", {}).get("PredictiveScalingConfiguration", {})
check("the pair policy: Mode ForecastOnly by default, no SchedulingBufferTime or MaxCapacityBuffer",
      pc.get("Mode") == "ForecastOnly" and "SchedulingBufferTime" not in pc
      and "MaxCapacityBuffer" not in pc
      and pc.get("MetricSpecifications") == [{"TargetValue": 50.0,
          "PredefinedMetricPairSpecification": {"PredefinedMetricType": "ASGCPUUtilization"}}], pc)
check("DescribePolicies PolicyTypes=[PredictiveScaling] lists both",
      len(asg.describe_policies(AutoScalingGroupName="web",
                                PolicyTypes=["PredictiveScaling"])["ScalingPolicies"]) == 2)

f = asg.get_predictive_scaling_forecast(AutoScalingGroupName="web", PolicyName="pred",
                                        StartTime=dt(now), EndTime=dt(now + 48 * HOUR))
lf = f["LoadForecast"][0]
ts = [ms(t) for t in lf["Timestamps"]]
check("48 hourly load values from the hour of the update",
      ts == [now + k * HOUR for k in range(48)], ts[:3])
check("the load: the daily mean of each hour (400 at 09:00, 100 at 08:00 and 17:00)",
      lf["Values"][9] == 400 and lf["Values"][8] == 100 and lf["Values"][17] == 100
      and lf["Values"][33] == 400, lf["Values"][:18])
cap = f["CapacityForecast"]["Values"]
check("the capacity: load / TargetValue (4 at the peak, 1 otherwise)",
      cap[9] == 4 and cap[16] == 4 and cap[8] == 1 and cap[17] == 1
      and [ms(t) for t in f["CapacityForecast"]["Timestamps"]] == ts, cap[:18])
check("UpdateTime is when it was made", ms(f["UpdateTime"]) == now, f["UpdateTime"])
check("the forecast names its metric specification", lf["MetricSpecification"] == spec,
      lf["MetricSpecification"])
f2 = asg.get_predictive_scaling_forecast(AutoScalingGroupName="web", PolicyName="pred",
                                         StartTime=dt(now + 9 * HOUR), EndTime=dt(now + 11 * HOUR))
check("StartTime and EndTime cut the hours", len(f2["CapacityForecast"]["Values"]) == 2
      and f2["CapacityForecast"]["Values"] == [4, 4], f2["CapacityForecast"])
f3 = asg.get_predictive_scaling_forecast(AutoScalingGroupName="web", PolicyName="pair",
                                         StartTime=dt(now), EndTime=dt(now + 48 * HOUR))
check("no CPU history: an empty forecast", f3["LoadForecast"][0]["Values"] == []
      and f3["CapacityForecast"]["Values"] == [], f3)

before = policies()
bad_cases = [
    ("a pair and a load metric",
     {"MetricSpecifications": [dict(spec, PredefinedMetricPairSpecification={"PredefinedMetricType": "ASGCPUUtilization"})]},
     "The metric specification is invalid. A policy must have either one scaling metric and one load metric or one metric pair."),
    ("a load metric alone",
     {"MetricSpecifications": [{"TargetValue": 10.0, "PredefinedLoadMetricSpecification": {"PredefinedMetricType": "ASGTotalCPUUtilization"}}]},
     "The metric specification is invalid. A policy must have either one scaling metric and one load metric or one metric pair."),
    ("IncreaseMaxCapacity without MaxCapacityBuffer",
     dict(cfg, MaxCapacityBreachBehavior="IncreaseMaxCapacity"),
     "MaxCapacityBuffer is required when MaxCapacityBreachBehavior is IncreaseMaxCapacity."),
    ("MaxCapacityBuffer with HonorMaxCapacity",
     dict(cfg, MaxCapacityBuffer=10),
     "MaxCapacityBuffer can only be specified when MaxCapacityBreachBehavior is IncreaseMaxCapacity."),
    ("SchedulingBufferTime over 3600", dict(cfg, SchedulingBufferTime=4000),
     "SchedulingBufferTime must be less than or equal to 3600 seconds."),
    ("TargetValue 0", {"MetricSpecifications": [dict(spec, TargetValue=0.0)]},
     "TargetValue must be greater than 0."),
    ("ALBRequestCount without a resource label",
     {"MetricSpecifications": [{"TargetValue": 10.0, "PredefinedMetricPairSpecification": {"PredefinedMetricType": "ALBRequestCount"}}]},
     "Resource label should be specified for predefined metric type ALBRequestCount"),
    ("two queries returning data",
     {"MetricSpecifications": [dict(spec, CustomizedLoadMetricSpecification={"MetricDataQueries": [q("a", "Sum", True), q("b", "Sum", True)]})]},
     "Exactly one element of the metrics list should return data."),
]
for name, c, text in bad_cases:
    e = err(asg.put_scaling_policy, AutoScalingGroupName="web", PolicyName="pred",
            PolicyType="PredictiveScaling", PredictiveScalingConfiguration=c)
    check("refused: " + name, e == ("ValidationError", text), e)
e = err(asg.put_scaling_policy, AutoScalingGroupName="web", PolicyName="other",
        PolicyType="PredictiveScaling")
check("PredictiveScaling without a configuration refused",
      e == ("ValidationError", "PredictiveScalingConfiguration is required for policy type PredictiveScaling."), e)
e = err(asg.put_scaling_policy, AutoScalingGroupName="web", PolicyName="other",
        PolicyType="SimpleScaling", AdjustmentType="ChangeInCapacity", ScalingAdjustment=1,
        PredictiveScalingConfiguration=cfg)
check("a configuration on a SimpleScaling policy refused",
      e == ("ValidationError", "PredictiveScalingConfiguration is only supported for policy type PredictiveScaling."), e)
e = err(asg.put_scaling_policy, AutoScalingGroupName="web", PolicyName="other",
        PolicyType="PredictiveScaling", Cooldown=60, PredictiveScalingConfiguration=cfg)
check("Cooldown on a predictive policy refused", e is not None and e[0] == "ValidationError"
      and e[1].endswith("are not supported for policy type PredictiveScaling."), e)
check("nothing stored changed on the errors", policies() == before)

e = err(asg.get_predictive_scaling_forecast, AutoScalingGroupName="web", PolicyName="nope",
        StartTime=dt(now), EndTime=dt(now + HOUR))
check("a forecast of an unknown policy",
      e == ("ValidationError", "No policy found for service namespace: autoscaling, policy name: nope"), e)
e = err(asg.get_predictive_scaling_forecast, AutoScalingGroupName="nope", PolicyName="pred",
        StartTime=dt(now), EndTime=dt(now + HOUR))
check("a forecast of an unknown group", e is not None and e[0] == "ValidationError"
      and e[1].startswith("AutoScalingGroup name not found"), e)
e = err(asg.get_predictive_scaling_forecast, AutoScalingGroupName="web", PolicyName="pred",
        StartTime=dt(now + HOUR), EndTime=dt(now))
check("EndTime before StartTime", e == ("ValidationError", "EndTime must be after StartTime."), e)
e = err(asg.get_predictive_scaling_forecast, AutoScalingGroupName="web", PolicyName="pred",
        StartTime=dt(now), EndTime=dt(now + 31 * 24 * HOUR))
check("a range over 30 days",
      e == ("ValidationError", "The time range between StartTime and EndTime must not exceed 30 days."), e)
e = err(asg.execute_policy, AutoScalingGroupName="web", PolicyName="pred")
check("ExecutePolicy on a predictive policy",
      e == ("ValidationError", "ExecutePolicy is not supported for policies of type PredictiveScaling."), e)

def desired():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["web"])["AutoScalingGroups"][0]["DesiredCapacity"]

advance(8 * 3600 + 49 * 60)
check("at 08:49 the group holds the 08:00 forecast (1)", desired() == 1, desired())
advance(60)
check("at 08:50, 600 s before the 09:00 hour, raised to its forecast capacity 4",
      desired() == 4, desired())
acts = asg.describe_scaling_activities(AutoScalingGroupName="web")["Activities"]
causes = [a["Cause"] for a in acts]
check("the activity says why",
      any("the predictive scaling policy pred forecast a capacity of 4 for %s changing the desired capacity from 1 to 4" % dt(now + 9 * HOUR).strftime("%Y-%m-%dT%H:%M:%SZ") in c
          for c in causes), causes[:2])
advance(8 * 3600 + 10 * 60)
check("after the peak (17:00 forecast 1) it does not scale in", desired() == 4, desired())
sys.exit(tap.failed)
EOF2

python3 - "$EP" >"$TMP/before.json" <<'EOF2' || failed=1
import datetime, json, sys, urllib.request, boto3
a = boto3.client("autoscaling", endpoint_url=sys.argv[1])
with urllib.request.urlopen(sys.argv[1] + "/_scalelab/clock") as r:
    now = json.load(r)["now_ms"] // 1000
day = 86400
t = lambda s: datetime.datetime.fromtimestamp(s, datetime.timezone.utc)
p = a.describe_policies(AutoScalingGroupName="web")["ScalingPolicies"]
f = a.get_predictive_scaling_forecast(AutoScalingGroupName="web", PolicyName="pred",
                                      StartTime=t(now - 20 * day), EndTime=t(now + 9 * day))
print(json.dumps([p, f["CapacityForecast"]], sort_keys=True, default=str))
EOF2
kill -TERM "$LAST"
for _ in $(seq 50); do kill -0 "$LAST" 2>/dev/null || break; sleep 0.1; done
start_emu emu2 --quiet --clock manual --state "$TMP/state.json"
python3 - "$EP" >"$TMP/after.json" <<'EOF2' || failed=1
import datetime, json, sys, urllib.request, boto3
a = boto3.client("autoscaling", endpoint_url=sys.argv[1])
with urllib.request.urlopen(sys.argv[1] + "/_scalelab/clock") as r:
    now = json.load(r)["now_ms"] // 1000
day = 86400
t = lambda s: datetime.datetime.fromtimestamp(s, datetime.timezone.utc)
p = a.describe_policies(AutoScalingGroupName="web")["ScalingPolicies"]
f = a.get_predictive_scaling_forecast(AutoScalingGroupName="web", PolicyName="pred",
                                      StartTime=t(now - 20 * day), EndTime=t(now + 9 * day))
print(json.dumps([p, f["CapacityForecast"]], sort_keys=True, default=str))
EOF2
if [ -s "$TMP/before.json" ] && cmp -s "$TMP/before.json" "$TMP/after.json"; then
    ok "the predictive policies and their forecast come back the same from the state file"
else
    notok "the predictive policies and their forecast come back the same from the state file"
    diff "$TMP/before.json" "$TMP/after.json" | sed 's/^/#   /' || true
fi
finish
