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
sys.exit(tap.failed)
PY

r=$("${AWS[@]}" get-metric-widget-image --metric-widget '{"metrics":[["App","Lat","H","a"]],"start":"-PT1H"}' 2>&1) || true
if printf '%s' "$r" | python3 -c 'import sys,json,base64; d=base64.b64decode(json.load(sys.stdin)["MetricWidgetImage"]); sys.exit(0 if d[:8]==b"\x89PNG\r\n\x1a\n" else 1)'; then
    ok "aws CLI (JSON 1.0): get-metric-widget-image returns a PNG"
else
    notok "aws CLI (JSON 1.0): get-metric-widget-image returns a PNG ($r)"
fi

kill -TERM -- "-$EMU_PID" 2>/dev/null || true
wait "$EMU_PID" 2>/dev/null || true
finish
