#!/usr/bin/env bash
# Metric math through boto3 (docs/metric-math.md): GetMetricData expressions over known data
# give the values the reference's rules give (alignment with missing values as 0, IF,
# FILL REPEAT, RATE, METRICS(), SEARCH, labels, ReturnData); AWS's error texts; an alarm on
# an expression follows its inputs on the emulator's manual clock; a target-tracking policy
# on a math metric is accepted, echoed by DescribePolicies and scales the group; the
# deviations of issue 15 (ResourceNotFoundException on tags, StartTime == EndTime, a query
# with neither MetricStat nor Expression, aws-cn ARNs in cn-north-1). Prints TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --clock manual || {
    notok "emulator starts"
    finish
}
python3 - "$EP" <<'PY'
import datetime, json, sys, urllib.request
import boto3, botocore
import tap

ep = sys.argv[1]
cw = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1")
asg = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1")


def clock(advance_s=None):
    req = urllib.request.Request(ep + "/_scalelab/clock",
                                 data=None if advance_s is None else json.dumps({"advance_s": advance_s}).encode())
    return json.load(urllib.request.urlopen(req))["now_ms"]


def error_of(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    return None


now_ms = clock()
t0 = (now_ms // 60000 - 10) * 60000  # ten minutes ago, minute-aligned
ts = lambda m: datetime.datetime.fromtimestamp((t0 + m * 60000) / 1000, datetime.timezone.utc)
A = [30, 20, 0, 0, None, 5]      # the guide's metric1, then a gap and 5
B = [20, None, 20, None, None, 7]  # the guide's metric2
for m in range(6):
    for name, vals in (("A", A), ("B", B)):
        if vals[m] is not None:
            cw.put_metric_data(Namespace="App", MetricData=[
                {"MetricName": name, "Dimensions": [{"Name": "Host", "Value": "h1"}],
                 "Timestamp": ts(m) + datetime.timedelta(seconds=5), "Value": vals[m]}])


def stat(i, name):
    return {"Id": i, "ReturnData": False, "MetricStat": {"Metric": {
        "Namespace": "App", "MetricName": name, "Dimensions": [{"Name": "Host", "Value": "h1"}]},
        "Period": 60, "Stat": "Sum"}}


def gmd(exprs, **kw):
    q = [stat("m1", "A"), stat("m2", "B")] + [dict({"Id": i, "Expression": e}, **kw.get(i, {})) for i, e in exprs]
    r = cw.get_metric_data(MetricDataQueries=q, StartTime=ts(0), EndTime=ts(6), ScanBy="TimestampAscending")
    return r["MetricDataResults"]


def series(r):
    return {int((t.timestamp() * 1000 - t0) // 60000): v for t, v in zip(r["Timestamps"], r["Values"])}


# the reference's semantics, computed here from the same lists
def union(f):
    out = {}
    for m in range(6):
        if A[m] is None and B[m] is None:
            continue
        v = f(A[m] or 0, B[m] or 0)
        if v is not None:
            out[m] = v
    return out


res = gmd([("e1", "m1 + m2"), ("e2", "m1 < m2"), ("e3", "m1 / m2"), ("e4", "IF(m1 > 10, m1, 0)"),
           ("e5", "FILL(m2, REPEAT)"), ("e6", "RATE(m1)"), ("e7", "m1 - AVG(m1)")])
got = {r["Id"]: series(r) for r in res}
tap.check("GetMetricData returns only the expressions (ReturnData false hides m1, m2)",
          [r["Id"] for r in res] == ["e1", "e2", "e3", "e4", "e5", "e6", "e7"], [r["Id"] for r in res])
tap.check("m1 + m2: union of timestamps, a missing value counts as 0",
          got["e1"] == union(lambda a, b: a + b), got["e1"])
tap.check("m1 < m2 gives the guide's 0, 0, 1, 0", got["e2"] == union(lambda a, b: float(a < b)), got["e2"])
tap.check("m1 / m2 drops the points that divide by zero",
          got["e3"] == union(lambda a, b: a / b if b else None), got["e3"])
want_if = {m: (A[m] if A[m] > 10 else 0) for m in range(6) if A[m] is not None}
tap.check("IF(m1 > 10, m1, 0)", got["e4"] == want_if, got["e4"])
want_rep, last = {}, None
for m in range(6):
    last = B[m] if B[m] is not None else last
    if last is not None:
        want_rep[m] = last
tap.check("FILL(m2, REPEAT) repeats the latest real value", got["e5"] == want_rep, got["e5"])
pts = [(m, A[m]) for m in range(6) if A[m] is not None]
want_rate = {m: (v - pv) / ((m - pm) * 60) for (pm, pv), (m, v) in zip(pts, pts[1:])}
tap.check("RATE(m1) per second between consecutive points", got["e6"] == want_rate, got["e6"])
avg = sum(v for _, v in pts) / len(pts)
tap.check("m1 - AVG(m1) (a scalar from a series)", got["e7"] == {m: v - avg for m, v in pts}, got["e7"])
tap.check("an expression's default label is its Id", [r["Label"] for r in res][:2] == ["e1", "e2"],
          [r["Label"] for r in res])

res = gmd([("e1", "METRICS() * 10"), ("s", "SEARCH('{App,Host} MetricName=\"B\"', 'Sum')")],
          e1={"Label": "x10 max ${MAX}"})
labels = [(r["Id"], r["Label"]) for r in res]
tap.check("METRICS() gives one result per metric with the expression's label and dynamic ${MAX}",
          labels[:2] == [("e1", "x10 max 300 A"), ("e1", "x10 max 200 B")], labels)
tap.check("SEARCH finds B in the store, labelled by metric name and dimension values",
          labels[2:] == [("s", "B h1")] and series(res[2]) == {m: B[m] for m in range(6) if B[m] is not None},
          labels)

e = error_of(lambda: gmd([("e1", "m1 + m9")]))
tap.check("an unknown Id: ValidationError naming it", e and e[0] == "ValidationError" and
          "Unrecognized identifier m9" in e[1], e)
e = error_of(lambda: gmd([("e1", "m1 +")]))
tap.check("an expression that does not parse: ValidationError with the position",
          e and e[1] == "Error in expression e1: Syntax error at position 5", e)
e = error_of(lambda: gmd([("e1", "e2 + 1"), ("e2", "e1 * 2")]))
tap.check("a cycle: ValidationError", e and "Circular dependency" in e[1], e)
e = error_of(lambda: cw.get_metric_data(MetricDataQueries=[{"Id": "q1"}], StartTime=ts(0), EndTime=ts(6)))
tap.check("neither MetricStat nor Expression: AWS's text",
          e == ("ValidationError", "The parameter MetricDataQueries.member.1.MetricStat is required.\n", 400), e)
e = error_of(lambda: cw.get_metric_data(MetricDataQueries=[stat("m1", "A")], StartTime=ts(0), EndTime=ts(0)))
tap.check("StartTime equal to EndTime: AWS's text",
          e == ("ValidationError", "The parameter StartTime must not equal parameter EndTime.", 400), e)

# an alarm on an expression follows its inputs
q = [stat("m1", "A"), stat("m2", "B"), {"Id": "e1", "Expression": "m1 + m2", "Label": "total", "ReturnData": True}]
cw.put_metric_alarm(AlarmName="total", Metrics=q, EvaluationPeriods=1, Threshold=10,
                    ComparisonOperator="GreaterThanThreshold", TreatMissingData="notBreaching")
al = cw.describe_alarms(AlarmNames=["total"])["MetricAlarms"][0]
tap.check("DescribeAlarms echoes Metrics and no MetricName", al.get("Metrics") == q and "MetricName" not in al,
          al.get("Metrics"))
now_ms = clock()
cur = now_ms // 60000 * 60000


def put_now(name, v):
    cw.put_metric_data(Namespace="App", MetricData=[{"MetricName": name, "Dimensions": [{"Name": "Host", "Value": "h1"}],
                       "Timestamp": datetime.datetime.fromtimestamp(clock() / 1000, datetime.timezone.utc), "Value": v}])


def state_after_tick():
    clock(60)
    return cw.describe_alarms(AlarmNames=["total"])["MetricAlarms"][0]["StateValue"]


put_now("A", 4)
put_now("B", 3)
s1 = state_after_tick()
put_now("A", 4)
put_now("B", 9)
s2 = state_after_tick()
put_now("A", 1)
s3 = state_after_tick()
tap.check("the expression alarm follows m1 + m2: 7 OK, 13 ALARM, 1 OK", (s1, s2, s3) == ("OK", "ALARM", "OK"), (s1, s2, s3))
e = error_of(lambda: cw.put_metric_alarm(AlarmName="bad", Metrics=[stat("m1", "A"), {"Id": "e1", "Expression": "m1"}],
                                         EvaluationPeriods=1, Threshold=1, ComparisonOperator="GreaterThanThreshold",
                                         Statistic="Sum"))
tap.check("Statistic with Metrics: AWS's text", e and e[1] == "Statistic should not be set if list of Metrics is set.", e)
e = error_of(lambda: cw.put_metric_alarm(AlarmName="bad", Metrics=[dict(stat("m1", "A"), ReturnData=True),
                                         {"Id": "e1", "Expression": "m1"}], EvaluationPeriods=1, Threshold=1,
                                         ComparisonOperator="GreaterThanThreshold"))
tap.check("two queries returning data: AWS's text",
          e and e[1] == "Exactly one element of the metrics list should return data.", e)
e = error_of(lambda: cw.put_metric_alarm(AlarmName="bad", Metrics=[dict(stat("m1", "A"), ReturnData=False),
                                         {"Id": "e1", "Expression": "m1 + zz"}], EvaluationPeriods=1, Threshold=1,
                                         ComparisonOperator="GreaterThanThreshold"))
tap.check("an unknown Id in an alarm: Invalid metrics list, nothing stored",
          e and e[1] == "Invalid metrics list" and not cw.describe_alarms(AlarmNames=["bad"])["MetricAlarms"], e)

# tags: ResourceNotFoundException
arn = "arn:aws:cloudwatch:us-east-1:123456789012:alarm:nope"
e1 = error_of(lambda: cw.tag_resource(ResourceARN=arn, Tags=[{"Key": "k", "Value": "v"}]))
e2 = error_of(lambda: cw.untag_resource(ResourceARN=arn, TagKeys=["k"]))
tap.check("TagResource and UntagResource on an unknown ARN: ResourceNotFoundException 404",
          e1 == ("ResourceNotFoundException", "Unknown", 404) and e2 == e1, (e1, e2))
cn = boto3.client("cloudwatch", endpoint_url=ep, region_name="cn-north-1")
cn.put_metric_alarm(AlarmName="cn", Namespace="App", MetricName="A", Statistic="Sum", Period=60,
                    EvaluationPeriods=1, Threshold=1, ComparisonOperator="GreaterThanThreshold")
got_arn = cn.describe_alarms(AlarmNames=["cn"])["MetricAlarms"][0]["AlarmArn"]
tap.check("an alarm in cn-north-1 has partition aws-cn", got_arn.startswith("arn:aws-cn:cloudwatch:cn-north-1:"), got_arn)

# target tracking on a math metric
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678", InstanceType="t3.micro")
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc", MinSize=0, MaxSize=4,
                              DesiredCapacity=0, AvailabilityZones=["us-east-1a"])
metrics = [{"Id": "q", "MetricStat": {"Metric": {"Namespace": "App", "MetricName": "Queue",
                                                 "Dimensions": [{"Name": "Group", "Value": "g"}]}, "Stat": "Sum"},
            "ReturnData": False},
           {"Id": "e1", "Expression": "q * 2", "Label": "backlog per instance", "ReturnData": True}]
asg.put_scaling_policy(AutoScalingGroupName="g", PolicyName="tt", PolicyType="TargetTrackingScaling",
                       TargetTrackingConfiguration={"TargetValue": 10.0,
                                                    "CustomizedMetricSpecification": {"Metrics": metrics}})
pol = asg.describe_policies(AutoScalingGroupName="g")["ScalingPolicies"][0]
echo = pol["TargetTrackingConfiguration"]["CustomizedMetricSpecification"].get("Metrics")
tap.check("a target-tracking policy on a math metric is accepted and echoed",
          echo and echo[1]["Expression"] == "q * 2" and echo[0]["MetricStat"]["Metric"]["MetricName"] == "Queue", echo)
high = [a for a in cw.describe_alarms()["MetricAlarms"] if a["AlarmName"].startswith("TargetTracking-g-AlarmHigh")]
tap.check("its High alarm watches the expression", high and high[0].get("Metrics") and
          high[0]["Metrics"][1]["Expression"] == "q * 2", [a["AlarmName"] for a in high])

for _ in range(4):
    cw.put_metric_data(Namespace="App", MetricData=[{"MetricName": "Queue", "Dimensions": [{"Name": "Group", "Value": "g"}],
                       "Timestamp": datetime.datetime.fromtimestamp(clock() / 1000, datetime.timezone.utc), "Value": 20}])
    clock(60)
desired = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g"])["AutoScalingGroups"][0]["DesiredCapacity"]
if desired != 4:
    h = cw.describe_alarms(AlarmNames=[high[0]["AlarmName"]])["MetricAlarms"][0]
    print("# high:", h["StateValue"], h["StateReason"])
    for it in cw.describe_alarm_history(AlarmName=high[0]["AlarmName"])["AlarmHistoryItems"][:5]:
        print("# hist:", it["HistorySummary"])
    for a in asg.describe_scaling_activities(AutoScalingGroupName="g")["Activities"][:5]:
        print("# act:", a["Description"], a.get("StatusMessage"))
tap.check("the math metric (20 * 2 = 40 against 10) scales the empty group out through the policy",
          desired >= 1, desired)
e = error_of(lambda: asg.put_scaling_policy(AutoScalingGroupName="g", PolicyName="tt2", PolicyType="TargetTrackingScaling",
             TargetTrackingConfiguration={"TargetValue": 10.0, "CustomizedMetricSpecification": {
                 "Metrics": metrics, "MetricName": "Queue", "Namespace": "App", "Statistic": "Sum"}}))
tap.check("Metrics with MetricName: ValidationError", e and e[0] == "ValidationError", e)
sys.exit(tap.failed)
PY
rc=$?
[ "$rc" = 0 ] || failed=1
finish
