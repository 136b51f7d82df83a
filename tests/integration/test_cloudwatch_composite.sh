#!/usr/bin/env bash
# Composite alarms and dashboards through real clients (docs/cloudwatch.md "Composite
# alarms", "Dashboards"): Debian's boto3 (query: its model predates JSON 1.0 for
# CloudWatch) and the same botocore forced to query, the aws CLI (JSON 1.0), and the AWS SDK
# for JavaScript v3 over JSON 1.0 and RPC v2 CBOR (js/composite.mjs). A composite over
# two metric alarms follows their inputs (PutMetricData drives them on the emulator's
# manual clock), with AWS's reasons and history; ActionsSuppressor holds its actions for
# the wait period; an Auto Scaling action of a composite never runs the policy; the
# deletion rules and the rule errors; dashboards round-trip with validation messages for a
# bad body; an alarm mute rule (aws CLI) mutes a composite's actions while ACTIVE;
# composites and dashboards survive a kill -9 with --state. Prints TAP lines.
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
import datetime, json, sys, urllib.request
import boto3, botocore
from botocore import parsers, serialize
import tap

ep = sys.argv[1]
print("# botocore", botocore.__version__, "protocol", boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1").meta.service_model.protocol)
SNS = "arn:aws:sns:us-east-1:123456789012:ops"


def client(proto=None):
    c = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1")
    if proto:  # the same botocore, another of the model's protocols
        c.meta.service_model.__dict__["resolved_protocol"] = proto
        c._serializer = serialize.create_serializer(proto, include_validation=True)
        c._response_parser = parsers.create_parser(proto)
    return c


cw = client()


def clock(advance_s=None):
    req = urllib.request.Request(ep + "/_scalelab/clock",
                                 data=None if advance_s is None else json.dumps({"advance_s": advance_s}).encode())
    return json.load(urllib.request.urlopen(req))["now_ms"]


def now():
    return datetime.datetime.fromtimestamp(clock() / 1000, datetime.timezone.utc)


def error_of(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    return None


def metric_alarm(c, name, tmd="notBreaching"):
    c.put_metric_alarm(AlarmName=name, Namespace="App", MetricName=name, Statistic="Maximum", Period=60,
                       EvaluationPeriods=1, Threshold=10, ComparisonOperator="GreaterThanThreshold",
                       TreatMissingData=tmd)


def put(name, v):
    cw.put_metric_data(Namespace="App", MetricData=[{"MetricName": name, "Timestamp": now(), "Value": v}])


def comp(c, name):
    r = c.describe_alarms(AlarmNames=[name], AlarmTypes=["CompositeAlarm"])["CompositeAlarms"]
    return r[0] if r else None


def actions(c, name):
    return [h["HistorySummary"] for h in c.describe_alarm_history(AlarmName=name, HistoryItemType="Action")["AlarmHistoryItems"]]


# --- a composite over two metric alarms follows their inputs (JSON 1.0) -----------------
clock(60 - (clock() // 1000) % 60 + 5)  # 5 s into a minute
metric_alarm(cw, "cpu")
metric_alarm(cw, "mem")
cw.put_composite_alarm(AlarmName="both", AlarmRule='ALARM("cpu") AND ALARM(mem)', AlarmActions=[SNS])
c = comp(cw, "both")
tap.check("a new composite is evaluated at once: OK, AWS's creation reason",
          c["StateValue"] == "OK" and c["StateReason"].endswith(":alarm:both was created and its alarm rule evaluates to OK"), c["StateReason"])
tap.check("DescribeAlarms without AlarmTypes lists only metric alarms",
          not cw.describe_alarms()["CompositeAlarms"] and len(cw.describe_alarms()["MetricAlarms"]) == 2)
put("cpu", 50)
put("mem", 1)
clock(60)
tap.check("cpu breaches alone: cpu ALARM, the composite stays OK",
          cw.describe_alarms(AlarmNames=["cpu"])["MetricAlarms"][0]["StateValue"] == "ALARM" and comp(cw, "both")["StateValue"] == "OK")
put("cpu", 50)
put("mem", 60)
clock(60)
c = comp(cw, "both")
tap.check("mem breaches too: the composite goes to ALARM, reason names mem's transition",
          c["StateValue"] == "ALARM" and ":alarm:mem transitioned to ALARM at " in c["StateReason"] and c["StateReason"].endswith(" UTC"), c["StateReason"])
tap.check("its reason data lists the triggering alarm", '"triggeringAlarms":[{"arn":"arn:aws:cloudwatch:us-east-1:123456789012:alarm:mem"' in c["StateReasonData"], c["StateReasonData"])
tap.check("its SNS action ran (Action history item)", actions(cw, "both") == ["Successfully executed action " + SNS], actions(cw, "both"))
put("cpu", 1)
put("mem", 60)
clock(60)
tap.check("cpu recovers: the composite is OK again", comp(cw, "both")["StateValue"] == "OK")
h = cw.describe_alarm_history(AlarmName="both", AlarmTypes=["CompositeAlarm"])["AlarmHistoryItems"]
tap.check("history: created, 3 state updates, 1 action, all AlarmType CompositeAlarm",
          len(h) == 5 and all(i["AlarmType"] == "CompositeAlarm" for i in h) and
          [i["HistoryItemType"] for i in h].count("StateUpdate") == 3, [(i["HistoryItemType"], i["HistorySummary"]) for i in h])
tap.check("DescribeAlarmHistory AlarmTypes MetricAlarm leaves composites out",
          all(i["AlarmType"] == "MetricAlarm" for i in cw.describe_alarm_history(AlarmTypes=["MetricAlarm"])["AlarmHistoryItems"]))

# --- children and parents, composites of composites -------------------------------------
cb = client()
cb.put_composite_alarm(AlarmName="top", AlarmRule="ALARM(both) OR ALARM(arn:aws:cloudwatch:us-east-1:123456789012:alarm:cpu)")
kids = cb.describe_alarms(ChildrenOfAlarmName="top")
tap.check("ChildrenOfAlarmName gives cpu (metric) and both (composite), name/ARN/state only",
          [a["AlarmName"] for a in kids["MetricAlarms"]] == ["cpu"] and [a["AlarmName"] for a in kids["CompositeAlarms"]] == ["both"]
          and "AlarmRule" not in kids["CompositeAlarms"][0] and "StateValue" in kids["MetricAlarms"][0], kids)
par = cb.describe_alarms(ParentsOfAlarmName="cpu")
tap.check("ParentsOfAlarmName gives both and top", [a["AlarmName"] for a in par["CompositeAlarms"]] == ["both", "top"], par)
e = error_of(lambda: cb.describe_alarms(ParentsOfAlarmName="cpu", StateValue="OK"))
tap.check("ParentsOfAlarmName with another filter: ValidationError", e and e[0] == "ValidationError", e)
put("cpu", 50)
put("mem", 60)
clock(60)
tap.check("a composite of composites follows: both and top ALARM",
          comp(cb, "both")["StateValue"] == "ALARM" and comp(cb, "top")["StateValue"] == "ALARM")

# --- AT_LEAST(M, STATE, (list)): a count or a percentage of the listed alarms -------------
for n in ("az1", "az2", "az3"):
    metric_alarm(cw, n, "ignore")
    cw.set_alarm_state(AlarmName=n, StateValue="OK", StateReason="test")
cw.put_composite_alarm(AlarmName="azs", AlarmRule="AT_LEAST(2, ALARM, (az1, az2, az3))")
cw.put_composite_alarm(AlarmName="azs-pct", AlarmRule='AT_LEAST(60%, NOT OK, ("az1", "az2", "az3"))')
cw.set_alarm_state(AlarmName="az1", StateValue="ALARM", StateReason="test")
tap.check("AT_LEAST(2, ALARM, ...): one of three in ALARM: OK",
          comp(cw, "azs")["StateValue"] == "OK" and comp(cw, "azs-pct")["StateValue"] == "OK")
cw.set_alarm_state(AlarmName="az3", StateValue="ALARM", StateReason="test")
c = comp(cw, "azs")
tap.check("... two of three: ALARM, and 60% NOT OK too, the reason names az3",
          c["StateValue"] == "ALARM" and comp(cw, "azs-pct")["StateValue"] == "ALARM" and ":alarm:az3 transitioned to ALARM" in c["StateReason"],
          c["StateReason"])
tap.check("ChildrenOfAlarmName lists AT_LEAST's alarms",
          [a["AlarmName"] for a in cw.describe_alarms(ChildrenOfAlarmName="azs")["MetricAlarms"]] == ["az1", "az2", "az3"])
e = error_of(lambda: cw.put_composite_alarm(AlarmName="x", AlarmRule="AT_LEAST(4, ALARM, (az1, az2, az3))"))
tap.check("AT_LEAST with M above the list's length: ValidationError naming it",
          e and e[0] == "ValidationError" and "AT_LEAST count is more than the alarms listed" in e[1], e)
cw.delete_alarms(AlarmNames=["azs"])
cw.delete_alarms(AlarmNames=["azs-pct"])
cw.delete_alarms(AlarmNames=["az1", "az2", "az3"])

# --- rule errors and deletion rules (query) ---------------------------------------------
q = client("query")
e = error_of(lambda: q.put_composite_alarm(AlarmName="x", AlarmRule="ALARM(cpu) OR ALARM(gone)"))
tap.check("query: a missing alarm in the rule: AWS's ValidationError text",
          e == ("ValidationError", "Could not save the composite alarm as alarms [gone] in the alarm rule do not exist", 400), e)
e = error_of(lambda: q.put_composite_alarm(AlarmName="top", AlarmRule="ALARM(top) OR ALARM(cpu)"))
tap.check("query: a rule naming its own composite is refused, the rule stays",
          e and e[0] == "ValidationError" and "itself" in e[1] and comp(q, "top")["AlarmRule"].startswith("ALARM(both)"), e)
e = error_of(lambda: q.put_composite_alarm(AlarmName="x", AlarmRule="ALARM(cpu) AND"))
tap.check("query: a rule that does not parse: ValidationError", e and e[0] == "ValidationError" and e[1].startswith("Invalid alarm rule"), e)
e = error_of(lambda: q.delete_alarms(AlarmNames=["cpu"]))
tap.check("query: deleting a child of composites: AWS's text, nothing deleted",
          e == ("ValidationError", "Cannot delete cpu as there are composite alarm(s) depending on it.", 400)
          and q.describe_alarms(AlarmNames=["cpu"])["MetricAlarms"], e)
e = error_of(lambda: q.delete_alarms(AlarmNames=["both", "top"]))
tap.check("query: two composites in one DeleteAlarms: ValidationError, nothing deleted",
          e and e[0] == "ValidationError" and comp(q, "both") and comp(q, "top"), e)

# --- ActionsSuppressor: held for the wait period, then run ------------------------------
metric_alarm(cw, "disk", "ignore")
metric_alarm(cw, "maint", "ignore")
cw.set_alarm_state(AlarmName="disk", StateValue="OK", StateReason="test")
cw.set_alarm_state(AlarmName="maint", StateValue="OK", StateReason="test")
cw.put_composite_alarm(AlarmName="svc", AlarmRule="ALARM(disk)", AlarmActions=[SNS], ActionsSuppressor="maint",
                       ActionsSuppressorWaitPeriod=120, ActionsSuppressorExtensionPeriod=60)
cw.set_alarm_state(AlarmName="disk", StateValue="ALARM", StateReason="test")
clock(1)
c = comp(cw, "svc")
tap.check("suppressor: the composite is ALARM with its actions held by WaitPeriod",
          c["StateValue"] == "ALARM" and c.get("ActionsSuppressedBy") == "WaitPeriod"
          and c.get("ActionsSuppressedReason") == "Actions suppressed by WaitPeriod" and not actions(cw, "svc"), c)
clock(100)
held = actions(cw, "svc")
clock(20)
tap.check("suppressor: nothing runs within the 120 s wait; the action runs when it ends",
          held == [] and actions(cw, "svc") == ["Successfully executed action " + SNS] and "ActionsSuppressedBy" not in comp(cw, "svc"),
          (held, actions(cw, "svc")))
cw.set_alarm_state(AlarmName="disk", StateValue="OK", StateReason="test")
cw.set_alarm_state(AlarmName="maint", StateValue="ALARM", StateReason="maintenance")
cw.set_alarm_state(AlarmName="disk", StateValue="ALARM", StateReason="test")
clock(300)
tap.check("suppressor in ALARM: held by Alarm however long", comp(cw, "svc").get("ActionsSuppressedBy") == "Alarm"
          and len(actions(cw, "svc")) == 1, comp(cw, "svc").get("ActionsSuppressedBy"))
cw.set_alarm_state(AlarmName="maint", StateValue="OK", StateReason="done")
clock(1)
ext = comp(cw, "svc").get("ActionsSuppressedBy")
clock(60)
tap.check("suppressor back to OK: ExtensionPeriod, then the action runs", ext == "ExtensionPeriod" and len(actions(cw, "svc")) == 2,
          (ext, actions(cw, "svc")))

# --- an Auto Scaling action of a composite never runs the policy -------------------------
asg = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1")
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678", InstanceType="t3.micro")
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc", MinSize=0, MaxSize=3,
                              DesiredCapacity=0, AvailabilityZones=["us-east-1a"])
pol = asg.put_scaling_policy(AutoScalingGroupName="g", PolicyName="up", AdjustmentType="ChangeInCapacity",
                             ScalingAdjustment=1)["PolicyARN"]
cw.put_composite_alarm(AlarmName="scale", AlarmRule="ALARM(disk)", AlarmActions=[pol])
clock(61)
desired = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g"])["AutoScalingGroups"][0]["DesiredCapacity"]
acts = actions(cw, "scale")
tap.check("a composite's Auto Scaling action does not scale (AWS: composite alarms can't trigger Auto Scaling actions)",
          comp(cw, "scale")["StateValue"] == "ALARM" and desired == 0 and acts and "can't trigger Auto Scaling actions" in acts[0],
          (desired, acts))

# --- dashboards ---------------------------------------------------------------------------
body = json.dumps({"start": "-PT6H", "widgets": [
    {"type": "metric", "x": 0, "y": 0, "width": 12, "height": 6,
     "properties": {"metrics": [["App", "cpu"]], "region": "us-east-1", "stat": "Maximum", "period": 60}},
    {"type": "text", "x": 0, "y": 7, "width": 3, "height": 3, "properties": {"markdown": "Hello"}}]})
r = cw.put_dashboard(DashboardName="ops-main", DashboardBody=body)
tap.check("PutDashboard: a valid body, no validation messages", r["DashboardValidationMessages"] == [], r)
cb.put_dashboard(DashboardName="ops-2", DashboardBody='{"widgets":[]}')
q.put_dashboard(DashboardName="other", DashboardBody='{"widgets":[]}')
g = q.get_dashboard(DashboardName="ops-main")
tap.check("GetDashboard (query): the body byte for byte, a global ARN",
          g["DashboardBody"] == body and g["DashboardArn"] == "arn:aws:cloudwatch::123456789012:dashboard/ops-main", g)
ents = cb.list_dashboards(DashboardNamePrefix="ops")["DashboardEntries"]
tap.check("ListDashboards with a prefix: names, Size, LastModified",
          [x["DashboardName"] for x in ents] == ["ops-2", "ops-main"] and ents[1]["Size"] == len(body) and ents[1]["LastModified"].year >= 2026, ents)
e = error_of(lambda: cw.put_dashboard(DashboardName="bad", DashboardBody="{not json"))
tap.check("a body that is not JSON: InvalidParameterInput with its validation message",
          e and e[0] == "InvalidParameterInput" and e[2] == 400 and "The field DashboardBody must be a valid JSON object" in e[1], e)
e = error_of(lambda: cw.put_dashboard(DashboardName="ops-main", DashboardBody='{"widgets":[{"type":"metric","properties":{}}]}'))
tap.check("a metric widget without metrics: AWS's three messages, the stored body unchanged",
          e and e[0] == "InvalidParameterInput" and e[1].startswith("The dashboard body is invalid, there are 3 validation errors:")
          and "\"dataPath\": \"/widgets/0/properties\"" in e[1] and cw.get_dashboard(DashboardName="ops-main")["DashboardBody"] == body, e)
e = error_of(lambda: cw.put_dashboard(DashboardName="x", DashboardBody='{"widgets":[{"type":"gauge"}]}'))
tap.check("an unknown widget type: Should be equal to one of the allowed values",
          e and "/widgets/0/type" in e[1] and "Should be equal to one of the allowed values" in e[1], e)
e = error_of(lambda: cw.put_dashboard(DashboardName="x", DashboardBody='{"start":"-PT1H"}'))
tap.check("no widgets: Should have required property 'widgets'", e and "Should have required property 'widgets'" in e[1], e)
e = error_of(lambda: cw.get_dashboard(DashboardName="nope"))
tap.check("GetDashboard of a missing one: ResourceNotFound 404", e and e[0] == "ResourceNotFound" and e[2] == 404, e)
e = error_of(lambda: cw.delete_dashboards(DashboardNames=["ops-2", "nope"]))
tap.check("DeleteDashboards naming a missing one: ResourceNotFound, nothing deleted",
          e and e[0] == "ResourceNotFound" and "[nope]" in e[1] and len(cw.list_dashboards()["DashboardEntries"]) == 3, e)
cw.delete_dashboards(DashboardNames=["ops-2", "other"])
tap.check("DeleteDashboards", [x["DashboardName"] for x in cw.list_dashboards()["DashboardEntries"]] == ["ops-main"])

# dashboards are the account's, not a region's (AWS: "All dashboards in your account are
# global, not region-specific"): eu-west-1 has no world yet, ap-southeast-2 neither
eu = boto3.client("cloudwatch", endpoint_url=ep, region_name="eu-west-1")
ap = boto3.client("cloudwatch", endpoint_url=ep, region_name="ap-southeast-2")
g = eu.get_dashboard(DashboardName="ops-main")
tap.check("GetDashboard from another region: the same dashboard, its ARN without a region",
          g["DashboardBody"] == body and g["DashboardArn"] == "arn:aws:cloudwatch::123456789012:dashboard/ops-main", g)
eu.put_dashboard(DashboardName="eu-made", DashboardBody='{"widgets":[]}')
tap.check("PutDashboard in eu-west-1: ListDashboards in us-east-1 and ap-southeast-2 list it",
          [x["DashboardName"] for x in cw.list_dashboards()["DashboardEntries"]] == ["eu-made", "ops-main"]
          and [x["DashboardName"] for x in ap.list_dashboards()["DashboardEntries"]] == ["eu-made", "ops-main"])
ap.delete_dashboards(DashboardNames=["eu-made"])
e = error_of(lambda: eu.get_dashboard(DashboardName="eu-made"))
tap.check("DeleteDashboards in ap-southeast-2: gone from eu-west-1 and us-east-1",
          e and e[0] == "ResourceNotFound" and [x["DashboardName"] for x in cw.list_dashboards()["DashboardEntries"]] == ["ops-main"], e)
cn = boto3.client("cloudwatch", endpoint_url=ep, region_name="cn-north-1")
e = error_of(lambda: cn.get_dashboard(DashboardName="ops-main"))
tap.check("another partition (cn-north-1) is another set: ResourceNotFound", e and e[0] == "ResourceNotFound", e)
adm = json.load(urllib.request.urlopen(ep + "/_scalelab/dashboards"))["dashboards"]
tap.check("GET /_scalelab/dashboards: each dashboard once (account, partition), the metric widget drawn from its region",
          [(d["account"], d["partition"], d["name"]) for d in adm] == [("123456789012", "aws", "ops-main")]
          and adm[0]["widgets"][0]["svg"].endswith("?account=123456789012&region=us-east-1"), adm)
svg = urllib.request.urlopen(ep + adm[0]["widgets"][0]["svg"]).read()
tap.check("the widget's SVG draws", svg.startswith(b"<svg") or b"<svg" in svg[:200], svg[:80])
sys.exit(tap.failed)
PY
rc=$?
[ "$rc" = 0 ] || failed=1

# --- the JavaScript SDK v3 over JSON 1.0 and RPC v2 CBOR --------------------------------------
js_check "JS SDK over JSON 1.0: composite alarms and dashboards" composite.mjs "$EP" json
js_check "JS SDK over RPC v2 CBOR: composite alarms and dashboards" composite.mjs "$EP" cbor

# --- alarm mute rules through the aws CLI (Debian's botocore predates them) ----------------------
check_job "aws CLI: a mute rule mutes a composite's actions while ACTIVE, then expires" python3 - "$EP" <<'PY'
import datetime, json, subprocess, sys, urllib.request

ep = sys.argv[1]


def cli(*args, ok=True):
    p = subprocess.run(["aws", "--endpoint-url", ep, "--region", "us-east-1", "--output", "json", "cloudwatch", *args],
                       capture_output=True, text=True)
    if ok and p.returncode != 0:
        sys.exit("aws %s failed: %s" % (args[0], p.stderr))
    return json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else p


def clock(advance_s=None):
    req = urllib.request.Request(ep + "/_scalelab/clock",
                                 data=None if advance_s is None else json.dumps({"advance_s": advance_s}).encode())
    return json.load(urllib.request.urlopen(req))["now_ms"]


def actions():
    return len(cli("describe-alarm-history", "--alarm-name", "svc", "--history-item-type", "Action")["AlarmHistoryItems"])


def fire():
    cli("set-alarm-state", "--alarm-name", "disk", "--state-value", "OK", "--state-reason", "t")
    cli("set-alarm-state", "--alarm-name", "disk", "--state-value", "ALARM", "--state-reason", "t")
    clock(1)
    clock(125)  # past svc's 120 s suppressor wait


start = datetime.datetime.fromtimestamp(clock() // 60000 * 60, datetime.timezone.utc)
rule = {"Schedule": {"Expression": start.strftime("at(%Y-%m-%dT%H:%M)"), "Duration": "PT30M"}}
cli("put-alarm-mute-rule", "--name", "quiet", "--rule", json.dumps(rule), "--mute-targets", '{"AlarmNames":["svc"]}')
g = cli("get-alarm-mute-rule", "--alarm-mute-rule-name", "quiet")
if g["Status"] != "ACTIVE" or g["MuteType"] != "ONE_TIME" or not g["AlarmMuteRuleArn"].endswith(":alarm-mute-rule:quiet"):
    sys.exit("get-alarm-mute-rule: %s" % g)
lst = cli("list-alarm-mute-rules", "--alarm-name", "svc")["AlarmMuteRuleSummaries"]
if [x["Status"] for x in lst] != ["ACTIVE"]:
    sys.exit("list-alarm-mute-rules: %s" % lst)
before = actions()
fire()
state = cli("describe-alarms", "--alarm-names", "svc", "--alarm-types", "CompositeAlarm")["CompositeAlarms"][0]["StateValue"]
if actions() != before or state != "ALARM":
    sys.exit("muted: %d -> %d actions, state %s" % (before, actions(), state))
clock(30 * 60)
if cli("get-alarm-mute-rule", "--alarm-mute-rule-name", "quiet")["Status"] != "EXPIRED":
    sys.exit("not EXPIRED after the window")
fire()
if actions() != before + 1:
    sys.exit("after the window: %d -> %d actions" % (before, actions()))
bad = cli("put-alarm-mute-rule", "--name", "bad", "--rule", '{"Schedule":{"Expression":"cron(0 2 * *)","Duration":"PT1H"}}',
          "--mute-targets", '{"AlarmNames":["svc"]}', ok=False)
if getattr(bad, "returncode", 0) == 0 or "Invalid schedule expression" not in bad.stderr:
    sys.exit("a bad expression was not refused: %s" % getattr(bad, "stderr", bad))
cli("delete-alarm-mute-rule", "--alarm-mute-rule-name", "quiet")
gone = cli("get-alarm-mute-rule", "--alarm-mute-rule-name", "quiet", ok=False)
if getattr(gone, "returncode", 0) == 0 or "ResourceNotFoundException" not in gone.stderr:
    sys.exit("deleted rule still answers: %s" % getattr(gone, "stderr", gone))
print("muted %d, then %d actions" % (before, actions()))
PY

# --- the aws CLI ------------------------------------------------------------------------------
export AWS_DEFAULT_REGION=us-east-1
check "aws CLI: put-composite-alarm" aws --endpoint-url "$EP" cloudwatch put-composite-alarm \
    --alarm-name cli --alarm-rule "ALARM(cpu) OR OK(mem)"
check "aws CLI: describe-alarms --alarm-types CompositeAlarm lists it" bash -c \
    "aws --endpoint-url $EP cloudwatch describe-alarms --alarm-types CompositeAlarm --query 'CompositeAlarms[].AlarmName' --output text | grep -qw cli"
check "aws CLI: put-dashboard / get-dashboard" bash -c \
    "aws --endpoint-url $EP cloudwatch put-dashboard --dashboard-name cli --dashboard-body '{\"widgets\":[]}' >/dev/null &&
     aws --endpoint-url $EP cloudwatch get-dashboard --dashboard-name cli --query DashboardBody --output text | grep -qF '{\"widgets\":[]}'"
check "aws CLI: a bad body fails with InvalidParameterInput" bash -c \
    "! aws --endpoint-url $EP cloudwatch put-dashboard --dashboard-name cli --dashboard-body '[1]' 2>$TMP/cli.err; grep -q InvalidParameterInput $TMP/cli.err"
kill -TERM -- "-$EMU_PID" 2>/dev/null || true
wait "$EMU_PID" 2>/dev/null || true

# --- composites and dashboards survive a kill -9 with --state ---------------------------------
start_emu st1 --quiet --state "$TMP/state.json" || {
    notok "emulator with --state starts"
    finish
}
PID=$LAST
python3 - "$EP" save <<'PY'
import sys, boto3
cw = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1")
cw.put_metric_alarm(AlarmName="a", Namespace="App", MetricName="a", Statistic="Maximum", Period=60,
                    EvaluationPeriods=1, Threshold=10, ComparisonOperator="GreaterThanThreshold")
cw.put_composite_alarm(AlarmName="c", AlarmRule="ALARM(a)", ActionsSuppressor="a",
                       ActionsSuppressorWaitPeriod=30, ActionsSuppressorExtensionPeriod=40)
cw.put_dashboard(DashboardName="d", DashboardBody='{"widgets":[]}')
eu = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="eu-west-1")
eu.put_dashboard(DashboardName="d-eu", DashboardBody='{"widgets":[],"start":"-PT1H"}')
PY
kill -KILL -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
start_emu st2 --quiet --state "$TMP/state.json" || {
    notok "emulator restarts from --state"
    finish
}
PID=$LAST
check "after kill -9: the composite (rule, suppressor, state reason) and the dashboard are back" python3 - "$EP" <<'PY'
import sys, boto3
cw = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1")
c = cw.describe_alarms(AlarmTypes=["CompositeAlarm"])["CompositeAlarms"]
ok = (len(c) == 1 and c[0]["AlarmRule"] == "ALARM(a)" and c[0]["ActionsSuppressorExtensionPeriod"] == 40
      and c[0]["StateReason"].endswith("was created and its alarm rule evaluates to OK")
      and cw.get_dashboard(DashboardName="d")["DashboardBody"] == '{"widgets":[]}')
ap = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="ap-northeast-1")
ok = ok and [x["DashboardName"] for x in ap.list_dashboards()["DashboardEntries"]] == ["d", "d-eu"]
err = None
try:
    cw.delete_alarms(AlarmNames=["a"])
except Exception as e:
    err = e.response["Error"]["Code"]
sys.exit(0 if ok and err == "ValidationError" else 1)
PY
check "the state file (version 2) keeps the dashboards once, in the account's entry, none in a world" python3 - "$TMP/state.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
acc = d.get("accounts", [])
ok = (d["version"] == 2 and [(a["account"], a["partition"]) for a in acc] == [("123456789012", "aws")]
      and [x["name"] for x in acc[0]["dashboards"]] == ["d", "d-eu"]
      and all("dashboards" not in w.get("cloudwatch", {}) for w in d["worlds"]))
print("# accounts", json.dumps(acc)[:300])
sys.exit(0 if ok else 1)
PY
kill -TERM -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true

# --- a version 1 file (dashboards inside each region's world) loads into the account's set ----
# Made from the file above as the previous emulator wrote it: each world keeps its own list,
# and "dup" is in two regions (eu-west-1's put later): the later LastModified stays, a line
# says so.
python3 - "$TMP/state.json" "$TMP/v1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dash = {x["name"]: x for x in d.pop("accounts")[0]["dashboards"]}
d["version"] = 1
t = dash["d"]["last_modified_ms"]
for w in d["worlds"]:
    if w["region"] == "us-east-1":
        w["cloudwatch"]["dashboards"] = [dash["d"], {"name": "dup", "body": '{"widgets":[],"start":"-PT2H"}', "last_modified_ms": t}]
    elif w["region"] == "eu-west-1":
        w["cloudwatch"]["dashboards"] = [dash["d-eu"], {"name": "dup", "body": '{"widgets":[],"start":"-PT9H"}', "last_modified_ms": t + 1000}]
json.dump(d, open(sys.argv[2], "w"))
PY
start_emu st3 --quiet --state "$TMP/v1.json" || {
    notok "emulator starts from a version 1 state file"
    finish
}
PID=$LAST
check "a version 1 file: every region's dashboards are the account's; a name in two regions keeps the later LastModified" python3 - "$EP" <<'PY'
import sys, boto3
for region in ("us-east-1", "sa-east-1"):
    cw = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name=region)
    names = [x["DashboardName"] for x in cw.list_dashboards()["DashboardEntries"]]
    body = cw.get_dashboard(DashboardName="dup")["DashboardBody"]
    print("#", region, names, body)
    if names != ["d", "d-eu", "dup"] or body != '{"widgets":[],"start":"-PT9H"}':
        sys.exit(1)
PY
check "the log names the dashboard two regions held and which one stayed" \
    grep -q "state: dashboard dup of account 123456789012 is in more than one region (a version 1 state file): kept the one of region eu-west-1" "$TMP/st3.log"
check "the next write is version 2: the account's entry, no world's list" python3 - "$EP" "$TMP/v1.json" <<'PY'
import json, sys, time, urllib.request, boto3
boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1").put_dashboard(DashboardName="after", DashboardBody='{"widgets":[]}')
d = json.load(open(sys.argv[2]))
sys.exit(0 if d["version"] == 2 and [x["name"] for x in d["accounts"][0]["dashboards"]] == ["after", "d", "d-eu", "dup"]
         and all("dashboards" not in w.get("cloudwatch", {}) for w in d["worlds"]) else 1)
PY
kill -TERM -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
finish
