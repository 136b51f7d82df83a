#!/usr/bin/env bash
# PutMetricAlarm's cost as the alarm count grows (issue 19: 7.75 ms of CPU a call at 10,000 alarms
# before the incremental observer, 0.40 ms after; docs/status.md):
# one emulator (no --state, --quiet), ALARMS alarms created over one keep-alive connection,
# then CALLS more PutMetricAlarm calls timed by the client and by the emulator's own CPU
# (/proc, clock ticks) around them; prints one line per step.
#   bench/bench_put_alarm.sh      env: STEPS="0 1000 10000" CALLS=200
set -euo pipefail

ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
TMP=$(mktemp -d)
trap 'kill -TERM "$PID" 2>/dev/null || true; rm -rf "$TMP"' EXIT

"$EMU" --port 0 --port-file "$TMP/port" --quiet </dev/null >"$TMP/emu.log" 2>&1 &
PID=$!
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
python3 - "$(cat "$TMP/port")" "$PID" "${STEPS:-0 1000 10000}" "${CALLS:-200}" <<'PY'
import http.client, os, sys, time
port, pid, steps, calls = int(sys.argv[1]), int(sys.argv[2]), [int(x) for x in sys.argv[3].split()], int(sys.argv[4])
tick = os.sysconf("SC_CLK_TCK")
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

def cpu():
    st = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(st[11]) + int(st[12])) / tick

def put(name):
    body = ("Action=PutMetricAlarm&Version=2010-08-01&AlarmName=%s&MetricName=CPUUtilization"
            "&Namespace=AWS/EC2&Statistic=Average&Period=60&EvaluationPeriods=1&Threshold=50"
            "&ComparisonOperator=GreaterThanThreshold" % name)
    c.request("POST", "/", body, {"Content-Type": "application/x-www-form-urlencoded"})
    r = c.getresponse()
    r.read()
    assert r.status == 200, r.status

have = 0
for n in steps:
    while have < n:
        put("seed-%06d" % have)
        have += 1
    lat = []
    c0 = cpu()
    for i in range(calls):
        t0 = time.perf_counter()
        put("timed-%d-%06d" % (n, i))
        lat.append((time.perf_counter() - t0) * 1000)
    c1 = cpu()
    have += calls
    lat.sort()
    print("alarms=%-6d calls=%d client_p50=%.2fms client_p99=%.2fms emulator_cpu_per_call=%.2fms load=%.1f"
          % (n, calls, lat[len(lat) // 2], lat[int(len(lat) * 0.99)], (c1 - c0) / calls * 1000,
             os.getloadavg()[0]), flush=True)
PY
