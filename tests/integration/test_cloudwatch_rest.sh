#!/usr/bin/env bash
# The rest of CloudWatch's API through real clients (docs/cloudwatch.md "GetMetricWidgetImage",
# "Metric streams", "Contributor Insights rules", "DescribeAlarmContributors, OTel
# enrichment"): Debian's boto3 (query), the aws CLI v2 (JSON 1.0), and raw JSON 1.0 / RPC v2
# CBOR requests for the operations newer than both clients. GetMetricWidgetImage draws a
# widget over PutMetricData's points and a math expression: the PNG is decoded here (zlib,
# no PIL) and must hold the series' colours, not a blank canvas; the SVG holds the series.
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
AWS=(aws --endpoint-url "$EP" --region us-east-1 --output json cloudwatch)
export AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=secret AWS_DEFAULT_REGION=us-east-1

python3 - "$EP" "$TMP" <<'PY' || failed=1
import base64, datetime, json, struct, sys, urllib.request, zlib
import boto3, botocore
import tap

ep, tmp = sys.argv[1], sys.argv[2]
cw = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1")


def clock():
    return json.load(urllib.request.urlopen(ep + "/_scalelab/clock"))["now_ms"]


def error_of(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None


def png_pixels(data):
    """(width, height, rows of RGB(A) tuples) of a non-interlaced 8-bit PNG, by zlib."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0 and ctype in (2, 6)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev, stride, off = zlib.decompress(idat), [], None, w * bpp, 0
    for _ in range(h):
        f, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i] if prev else 0
            c = prev[i - bpp] if prev and i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


# --- GetMetricWidgetImage -----------------------------------------------------------------
now = datetime.datetime.fromtimestamp(clock() / 1000, datetime.timezone.utc)
for i in range(30):
    t = now - datetime.timedelta(minutes=30 - i)
    cw.put_metric_data(Namespace="App", MetricData=[
        {"MetricName": "Lat", "Dimensions": [{"Name": "H", "Value": "a"}], "Timestamp": t, "Value": 10 + i},
        {"MetricName": "Lat", "Dimensions": [{"Name": "H", "Value": "b"}], "Timestamp": t, "Value": 40 - i}])
widget = {"metrics": [["App", "Lat", "H", "a", {"color": "#ff0000"}], ["...", "b", {"color": "#0000ff"}],
                      [{"expression": "m1+m2", "label": "sum", "color": "#00ff00"}]],
          "period": 60, "start": "-PT1H", "width": 500, "height": 300, "title": "Latency",
          "annotations": {"horizontal": [{"value": 30, "label": "slo"}]}}
img = cw.get_metric_widget_image(MetricWidget=json.dumps(widget))["MetricWidgetImage"]
open(tmp + "/widget.png", "wb").write(img)
w, h, rows = png_pixels(img)
colours = {p for r in rows for p in r}
tap.check("query: the default output is a PNG of the widget's width x height", (w, h) == (500, 300), (w, h))
tap.check("the PNG is not blank: it holds many colours", len(colours) > 20, len(colours))
near = lambda c, want: all(abs(x - y) < 40 for x, y in zip(c, want))
tap.check("the PNG draws the three series in their colours (red, blue, green)",
          all(any(near(c, k) for c in colours) for k in [(255, 0, 0), (0, 0, 255), (0, 255, 0)]))
svg = cw.get_metric_widget_image(MetricWidget=json.dumps(widget), OutputFormat="svg")["MetricWidgetImage"].decode()
tap.check("svg: the report's chart writer's document, three series, the annotation, the title",
          svg.startswith("<?xml") and 'class="cm-svg"' in svg and svg.count("#ff0000") >= 1
          and ">slo<" in svg and ">Latency<" in svg and ">sum<" in svg, svg[:200])
for view in ["bar", "pie", "singleValue"]:
    wv = dict(widget, view=view)
    _, _, rows = png_pixels(cw.get_metric_widget_image(MetricWidget=json.dumps(wv))["MetricWidgetImage"])
    tap.check(f"view {view}: a PNG that is not blank", len({p for r in rows for p in r}) > 5)
sv = cw.get_metric_widget_image(MetricWidget=json.dumps(dict(widget, view="singleValue")), OutputFormat="svg")["MetricWidgetImage"].decode()
tap.check("singleValue shows each series' latest value (39, 11, 50)", all(f">{v}<" in sv for v in ["39", "11", "50"]), sv[-600:])
# legend on the right, a filled annotation band, an alarm annotation (docs/cloudwatch.md)
import re
def frame(svg):
    """The plot frame (x, y, width, height) of a widget SVG."""
    m = re.search(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none" stroke="#888"/>', svg)
    return tuple(float(v) for v in m.groups())
def svg_of(wd):
    return cw.get_metric_widget_image(MetricWidget=json.dumps(wd), OutputFormat="svg")["MetricWidgetImage"].decode()
sr = svg_of(dict(widget, legend={"position": "right"}))
fx, fy, fw, fh = frame(sr)
lg = re.search(r'<g class="legend"><line x1="([\d.]+)" y1="([\d.]+)"', sr)
tap.check("legend right: the legend's first swatch is right of the plot, under its top",
          lg and float(lg.group(1)) > fx + fw and fy <= float(lg.group(2)) < fy + fh, (lg and lg.groups(), fx + fw))
sb = svg_of(widget)
lb = re.search(r'<g class="legend"><line x1="([\d.]+)" y1="([\d.]+)"', sb)
bx, by, bw, bh = frame(sb)
tap.check("legend bottom (default): the legend is under the plot", lb and float(lb.group(2)) > by + bh, lb and lb.groups())
tap.check("legend hidden: no legend", 'class="legend"' not in svg_of(dict(widget, legend={"position": "hidden"})))
wb = dict(widget, yAxis={"left": {"min": 0, "max": 100}},
          annotations={"horizontal": [[{"value": 20, "label": "ok band", "color": "#00aa00"}, {"value": 40}],
                                      {"value": 80, "fill": "above", "color": "#aa00aa", "label": "hot"}]})
sband = svg_of(wb)
m = re.search(r'<rect class="band" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#00aa00"', sband)
fx, fy, fw, fh = frame(sband)
tap.check("a band annotation [20, 40] on a 0..100 axis fills a fifth of the plot, from 40 down",
          m and abs(float(m.group(2)) - (fy + fh * 0.6)) < 0.2 and abs(float(m.group(4)) - fh * 0.2) < 0.2, m and m.groups())
m = re.search(r'<rect class="band" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#aa00aa"', sband)
tap.check("fill above 80: from the plot's top to 80", m and float(m.group(2)) == fy and abs(float(m.group(4)) - fh * 0.2) < 0.2,
          m and m.groups())
_, _, rows = png_pixels(cw.get_metric_widget_image(MetricWidget=json.dumps(wb))["MetricWidgetImage"])
band_px = [(x, y) for y, r in enumerate(rows) for x, c in enumerate(r)
           if fy <= y < fy + fh and fx <= x < fx + fw and near(c, (204, 238, 204)) and abs(c[0] - c[2]) < 8 and c[1] > c[0] + 20]
# the band's rows (40 down to 20 of 0..100); the label's anti-aliased glyph edges in the
# band's colour may add a few light green pixels elsewhere
top, bottom = fy + fh * 0.6, fy + fh * 0.8
inside = [(x, y) for x, y in band_px if top - 3 <= y <= bottom + 3]
tap.check("png: the band is drawn (light green pixels in the plot, in the band's fifth of its height)",
          len(inside) > 1000 and len(inside) >= 0.95 * len(band_px) and
          max(y for _, y in inside) - min(y for _, y in inside) > fh * 0.2 - 6,
          (len(band_px), len(inside), band_px[:3]))
cw.put_metric_alarm(AlarmName="lat-a-high", Namespace="App", MetricName="Lat", Dimensions=[{"Name": "H", "Value": "a"}],
                    Statistic="Maximum", Period=60, EvaluationPeriods=2, Threshold=25, ComparisonOperator="GreaterThanThreshold")
arn = cw.describe_alarms(AlarmNames=["lat-a-high"])["MetricAlarms"][0]["AlarmArn"]
wa = {"annotations": {"alarms": [arn]}, "start": "-PT1H", "yAxis": {"left": {"min": 0, "max": 50}}, "width": 500, "height": 300}
sa = svg_of(wa)
fx, fy, fw, fh = frame(sa)
m = re.search(r'<rect class="band" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="#d62728"', sa)
tap.check("alarm annotation alone: the alarm's metric, its threshold line and label, ALARM side (above 25) filled",
          '<path class="series"' in sa and '<line class="threshold"' in sa
          and ">Lat &gt; 25 for 2 datapoints within 2 minutes<" in sa
          and m and float(m.group(1)) == fy and abs(float(m.group(2)) - fh / 2) < 0.2, sa[-900:])
_, _, rows = png_pixels(cw.get_metric_widget_image(MetricWidget=json.dumps(wa))["MetricWidgetImage"])
reds = sum(1 for r in rows for c in r if c[0] > 200 and c[1] < 120 and c[2] < 120)
tap.check("png: the alarm's threshold line is drawn in red", reds > 50, reds)
# the console draws an alarm widget (each alarm's state and graph), periodOverride and variables
body = {"widgets": [
    {"type": "alarm", "x": 0, "y": 0, "width": 12, "height": 6,
     "properties": {"title": "alarms", "alarms": [arn, arn.replace("lat-a-high", "ghost")]}},
    {"type": "metric", "x": 12, "y": 0, "width": 12, "height": 6,
     "properties": {"metrics": [["App", "Lat", "H", "zzz", {"label": "by var"}]], "region": "us-east-1", "start": "-PT1H"}},
    {"type": "metric", "properties": {"metrics": [["Eu", "Only"]], "region": "eu-west-1", "start": "-PT1H"}},
    {"type": "metric", "properties": {"metrics": [["Eu", "Only"]], "start": "-PT1H"}}],
    "periodOverride": "auto",
    "variables": [{"type": "property", "property": "H", "inputType": "select", "id": "h", "label": "host",
                   "defaultValue": "a", "values": [{"value": "a"}, {"value": "b"}]}]}
eu = boto3.client("cloudwatch", endpoint_url=ep, region_name="eu-west-1")
for i in range(5):
    eu.put_metric_data(Namespace="Eu", MetricData=[{"MetricName": "Only", "Value": i,
                                                    "Timestamp": now - datetime.timedelta(minutes=10 - i)}])
cw.put_dashboard(DashboardName="ops", DashboardBody=json.dumps(body))
dl = [d for d in json.load(urllib.request.urlopen(ep + "/_scalelab/dashboards"))["dashboards"] if d["name"] == "ops"][0]
aw = dl["widgets"][0]
tap.check("console: an alarm widget lists each alarm with its state (a missing one null) and a graph URL",
          [(a["name"], a["state"] is not None, "svg" in a) for a in aw.get("alarms", [])]
          == [("lat-a-high", True, True), ("ghost", False, False)], aw)
asvg = urllib.request.urlopen(ep + aw["alarms"][0]["svg"]).read().decode()
tap.check("console: the alarm's graph holds its metric and threshold",
          '<path class="series"' in asvg and ">Lat &gt; 25 for 2 datapoints within 2 minutes<" in asvg, asvg[-500:])
msvg = urllib.request.urlopen(ep + dl["widgets"][1]["svg"]).read().decode()
pts = re.search(r'<path class="series"[^>]* d="([^"]*)"', msvg)
tap.check("console: the host variable's default (H=a) replaces the widget's dimension value; auto period: a point a minute",
          pts is not None and pts.group(1).count("L") >= 25, pts and pts.group(1)[:80])
series_of = lambda url: re.search(r'<path class="series"[^>]* d="([^"]*)"', urllib.request.urlopen(ep + url).read().decode()).group(1)
tap.check("console: a widget's region draws that region's metrics (eu-west-1's), the dashboard's own region has none",
          series_of(dl["widgets"][2]["svg"]).count("L") >= 3 and series_of(dl["widgets"][3]["svg"]) == "M0 0",
          (series_of(dl["widgets"][2]["svg"])[:60], series_of(dl["widgets"][3]["svg"])[:60]))
e = error_of(lambda: cw.get_metric_widget_image(MetricWidget=json.dumps({"annotations": {"alarms": [arn + "x"]}})))
tap.check("an unknown alarm ARN answers InvalidParameterInput", e == ("InvalidParameterInput", f"The alarm {arn}x does not exist"), e)
for bad, code, msg in [
        ("nope", "InvalidParameterInput", "The field MetricWidget must be a valid JSON object"),
        ('{"view":"line","metrics":[["A","B"]]}', "InvalidParameterInput", "/view: Should be equal to one of the allowed values"),
        ('{"metrics":[["A","B","C"]]}', "InvalidParameterInput", "/metrics/0: Should have an even number of dimension names and values"),
        ('{"metrics":[["A","B"]],"width":4000}', "InvalidParameterInput", "/width: Should NOT be greater than 2000")]:
    e = error_of(lambda: cw.get_metric_widget_image(MetricWidget=bad))
    tap.check(f"a bad widget answers {code}: {msg}", e == (code, msg), e)
e = error_of(lambda: cw.get_metric_widget_image(MetricWidget=json.dumps(widget), OutputFormat="gif"))
tap.check("OutputFormat gif: InvalidParameterValue", e and e[0] == "InvalidParameterValue", e)

# the same widget over RPC v2 CBOR carries the PNG as a CBOR byte string
req = urllib.request.Request(ep + "/service/GraniteServiceVersion20100801/operation/GetMetricWidgetImage",
                             data=b"\xa1\x6cMetricWidget" + bytes([0x78, len(json.dumps({"metrics": [["App", "Lat", "H", "a"]]}))])
                             + json.dumps({"metrics": [["App", "Lat", "H", "a"]]}).encode(),
                             headers={"smithy-protocol": "rpc-v2-cbor", "Content-Type": "application/cbor",
                                      "Accept": "application/cbor", "x-amzn-query-mode": "true"})
body = urllib.request.urlopen(req).read()
i = body.find(b"MetricWidgetImage") + len(b"MetricWidgetImage")
tap.check("CBOR: MetricWidgetImage is a byte string holding a PNG",
          body[i] in (0x59, 0x5a) and b"\x89PNG" in body[i:i + 8], body[:40])

# --- metric streams (query) -----------------------------------------------------------------
FH = "arn:aws:firehose:us-east-1:123456789012:deliverystream/ds"
ROLE = "arn:aws:iam::123456789012:role/metric-stream"
arn = cw.put_metric_stream(Name="s1", FirehoseArn=FH, RoleArn=ROLE, OutputFormat="json",
                           IncludeFilters=[{"Namespace": "AWS/EC2"}],
                           StatisticsConfigurations=[{"IncludeMetrics": [{"Namespace": "AWS/EC2", "MetricName": "CPUUtilization"}],
                                                      "AdditionalStatistics": ["p99", "tm90"]}])["Arn"]
tap.check("PutMetricStream answers the stream's ARN", arn == "arn:aws:cloudwatch:us-east-1:123456789012:metric-stream/s1", arn)
g = cw.get_metric_stream(Name="s1")
tap.check("a new stream is running, with its filters, format, statistics and dates",
          g["State"] == "running" and g["IncludeFilters"] == [{"Namespace": "AWS/EC2"}] and g["OutputFormat"] == "json"
          and g["StatisticsConfigurations"][0]["AdditionalStatistics"] == ["p99", "tm90"]
          and g["CreationDate"] == g["LastUpdateDate"] and g.get("IncludeLinkedAccountsMetrics", False) is False, g)
cw.stop_metric_streams(Names=["s1"])
cw.put_metric_stream(Name="s1", FirehoseArn=FH, RoleArn=ROLE, OutputFormat="opentelemetry1.0")
g = cw.get_metric_stream(Name="s1")
tap.check("an update keeps the state (stopped) and replaces the filters", g["State"] == "stopped" and "IncludeFilters" not in g
          and g["OutputFormat"] == "opentelemetry1.0", g)
cw.start_metric_streams(Names=["s1"])
tap.check("StartMetricStreams runs it again", cw.get_metric_stream(Name="s1")["State"] == "running")
cw.put_metric_stream(Name="a0", FirehoseArn=FH, RoleArn=ROLE, OutputFormat="json")
e = cw.list_metric_streams()["Entries"]
tap.check("ListMetricStreams: entries in name order with their state", [(x["Name"], x["State"]) for x in e] == [("a0", "running"), ("s1", "running")], e)
for kw, code, msg in [
        (dict(Name="bad name"), "InvalidParameterValue", "The value for parameter Name contains invalid characters."),
        (dict(Name="x", FirehoseArn="arn:aws:s3:::bucket"), "InvalidParameterValue", "Invalid FirehoseArn: arn:aws:s3:::bucket"),
        (dict(Name="x", RoleArn="arn:aws:iam::999999999999:role/r"), "InvalidParameterValue",
         "The RoleArn arn:aws:iam::999999999999:role/r must be in the same account as the metric stream."),
        (dict(Name="x", IncludeFilters=[{"Namespace": "A"}], ExcludeFilters=[{"Namespace": "B"}]), "InvalidParameterCombination",
         "You cannot include both IncludeFilters and ExcludeFilters in the same operation."),
        (dict(Name="x", OutputFormat="opentelemetry0.7", StatisticsConfigurations=[{"IncludeMetrics": [{"Namespace": "A", "MetricName": "B"}], "AdditionalStatistics": ["tm90"]}]),
         "InvalidParameterValue", "Invalid statistic tm90 for output format opentelemetry0.7.")]:
    args = dict(dict(FirehoseArn=FH, RoleArn=ROLE, OutputFormat="json"), **kw)
    e = error_of(lambda: cw.put_metric_stream(**args))
    tap.check(f"PutMetricStream refuses {kw}: {code}", e == (code, msg), e)
tap.check("nothing stored on those errors", len(cw.list_metric_streams()["Entries"]) == 2)
e = error_of(lambda: cw.start_metric_streams(Names=["s1", "nope"]))
tap.check("StartMetricStreams is all or nothing", e == ("InvalidParameterValue", "The metric streams [nope] do not exist."), e)
e = error_of(lambda: cw.get_metric_stream(Name="nope"))
tap.check("GetMetricStream of a missing stream: ResourceNotFoundException", e and e[0] == "ResourceNotFoundException", e)
cw.delete_metric_stream(Name="a0")
cw.delete_metric_stream(Name="a0")
tap.check("DeleteMetricStream deletes, twice is fine", [x["Name"] for x in cw.list_metric_streams()["Entries"]] == ["s1"])
cw.tag_resource(ResourceARN=arn, Tags=[{"Key": "team", "Value": "a"}, {"Key": "env", "Value": "lab"}])
cw.tag_resource(ResourceARN=arn, Tags=[{"Key": "team", "Value": "b"}])
t = cw.list_tags_for_resource(ResourceARN=arn)["Tags"]
tap.check("TagResource on a metric stream's ARN: added, an existing key replaced",
          t == [{"Key": "team", "Value": "b"}, {"Key": "env", "Value": "lab"}], t)
cw.untag_resource(ResourceARN=arn, TagKeys=["team", "nope"])
tap.check("UntagResource on it removes the key (an unknown key is ignored)",
          cw.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "env", "Value": "lab"}])
tap.check("GetMetricStream does not show the tags", "Tags" not in cw.get_metric_stream(Name="s1"))
e = error_of(lambda: cw.list_tags_for_resource(ResourceARN=arn.replace("/s1", "/ghost")))
tap.check("ListTagsForResource of a missing stream: ResourceNotFoundException", e and e[0] == "ResourceNotFoundException", e)

# --- Contributor Insights rules (query) ---------------------------------------------------------
RULE = json.dumps({"Schema": {"Name": "CloudWatchLogRule", "Version": 1}, "LogGroupNames": ["/aws/lambda/api"],
                   "LogFormat": "JSON", "Contribution": {"Keys": ["$.ip"], "Filters": []}, "AggregateOn": "Count"})
cw.put_insight_rule(RuleName="top-ip", RuleDefinition=RULE, Tags=[{"Key": "k", "Value": "v"}])
cw.put_insight_rule(RuleName="off", RuleDefinition=RULE, RuleState="DISABLED")
r = cw.describe_insight_rules()["InsightRules"]
tap.check("DescribeInsightRules: both rules, name order, states, AWS's schema, the definition as put",
          [(x["Name"], x["State"]) for x in r] == [("off", "DISABLED"), ("top-ip", "ENABLED")]
          and r[1]["Schema"] == '{"Name": "CloudWatchLogRule", "Version": 1}' and r[1]["Definition"] == RULE, r)
f = cw.enable_insight_rules(RuleNames=["off", "ghost"])["Failures"]
tap.check("EnableInsightRules enables the known rule and reports the missing one",
          cw.describe_insight_rules()["InsightRules"][0]["State"] == "ENABLED"
          and [(x["FailureResource"], x["ExceptionType"]) for x in f] == [("ghost", "ResourceNotFoundException")], f)
cw.disable_insight_rules(RuleNames=["top-ip"])
tap.check("DisableInsightRules disables", cw.describe_insight_rules()["InsightRules"][1]["State"] == "DISABLED")
for d, msg in [("{", "RuleDefinition must be a valid JSON object."),
               (RULE.replace("CloudWatchLogRule", "Other"), 'The Schema must be {"Name": "CloudWatchLogRule", "Version": 1}.'),
               (RULE.replace('"Count"', '"Sum"'), "ValueOf is required when AggregateOn is Sum."),
               (RULE.replace('"JSON"', '"XML"'), "LogFormat must be JSON or CLF.")]:
    e = error_of(lambda: cw.put_insight_rule(RuleName="bad", RuleDefinition=d))
    tap.check(f"PutInsightRule refuses: {msg}", e == ("InvalidParameterValue", msg), e)
rep = cw.get_insight_rule_report(RuleName="top-ip", StartTime=now - datetime.timedelta(hours=1), EndTime=now, Period=60,
                                 Metrics=["UniqueContributors", "Sum"])
tap.check("GetInsightRuleReport of a rule without log data: its keys, count, no contributors",
          rep["KeyLabels"] == ["$.ip"] and rep["AggregationStatistic"] == "count" and rep["Contributors"] == []
          and rep["MetricDatapoints"] == [] and rep["ApproximateUniqueCount"] == 0, rep)
e = error_of(lambda: cw.get_insight_rule_report(RuleName="ghost", StartTime=now - datetime.timedelta(hours=1), EndTime=now, Period=60))
tap.check("GetInsightRuleReport of a missing rule: ResourceNotFoundException", e and e[0] == "ResourceNotFoundException", e)
f = cw.put_managed_insight_rules(ManagedRules=[{"TemplateName": "t1", "ResourceARN": "arn:aws:ec2:us-east-1:123456789012:instance/i-1"}])["Failures"]
tap.check("PutManagedInsightRules: no template serves this emulator's resources (a failure each)", len(f) == 1, f)
tap.check("ListManagedInsightRules: none", cw.list_managed_insight_rules(ResourceARN="arn:aws:ec2:us-east-1:123456789012:instance/i-1").get("ManagedRules", []) == [])
RARN = "arn:aws:cloudwatch:us-east-1:123456789012:insight-rule/top-ip"
tap.check("ListTagsForResource on a Contributor Insights rule's ARN: the tags it was put with",
          cw.list_tags_for_resource(ResourceARN=RARN)["Tags"] == [{"Key": "k", "Value": "v"}])
cw.tag_resource(ResourceARN=RARN, Tags=[{"Key": "k2", "Value": "v2"}])
cw.untag_resource(ResourceARN=RARN, TagKeys=["k"])
tap.check("TagResource and UntagResource on it", cw.list_tags_for_resource(ResourceARN=RARN)["Tags"] == [{"Key": "k2", "Value": "v2"}])
cw.put_insight_rule(RuleName="top-ip", RuleDefinition=RULE)
tap.check("a PutInsightRule update keeps them", cw.list_tags_for_resource(ResourceARN=RARN)["Tags"] == [{"Key": "k2", "Value": "v2"}])
e = error_of(lambda: cw.tag_resource(ResourceARN="arn:aws:cloudwatch:eu-west-1:123456789012:insight-rule/top-ip", Tags=[{"Key": "a", "Value": "b"}]))
tap.check("TagResource on another region's rule ARN: ResourceNotFoundException", e and e[0] == "ResourceNotFoundException", e)
f = cw.delete_insight_rules(RuleNames=["off", "top-ip"])["Failures"]
tap.check("DeleteInsightRules deletes both", f == [] and cw.describe_insight_rules().get("InsightRules", []) == [])
cw.put_insight_rule(RuleName="kept", RuleDefinition=RULE)
cw.put_metric_alarm(AlarmName="hi", Namespace="App", MetricName="Lat", Statistic="Average", Period=60,
                    EvaluationPeriods=1, Threshold=100, ComparisonOperator="GreaterThanThreshold")

# --- operations newer than Debian's botocore: raw JSON 1.0 and RPC v2 CBOR -----------------------
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def json10(op, body):
    r = AWSRequest(method="POST", url=ep + "/", data=json.dumps(body),
                   headers={"X-Amz-Target": "GraniteServiceVersion20100801." + op,
                            "Content-Type": "application/x-amz-json-1.0", "x-amzn-query-mode": "true"})
    SigV4Auth(Credentials("AKIDEXAMPLE", "secret"), "monitoring", "us-east-1").add_auth(r)
    try:
        with urllib.request.urlopen(urllib.request.Request(r.url, data=r.body if isinstance(r.body, bytes) else r.body.encode(), headers=dict(r.headers))) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


tap.check("JSON 1.0: GetOTelEnrichment is Stopped at first", json10("GetOTelEnrichment", {}) == (200, {"Status": "Stopped"}))
json10("StartOTelEnrichment", {})
tap.check("StartOTelEnrichment: Running", json10("GetOTelEnrichment", {}) == (200, {"Status": "Running"}))
st, body = json10("DescribeAlarmContributors", {"AlarmName": "hi"})
tap.check("DescribeAlarmContributors of a single-series alarm: an empty list", (st, body) == (200, {"AlarmContributors": []}), (st, body))
st, body = json10("DescribeAlarmContributors", {"AlarmName": "ghost"})
tap.check("DescribeAlarmContributors of a missing alarm: ResourceNotFoundException 404",
          st == 404 and body.get("__type", "").endswith("ResourceNotFoundException"), (st, body))
req = urllib.request.Request(ep + "/service/GraniteServiceVersion20100801/operation/GetOTelEnrichment", data=b"\xa0",
                             headers={"smithy-protocol": "rpc-v2-cbor", "Content-Type": "application/cbor",
                                      "Accept": "application/cbor", "x-amzn-query-mode": "true"})
tap.check("CBOR: GetOTelEnrichment answers {Status: Running}", urllib.request.urlopen(req).read() == b"\xa1\x66Status\x67Running")
sys.exit(tap.failed)
PY

r=$("${AWS[@]}" get-metric-widget-image --metric-widget '{"metrics":[["App","Lat","H","a"]],"start":"-PT1H"}' 2>&1) || true
if printf '%s' "$r" | python3 -c 'import sys,json,base64; d=base64.b64decode(json.load(sys.stdin)["MetricWidgetImage"]); sys.exit(0 if d[:8]==b"\x89PNG\r\n\x1a\n" else 1)'; then
    ok "aws CLI (JSON 1.0): get-metric-widget-image returns a PNG"
else
    notok "aws CLI (JSON 1.0): get-metric-widget-image returns a PNG ($r)"
fi

r=$("${AWS[@]}" list-metric-streams 2>&1) || true
if printf '%s' "$r" | python3 -c 'import sys,json; e=json.load(sys.stdin)["Entries"]; sys.exit(0 if [x["Name"] for x in e]==["s1"] else 1)'; then
    ok "aws CLI (JSON 1.0): list-metric-streams"
else
    notok "aws CLI (JSON 1.0): list-metric-streams ($r)"
fi
check "aws CLI: a rule definition without keys answers InvalidParameterValue" \
    sh -c '"$@" put-insight-rule --rule-name x --rule-definition "{\"Schema\":{\"Name\":\"CloudWatchLogRule\",\"Version\":1},\"LogGroupNames\":[\"g\"],\"LogFormat\":\"JSON\",\"Contribution\":{\"Keys\":[]},\"AggregateOn\":\"Count\"}" 2>&1 | grep -q "InvalidParameterValue.*Contribution.Keys must have 1 to 4 keys"' _ "${AWS[@]}"

kill -TERM -- "-$EMU_PID" 2>/dev/null || true
wait "$EMU_PID" 2>/dev/null || true

# streams, rules and the OTel status survive a restart with --state
start_emu st1 --clock manual --state "$TMP/state.json" || {
    notok "emulator starts with --state"
    finish
}
PID=$LAST
python3 - "$EP" <<'PY' || failed=1
import sys, boto3
cw = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1")
cw.put_metric_stream(Name="keep", FirehoseArn="arn:aws:firehose:us-east-1:123456789012:deliverystream/d",
                     RoleArn="arn:aws:iam::123456789012:role/r", OutputFormat="json")
cw.stop_metric_streams(Names=["keep"])
cw.tag_resource(ResourceARN="arn:aws:cloudwatch:us-east-1:123456789012:metric-stream/keep", Tags=[{"Key": "t", "Value": "1"}])
cw.put_insight_rule(RuleName="r", RuleState="DISABLED", RuleDefinition='{"Schema":{"Name":"CloudWatchLogRule","Version":1},"LogGroupNames":["g"],"LogFormat":"JSON","Contribution":{"Keys":["$.a"]},"AggregateOn":"Count"}')
PY
kill -KILL -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
start_emu st2 --clock manual --state "$TMP/state.json" || {
    notok "emulator restarts from --state"
    finish
}
PID=$LAST
check "after kill -9: the stopped stream (with its tag) and the disabled rule are back" python3 - "$EP" <<'PY'
import sys, boto3
cw = boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1")
s = cw.get_metric_stream(Name="keep")
r = cw.describe_insight_rules()["InsightRules"]
t = cw.list_tags_for_resource(ResourceARN="arn:aws:cloudwatch:us-east-1:123456789012:metric-stream/keep")["Tags"]
sys.exit(0 if s["State"] == "stopped" and [(x["Name"], x["State"]) for x in r] == [("r", "DISABLED")]
         and t == [{"Key": "t", "Value": "1"}] else 1)
PY
kill -TERM -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
finish
