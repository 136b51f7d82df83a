#!/usr/bin/env bash
# The emulator's memory with a realistic control plane, built through its own API:
# 100 Auto Scaling groups (one launch configuration each, min=desired=$BENCH_DESIRED), 1,000
# CloudWatch alarms (Period 60, 3 of 3) and a day of 1-minute data for 1,000 metrics
# (1.44 M datapoints in PutMetricData requests of 500 datums, timestamps over the last
# 24 h), then VmRSS and VmHWM from /proc. Bar (issue 3): RSS < 200 MB.
#   bench/bench_state_rss.sh      env: BENCH_GROUPS=100 BENCH_ALARMS=1000 BENCH_METRICS=1000
#        BENCH_MINUTES=1440 BENCH_DESIRED=0 (instances per group) STATE=0 (1: with --state)
set -euo pipefail

ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
export BENCH_GROUPS=${BENCH_GROUPS:-100} BENCH_ALARMS=${BENCH_ALARMS:-1000}
export BENCH_METRICS=${BENCH_METRICS:-1000} BENCH_MINUTES=${BENCH_MINUTES:-1440} BENCH_DESIRED=${BENCH_DESIRED:-0}
STATE=${STATE:-0}
TMP=$(mktemp -d)
PID=

cleanup() {
    if [ -n "$PID" ]; then
        kill -TERM -- "-$PID" 2>/dev/null || kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
[ -x "$EMU" ] || { echo "build the emulator first (make)" >&2; exit 2; }

args=(--port 0 --port-file "$TMP/port" --quiet)
[ "$STATE" = 1 ] && args+=(--state "$TMP/state.json")
setsid "$EMU" "${args[@]}" 2>"$TMP/emu.log" &
PID=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || { echo "emulator did not start"; cat "$TMP/emu.log"; exit 1; }
sleep 0.3
idle=$(awk '/^VmRSS:/ {print $2}' /proc/$PID/status)
start=$(date +%s.%N)
python3 - "$(cat "$TMP/port")" <<'PY'
import http.client, os, sys, time, urllib.parse
port = int(sys.argv[1])
G, A, M, MIN, D = (int(os.environ[k]) for k in ("BENCH_GROUPS", "BENCH_ALARMS", "BENCH_METRICS", "BENCH_MINUTES", "BENCH_DESIRED"))
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
def call(service, version, action, params):
    body = urllib.parse.urlencode(dict(Action=action, Version=version, **params))
    conn.request("POST", "/", body, {
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
        "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/%s/aws4_request, "
                         "SignedHeaders=host, Signature=00" % service})
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        sys.exit("%s %s -> %d %s" % (service, action, r.status, data[:300]))
AS, CW = ("autoscaling", "2011-01-01"), ("monitoring", "2010-08-01")
T = time.time()
for g in range(G):
    call(*AS, "CreateLaunchConfiguration", {"LaunchConfigurationName": "lc-%03d" % g,
         "ImageId": "ami-12c6146b", "InstanceType": "t2.micro"})
    call(*AS, "CreateAutoScalingGroup", {"AutoScalingGroupName": "g-%03d" % g,
         "LaunchConfigurationName": "lc-%03d" % g, "MinSize": str(D), "MaxSize": "10",
         "DesiredCapacity": str(D), "AvailabilityZones.member.1": "us-east-1a"})
def dims(m):
    return {"Name": "AutoScalingGroupName", "Value": "g-%03d" % (m % G)}, {"Name": "Shard", "Value": str(m)}
for a in range(A):
    m = a % M
    d = dims(m)
    call(*CW, "PutMetricAlarm", {"AlarmName": "alarm-%04d" % a, "Namespace": "Bench",
         "MetricName": "Load", "Statistic": "Average", "Period": "60", "EvaluationPeriods": "3",
         "Threshold": "80", "ComparisonOperator": "GreaterThanThreshold",
         "Dimensions.member.1.Name": d[0]["Name"], "Dimensions.member.1.Value": d[0]["Value"],
         "Dimensions.member.2.Name": d[1]["Name"], "Dimensions.member.2.Value": d[1]["Value"]})
print("groups and alarms: %.1f s" % (time.time() - T))
T = time.time()
now = int(time.time()) // 60 * 60
t0 = now - MIN * 60
auth = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
        "Authorization": "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/monitoring/"
                         "aws4_request, SignedHeaders=host, Signature=00"}
def put(parts):
    body = "Action=PutMetricData&Version=2010-08-01&Namespace=Bench&" + "&".join(parts)
    conn.request("POST", "/", body, auth)
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        sys.exit("PutMetricData -> %d %s" % (r.status, data[:300]))
# the request body is built by hand: urlencode of 3,500 pairs per request is the slow part
parts, n, sent = [], 0, 0
for minute in range(MIN):
    ts = time.strftime("%Y-%m-%dT%H%%3A%M%%3A%SZ", time.gmtime(t0 + minute * 60))
    for m in range(M):
        n += 1
        p = "MetricData.member.%d." % n
        parts.append("%sMetricName=Load&%sValue=%d&%sTimestamp=%s"
                     "&%sDimensions.member.1.Name=AutoScalingGroupName&%sDimensions.member.1.Value=g-%03d"
                     "&%sDimensions.member.2.Name=Shard&%sDimensions.member.2.Value=%d"
                     % (p, p, (m * 7 + minute) % 100, p, ts, p, p, m % G, p, p, m))
        sent += 1
        if n == 500:
            put(parts)
            parts, n = [], 0
if parts:
    put(parts)
print("built: groups=%d alarms=%d datapoints=%d (puts %.1f s, %.0f datapoints/s)" % (G, A, sent, time.time() - T, sent / max(time.time() - T, 1e-9)))
PY
end=$(date +%s.%N)
sleep 2 # a step or two of alarm evaluation over the full store
rss=$(awk '/^VmRSS:/ {print $2}' /proc/$PID/status)
hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$PID/status)
load=$(cut -d' ' -f1-3 /proc/loadavg)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
echo "state-rss: groups=$BENCH_GROUPS alarms=$BENCH_ALARMS metrics=$BENCH_METRICS minutes=$BENCH_MINUTES desired=$BENCH_DESIRED state=$STATE build_s=$secs idle_rss_kb=$idle rss_kb=$rss hwm_kb=$hwm loadavg=\"$load\""
if [ "$STATE" = 1 ]; then
    # kill -9, then time the restart: snapshot load + journal replay until the port is up
    jbytes=$(stat -c %s "$TMP/state.json.metrics")
    kill -KILL -- "-$PID" 2>/dev/null || kill -KILL "$PID"
    wait "$PID" 2>/dev/null || true
    rm -f "$TMP/port"
    r0=$(date +%s.%N)
    setsid "$EMU" "${args[@]}" 2>"$TMP/emu2.log" &
    PID=$!
    for _ in $(seq 1200); do [ -s "$TMP/port" ] && break; sleep 0.05; done
    r1=$(date +%s.%N)
    [ -s "$TMP/port" ] || { echo "restart failed"; cat "$TMP/emu2.log"; exit 1; }
    echo "restart after kill -9: ready_s=$(awk -v a="$r0" -v b="$r1" 'BEGIN { printf "%.2f", b - a }') journal_bytes=$jbytes rss_kb=$(awk '/^VmRSS:/ {print $2}' /proc/$PID/status) hwm_kb=$(awk '/^VmHWM:/ {print $2}' /proc/$PID/status)"
    grep -o 'replayed .*' "$TMP/emu2.log" || true
    hwm=$(awk -v a="$hwm" -v b="$(awk '/^VmHWM:/ {print $2}' /proc/$PID/status)" 'BEGIN { print (a > b) ? a : b }')
fi
met=$(awk -v h="$hwm" 'BEGIN { print (h < 200 * 1024) ? "yes" : "no" }')
echo "bars: rss<200MB met=$met"
