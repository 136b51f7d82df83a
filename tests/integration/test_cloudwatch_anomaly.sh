#!/usr/bin/env bash
# Anomaly detection through real clients (docs/cloudwatch.md "Anomaly detection"): boto3
# puts a detector and feeds 26 hours of history; the detector's StateValue follows the
# history (PENDING_TRAINING, TRAINED_INSUFFICIENT_DATA, TRAINED); GetMetricData's
# ANOMALY_DETECTION_BAND gives the band the documented model gives (recomputed here from the
# same points), with its labels; an alarm on the band (ThresholdMetricId) goes to ALARM on an
# outlier and back to OK on the emulator's manual clock; AWS's error texts, nothing stored on
# an error; paging; the aws CLI puts and describes a metric math detector with
# MetricCharacteristics and ExcludedTimeRanges; detectors survive a kill -9 with --state.
# Prints TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

need python3 "python3 not installed"
need aws "aws CLI not installed"

start_emu emu --clock manual || {
    notok "emulator starts"
    finish
}
EMU_PID=$LAST
python3 - "$EP" <<'PY'
import datetime, json, statistics, sys, urllib.request
import boto3, botocore
import tap

ep = sys.argv[1]
cw = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1")
MIN = 60000


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


def dt(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)


def detectors(**kw):
    return cw.describe_anomaly_detectors(**kw)["AnomalyDetectors"]


def state():
    return detectors(Namespace="App")[0]["StateValue"]


cw.put_anomaly_detector(SingleMetricAnomalyDetector={"Namespace": "App", "MetricName": "Lat", "Stat": "Average",
                                                     "Dimensions": [{"Name": "Svc", "Value": "web"}]})
d = detectors()
tap.check("PutAnomalyDetector: described with SingleMetricAnomalyDetector and the deprecated members",
          len(d) == 1 and d[0]["SingleMetricAnomalyDetector"]["MetricName"] == "Lat" and d[0]["Stat"] == "Average"
          and d[0]["Dimensions"] == [{"Name": "Svc", "Value": "web"}], d)
tap.check("no history yet: PENDING_TRAINING", state() == "PENDING_TRAINING", state())

now = clock() // MIN * MIN
pts = {}  # minute timestamp -> value: 26 hours of 10, 20, 10, 20, ...
for i in range(26 * 60, 0, -1):
    pts[now - i * MIN] = 10.0 if i % 2 else 20.0
dims = [{"Name": "Svc", "Value": "web"}]


def put(items):
    items = list(items)
    for k in range(0, len(items), 1000):
        cw.put_metric_data(Namespace="App", MetricData=[
            {"MetricName": "Lat", "Dimensions": dims, "Timestamp": dt(t + 5000), "Value": v} for t, v in items[k:k + 1000]])


put(sorted(pts.items())[-30:])
tap.check("30 minutes of history: TRAINED_INSUFFICIENT_DATA", state() == "TRAINED_INSUFFICIENT_DATA", state())
put(sorted(pts.items())[:-30])
tap.check("26 hours of history: TRAINED", state() == "TRAINED", state())


# the documented model (scaler/anomaly.h), recomputed from the same points
def band(t, k=2.0):
    train = [(ts, v) for ts, v in sorted(pts.items()) if t - 14 * 86400000 <= ts < t]
    span = t - train[0][0]
    hod = lambda ms: (ms // 3600000) % 24
    how = lambda ms: (ms // 3600000 + 72) % 168
    sel = []
    if span >= 7 * 86400000:
        sel = [v for ts, v in train if how(ts) == how(t)]
    if len(sel) < 3 and span >= 86400000:
        sel = [v for ts, v in train if hod(ts) == hod(t)]
    if len(sel) < 3:
        sel = [v for _, v in train]
    sel.sort()
    med = statistics.median(sel)
    mad = statistics.median(abs(v - med) for v in sel)
    q = lambda p: sel[int(p * (len(sel) - 1))] + (p * (len(sel) - 1) - int(p * (len(sel) - 1))) * (
        sel[min(int(p * (len(sel) - 1)) + 1, len(sel) - 1)] - sel[int(p * (len(sel) - 1))])
    spread = max(1.4826 * mad, (q(0.75) - q(0.25)) / 1.349, 0.01 * abs(med))
    return med - k * spread, med + k * spread


m1 = {"Id": "m1", "MetricStat": {"Metric": {"Namespace": "App", "MetricName": "Lat", "Dimensions": dims},
                                 "Period": 60, "Stat": "Average"}}
r = cw.get_metric_data(MetricDataQueries=[m1, {"Id": "ad1", "Expression": "ANOMALY_DETECTION_BAND(m1, 2)"}],
                       StartTime=dt(now - 10 * MIN), EndTime=dt(now), ScanBy="TimestampAscending")["MetricDataResults"]
labels = [x["Label"] for x in r]
tap.check("GetMetricData: the metric, then the band as two results 'ad1 Lower' and 'ad1 Upper'",
          labels == ["Lat", "ad1 Lower", "ad1 Upper"] and [x["Id"] for x in r] == ["m1", "ad1", "ad1"], labels)
ok = len(r) == 3 and len(r[1]["Values"]) == 10
worst = 0.0
for i, t in enumerate(r[1]["Timestamps"] if ok else []):
    lo, hi = band(int(t.timestamp() * 1000))
    worst = max(worst, abs(lo - r[1]["Values"][i]), abs(hi - r[2]["Values"][i]))
tap.check("the band's 10 points are the documented model's (daily basis, median -+ 2 spreads)",
          ok and worst < 1e-9, (ok, worst))
r = cw.get_metric_data(MetricDataQueries=[dict(m1, ReturnData=False),
                                          {"Id": "ad1", "Expression": "ANOMALY_DETECTION_BAND(m1)", "Label": "Lat (expected)"}],
                       StartTime=dt(now - 5 * MIN), EndTime=dt(now))["MetricDataResults"]
tap.check("a Label names both edges; the default width is 2", [x["Label"] for x in r] ==
          ["Lat (expected) Lower", "Lat (expected) Upper"] and abs(r[0]["Values"][0] - band(
              int(r[0]["Timestamps"][0].timestamp() * 1000))[0]) < 1e-9, [x["Label"] for x in r])
e = error_of(lambda: cw.get_metric_data(MetricDataQueries=[m1, {"Id": "ad1", "Expression": "ANOMALY_DETECTION_BAND(m1, -1)"}],
                                        StartTime=dt(now - 5 * MIN), EndTime=dt(now)))
tap.check("a negative width: Invalid arguments", e and e[0] == "ValidationError" and
          "Invalid arguments for ANOMALY_DETECTION_BAND" in e[1], e)

# an alarm on the band
metrics = [dict(m1, ReturnData=True), {"Id": "ad1", "Expression": "ANOMALY_DETECTION_BAND(m1, 2)", "Label": "expected"}]
cw.put_metric_alarm(AlarmName="lat-band", Metrics=metrics, ThresholdMetricId="ad1", EvaluationPeriods=1,
                    ComparisonOperator="LessThanLowerOrGreaterThanUpperThreshold")
al = cw.describe_alarms(AlarmNames=["lat-band"])["MetricAlarms"][0]
tap.check("DescribeAlarms echoes ThresholdMetricId, no Threshold",
          al.get("ThresholdMetricId") == "ad1" and "Threshold" not in al and al["Metrics"][1]["Expression"].startswith("ANOMALY"), al)


def tick(v):
    t = clock() // MIN * MIN
    pts[t] = v
    put([(t, v)])
    clock(60)
    return cw.describe_alarms(AlarmNames=["lat-band"])["MetricAlarms"][0]


s1 = tick(10.0)["StateValue"]
a2 = tick(500.0)
s3 = tick(20.0)["StateValue"]
tap.check("the band alarm: a normal point OK, an outlier ALARM, a normal point OK",
          (s1, a2["StateValue"], s3) == ("OK", "ALARM", "OK"), (s1, a2["StateValue"], s3, a2["StateReason"]))
tap.check("its StateReason names the band's edges", a2["StateReason"].startswith(
    "Thresholds Crossed: 1 out of the last 1 datapoints [500.0 (") and "greater than the upper thresholds [" in a2["StateReason"],
    a2["StateReason"])

# errors: AWS's texts; nothing stored
bad = [
    ("ranges without ThresholdMetricId", dict(ComparisonOperator="GreaterThanUpperThreshold"),
     "ComparisonOperators for ranges require ThresholdMetricId to be set"),
    ("Threshold and ThresholdMetricId", dict(ComparisonOperator="GreaterThanUpperThreshold", ThresholdMetricId="ad1", Threshold=1.0),
     "Threshold and ThresholdMetricId cannot both be set"),
    ("ThresholdMetricId naming no band", dict(ComparisonOperator="GreaterThanUpperThreshold", ThresholdMetricId="m1"),
     "Invalid metrics list"),
    ("an Auto Scaling action", dict(ComparisonOperator="GreaterThanUpperThreshold", ThresholdMetricId="ad1", AlarmActions=[
        "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:1:autoScalingGroupName/g:policyName/p"]),
     "Alarms based on anomaly detection models cannot have Auto Scaling actions."),
]
for what, kw, text in bad:
    e = error_of(lambda: cw.put_metric_alarm(AlarmName="bad", Metrics=metrics, EvaluationPeriods=1, **kw))
    tap.check("PutMetricAlarm, %s: ValidationError %r" % (what, text), e == ("ValidationError", text, 400), e)
tap.check("no alarm stored by the failed puts", not cw.describe_alarms(AlarmNames=["bad"])["MetricAlarms"])
n0 = len(detectors(AnomalyDetectorTypes=["SINGLE_METRIC", "METRIC_MATH"]))
e = error_of(lambda: cw.put_anomaly_detector(
    SingleMetricAnomalyDetector={"Namespace": "App", "MetricName": "Lat", "Stat": "Average"},
    MetricMathAnomalyDetector={"MetricDataQueries": [dict(m1, ReturnData=False), {"Id": "e1", "Expression": "m1 * 2"}]}))
tap.check("both kinds of detector: InvalidParameterCombination", e and e[0] == "InvalidParameterCombination", e)
e = error_of(lambda: cw.put_anomaly_detector(SingleMetricAnomalyDetector={"Namespace": "App", "MetricName": "Lat",
             "Stat": "Average"}, Configuration={"ExcludedTimeRanges": [{"StartTime": dt(now), "EndTime": dt(now - MIN)}]}))
tap.check("an excluded range ending before it starts: InvalidParameterValue",
          e and e[0] == "InvalidParameterValue" and "must be before EndTime" in e[1], e)
e = error_of(lambda: cw.delete_anomaly_detector(SingleMetricAnomalyDetector={"Namespace": "App", "MetricName": "Nope",
                                                                             "Stat": "Average"}))
tap.check("DeleteAnomalyDetector of none: ResourceNotFoundException 404", e and e[0] == "ResourceNotFoundException"
          and e[2] == 404, e)
tap.check("no detector added or removed by the errors", len(detectors(AnomalyDetectorTypes=["SINGLE_METRIC", "METRIC_MATH"])) == n0)

# an update keeps one detector; paging
cw.put_anomaly_detector(SingleMetricAnomalyDetector={"Namespace": "App", "MetricName": "Lat", "Stat": "Average",
                                                     "Dimensions": dims},
                        Configuration={"ExcludedTimeRanges": [{"StartTime": dt(now - 3 * 3600000), "EndTime": dt(now - 2 * 3600000)}],
                                       "MetricTimezone": "UTC"})
d = detectors(MetricName="Lat")
tap.check("a second put of the same metric and stat updates it", len(d) == 1 and
          len(d[0]["Configuration"]["ExcludedTimeRanges"]) == 1, d)
for i in range(4):
    cw.put_anomaly_detector(Namespace="Other", MetricName="M%d" % i, Stat="Sum")
p1 = cw.describe_anomaly_detectors(MaxResults=2)
p2 = cw.describe_anomaly_detectors(MaxResults=2, NextToken=p1["NextToken"])
p3 = cw.describe_anomaly_detectors(MaxResults=2, NextToken=p2["NextToken"])
tap.check("paging: 5 single-metric detectors over pages of 2", [len(p["AnomalyDetectors"]) for p in (p1, p2, p3)] == [2, 2, 1]
          and "NextToken" not in p3, [len(p["AnomalyDetectors"]) for p in (p1, p2, p3)])
e = error_of(lambda: cw.describe_anomaly_detectors(NextToken="garbage"))
tap.check("a bad NextToken: InvalidNextToken", e and e[0] == "InvalidNextToken", e)
sys.exit(tap.failed)
PY
rc=$?
[ "$rc" = 0 ] || failed=1

# --- the aws CLI: a metric math detector; MetricCharacteristics over the query protocol (curl) -----
export AWS_DEFAULT_REGION=us-east-1
Q='[{"Id":"m1","MetricStat":{"Metric":{"Namespace":"App","MetricName":"Lat"},"Period":60,"Stat":"Sum"},"ReturnData":false},{"Id":"e1","Expression":"m1 * 2"}]'
check "aws CLI: put-anomaly-detector --metric-math-anomaly-detector --configuration" \
    aws --endpoint-url "$EP" cloudwatch put-anomaly-detector \
    --metric-math-anomaly-detector "{\"MetricDataQueries\":$Q}" \
    --configuration '{"ExcludedTimeRanges":[{"StartTime":"2026-01-01T00:00:00Z","EndTime":"2026-01-01T01:00:00Z"}]}'
check "aws CLI: describe-anomaly-detectors --anomaly-detector-types METRIC_MATH echoes it" bash -c \
    "aws --endpoint-url $EP cloudwatch describe-anomaly-detectors --anomaly-detector-types METRIC_MATH --output json >$TMP/math.json &&
     python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[\"AnomalyDetectors\"]; assert len(d)==1, d; d=d[0]; \
assert d[\"MetricMathAnomalyDetector\"][\"MetricDataQueries\"][1][\"Expression\"]==\"m1 * 2\", d; \
assert len(d[\"Configuration\"][\"ExcludedTimeRanges\"])==1, d; assert \"Namespace\" not in d, d' $TMP/math.json"
check "query protocol (curl): PutAnomalyDetector with MetricCharacteristics.PeriodicSpikes" \
    curl -sf "$EP/" --data "Action=PutAnomalyDetector&Version=2010-08-01&SingleMetricAnomalyDetector.Namespace=Spiky&SingleMetricAnomalyDetector.MetricName=Jobs&SingleMetricAnomalyDetector.Stat=Sum&MetricCharacteristics.PeriodicSpikes=true"
check "query protocol (curl): DescribeAnomalyDetectors echoes PeriodicSpikes true" bash -c \
    "curl -sf '$EP/' --data 'Action=DescribeAnomalyDetectors&Version=2010-08-01&Namespace=Spiky' | grep -q '<PeriodicSpikes>true</PeriodicSpikes>'"
check "aws CLI: delete-anomaly-detector of the math detector" \
    aws --endpoint-url "$EP" cloudwatch delete-anomaly-detector --metric-math-anomaly-detector "{\"MetricDataQueries\":$Q}"
check "aws CLI: it is gone" bash -c \
    "test \"\$(aws --endpoint-url $EP cloudwatch describe-anomaly-detectors --anomaly-detector-types METRIC_MATH --query 'length(AnomalyDetectors)' --output text)\" = 0"
kill -TERM -- "-$EMU_PID" 2>/dev/null || true
wait "$EMU_PID" 2>/dev/null || true

# --- detectors survive a kill -9 with --state ------------------------------------------------------
start_emu st1 --quiet --state "$TMP/state.json" || {
    notok "emulator with --state starts"
    finish
}
PID=$LAST
check "a detector with a configuration is put" aws --endpoint-url "$EP" cloudwatch put-anomaly-detector \
    --namespace App --metric-name Lat --stat p90 --configuration '{"MetricTimezone":"UTC"}'
kill -KILL -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
start_emu st2 --quiet --state "$TMP/state.json" || {
    notok "emulator restarts from --state"
    finish
}
check "after kill -9 and a restart the detector is there, with its configuration" bash -c \
    "test \"\$(aws --endpoint-url $EP cloudwatch describe-anomaly-detectors --query 'AnomalyDetectors[0].[Stat,Configuration.MetricTimezone]' --output text)\" = 'p90	UTC'"
finish
