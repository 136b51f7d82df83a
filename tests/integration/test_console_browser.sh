#!/usr/bin/env bash
# The lab console in a real browser (issue 17 parts 1 and 7): Debian's headless Chromium,
# driven by playwright-core from npm (tests/integration/browser/, no browser download),
# against the emulator at --time-scale 60 with a group behind a load balancer: the page at /
# renders the group's name, its instance ids and InService; a scale-out, a kill -9 clicked
# on the page and its replacement, the fail-health-checks button, large type, a zone outage
# and its recovery from the zone buttons, a CloudWatch dashboard made with boto3
# PutDashboard drawn on the page (its metric widget an SVG with the metric's label, on the
# 24-column grid, its text widget as escaped markdown); then against
# --clock manual: an instance stays Pending while the clock stands and boots when the
# page's +1 min button moves it; the advance and play/pause buttons move the clock; then
# against --auth sigv4: the page without the token is refused, the console URL the emulator
# printed at start (with its token) loads it with the group and the live stream, and a
# short load through an ELBv2 listener shows the target group's per-target rate. Each step's
# screenshot is checked: a PNG of the viewport's size, not blank (many colours, the
# InService green present), the group's and the instances' names in the page text saved
# with it. KEEP_TMP=1 keeps the screenshots ($TMP/shots). TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need chromium chromium || finish
need node nodejs || finish
need npm npm || finish
need aws awscli || finish

# playwright-core into $BUILD/browser (again only when the lock file changed)
PW="$ROOT/$BUILD/browser"
mkdir -p "$PW"
if [ ! -d "$PW/node_modules/playwright-core" ] || ! cmp -s "$HERE/browser/package-lock.json" "$PW/package-lock.json"; then
    cp "$HERE/browser/package.json" "$HERE/browser/package-lock.json" "$PW/"
    if ! (cd "$PW" && npm ci --no-audit --no-fund --loglevel=error) >"$TMP/npm.out" 2>&1; then
        rm -f "$PW/package-lock.json"
        notok "npm ci playwright-core"
        sed 's/^/#   /' "$TMP/npm.out" | head -n 8
        finish
    fi
fi
cp "$HERE/browser/console.mjs" "$PW/"
SHOTS="$TMP/shots"
mkdir -p "$SHOTS/scaled" "$SHOTS/manual" "$SHOTS/sigv4"

start_emu emu --time-scale 60 || finish
A=(aws --endpoint-url "$EP" --output text)
"${A[@]}" elb create-load-balancer --load-balancer-name front \
    --listeners Protocol=HTTP,LoadBalancerPort=8081,InstancePort=8080 \
    --availability-zones us-east-1a us-east-1b >/dev/null
"${A[@]}" elb configure-health-check --load-balancer-name front \
    --health-check Target=HTTP:8080/health,Interval=5,Timeout=2,UnhealthyThreshold=2,HealthyThreshold=2 >/dev/null
"${A[@]}" autoscaling create-launch-configuration --launch-configuration-name lc \
    --image-id ami-12345678 --instance-type t3.micro --user-data '{"boot_s": 60, "workers": 4}'
"${A[@]}" autoscaling create-auto-scaling-group --auto-scaling-group-name web \
    --launch-configuration-name lc --min-size 1 --max-size 4 --desired-capacity 1 \
    --availability-zones us-east-1a us-east-1b --load-balancer-names front \
    --health-check-type ELB --health-check-grace-period 600

# a dashboard with a metric widget (the load balancer's requests, which step 1b makes) and
# a text widget whose markdown holds HTML that must stay text
python3 - "$EP" <<'EOF2'
import json, sys
import boto3
cw = boto3.client("cloudwatch", endpoint_url=sys.argv[1])
body = {"widgets": [
    {"type": "metric", "x": 0, "y": 0, "width": 16, "height": 6,
     "properties": {"title": "Load balancer requests", "period": 60, "stat": "Sum",
                    "metrics": [["AWS/ELB", "RequestCount", "LoadBalancerName", "front",
                                 {"label": "Requests through front"}]]}},
    {"type": "text", "x": 16, "y": 0, "width": 8, "height": 6,
     "properties": {"markdown": "# Lab notes\nWatch the **scale-out** here.\n\n<script>alert(1)</script>"}}]}
r = cw.put_dashboard(DashboardName="lab", DashboardBody=json.dumps(body))
assert r["DashboardValidationMessages"] == [], r
EOF2
check_job "the console in Chromium: group, instances, scale-out, kill -9, fail health, large type, dashboard" \
    bash -c "cd '$PW' && setsid timeout -k 5 240 node --no-warnings console.mjs '$EP' '$SHOTS/scaled' </dev/null"
cat "$TMP/check.out" | grep -E '^(ok|not ok) ' | sed 's/^/# /'

start_emu manual --clock manual || finish
# boot on the manual clock (part 5): Pending until the clock passes launch + 60 s
aws --endpoint-url "$EP" autoscaling create-launch-configuration --launch-configuration-name lc \
    --image-id ami-12345678 --instance-type t3.micro --user-data '{"boot_s": 60}'
aws --endpoint-url "$EP" autoscaling create-auto-scaling-group --auto-scaling-group-name web \
    --launch-configuration-name lc --min-size 1 --max-size 2 --availability-zones us-east-1a
check_job "the console in Chromium: the manual clock's buttons" \
    bash -c "cd '$PW' && setsid timeout -k 5 120 node --no-warnings console.mjs '$EP' '$SHOTS/manual' manual </dev/null"
cat "$TMP/check.out" | grep -E '^(ok|not ok) ' | sed 's/^/# /'

# under --auth sigv4: the console URL printed at start, with its random token
start_emu sigv4 --auth sigv4 --time-scale 60 || finish
wait_for 10 grep -q 'emulator: console: http://127.0.0.1:[0-9]*/?token=' "$TMP/sigv4.log" || true
TOKEN=$(sed -n 's|.*emulator: console: http://127.0.0.1:[0-9]*/?token=\([0-9a-f]*\) .*|\1|p' "$TMP/sigv4.log" | head -n 1)
check "sigv4: the start line gives the console URL with a 48-hex-digit token" bash -c "[ \${#1} -eq 48 ]" _ "$TOKEN"
# the group behind an ELBv2 target group (signed boto3 calls), for the per-target rate
python3 - "$EP" <<'EOF2'
import sys
import boto3
ep = sys.argv[1]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
asg = boto3.client("autoscaling", endpoint_url=ep)
vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
lb = v2.create_load_balancer(Name="alb", Subnets=[s["SubnetId"] for s in subnets[:2]])["LoadBalancers"][0]
tg = v2.create_target_group(Name="tg", Protocol="HTTP", Port=8080, VpcId=vpc, HealthCheckPath="/health",
                            HealthCheckIntervalSeconds=5, HealthCheckTimeoutSeconds=2,
                            HealthyThresholdCount=2, UnhealthyThresholdCount=2)["TargetGroups"][0]["TargetGroupArn"]
v2.create_listener(LoadBalancerArn=lb["LoadBalancerArn"], Protocol="HTTP", Port=8082,
                   DefaultActions=[{"Type": "forward", "TargetGroupArn": tg}])
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="t3.micro", UserData='{"boot_s": 1}')
asg.create_auto_scaling_group(AutoScalingGroupName="web", LaunchConfigurationName="lc", MinSize=1,
                              MaxSize=2, VPCZoneIdentifier=subnets[0]["SubnetId"], TargetGroupARNs=[tg])
EOF2
check_job "the console in Chromium under --auth sigv4: refused without the token, live with it, ELBv2 rate" \
    bash -c "cd '$PW' && setsid timeout -k 5 120 node --no-warnings console.mjs '$EP' '$SHOTS/sigv4' sigv4 '$TOKEN' </dev/null"
cat "$TMP/check.out" | grep -E '^(ok|not ok) ' | sed 's/^/# /'
check "sigv4: the token is in the emulator's log once (the start line), never in request lines" \
    bash -c "[ \$(grep -c -- '$TOKEN' '$TMP/sigv4.log') -eq 1 ]"

# the screenshots: each a 1280x900 PNG, not blank, with the names in the text beside it
check "screenshots: nine of the lesson's steps, one of the manual clock, one under sigv4" bash -c "
    [ \$(ls '$SHOTS'/scaled/*.png | wc -l) -eq 9 ] && [ \$(ls '$SHOTS'/manual/*.png | wc -l) -eq 1 ] &&
    [ \$(ls '$SHOTS'/sigv4/*.png | wc -l) -eq 1 ]"
python3 - "$SHOTS" <<'EOF' || failed=1
import glob, os, re, struct, sys, zlib
import tap
from tap import check

def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows

for png in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.png"))):
    name = os.path.relpath(png, sys.argv[1])
    w, h, bpp, rows = pixels(png)
    colours, green, blue = set(), 0, 0
    for r in rows[::3]:
        for x in range(0, len(r), bpp * 3):
            px = r[x:x + 3]
            colours.add(px)
            if abs(px[0] - 0x1a) < 12 and abs(px[1] - 0x7f) < 12 and abs(px[2] - 0x37) < 12:
                green += 1
            if abs(px[0] - 0x00) < 12 and abs(px[1] - 0x72) < 12 and abs(px[2] - 0xb2) < 12:
                blue += 1
    text = open(png[:-4] + ".txt").read()
    check(f"{name}: {w}x{h}, not blank ({len(colours)} colours)", (w, h) == (1280, 900) and len(colours) > 50)
    if "manual" in name:
        check(f"{name}: the clock and its buttons in the page", "manual clock" in text and "+1 min" in text)
        continue
    if "dashboard" in name:
        blue = sum(1 for r in rows for x in range(0, len(r), bpp)
                   if abs(r[x] - 0x00) < 12 and abs(r[x + 1] - 0x72) < 12 and abs(r[x + 2] - 0xb2) < 12)
        # the metric widget's series is drawn in the palette's first colour (#0072b2)
        check(f"{name}: the dashboard and its widgets on the page, the metric's line painted",
              "Dashboard lab" in text and "Lab notes" in text and blue > 40, f"{blue} blue pixels")
        continue
    ids = re.findall(r"\bi-[0-9a-f]{17}\b", text)
    if "confirm" in name:
        # the modal's backdrop dims the page: its question is what must show
        check(f"{name}: the confirmation names the instance over the group's page",
              "Auto Scaling group web" in text and re.search(r"kill -9 \(SIGKILL\) the process of instance i-[0-9a-f]{17}\?", text))
        continue
    check(f"{name}: the group's name, instance ids and InService on the page, InService green painted",
          "Auto Scaling group web" in text and ids and "InService" in text and green > 30,
          f"{len(ids)} ids, {green} green pixels")
sys.exit(tap.failed)
EOF
if [ "${KEEP_TMP:-0}" = 1 ]; then echo "# screenshots in $SHOTS"; fi
finish
