#!/usr/bin/env bash
# Metric memory against series count (issue 19, finding 1): one emulator (--port 0, memory
# only), then $CALLS PutMetricData calls (boto3) of $PER_CALL datums each, every datum a new
# series (a new Host dimension value, one Value). Prints the emulator's RSS before, after
# each tenth call and at the end, and the cost per series. Stops early when a call fails
# (past the series cap it answers LimitExceeded) or RSS passes $RSS_LIMIT_MB.
#   bench/bench_metric_series.sh   env: CALLS=60 PER_CALL=1000 RSS_LIMIT_MB=6000
#                                       EMU=build/bin/emulator EMU_ARGS="--max-metric-series N"
set -euo pipefail

ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU=${EMU:-"$ROOT/$BUILD/bin/emulator"}
CALLS=${CALLS:-60}
PER_CALL=${PER_CALL:-1000}
RSS_LIMIT_MB=${RSS_LIMIT_MB:-6000}
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

# shellcheck disable=SC2086
setsid "$EMU" --port 0 --port-file "$TMP/port" --quiet ${EMU_ARGS:-} 2>"$TMP/emu.log" &
PID=$!
for _ in $(seq 100); do
    [ -s "$TMP/port" ] && break
    kill -0 "$PID" 2>/dev/null || { cat "$TMP/emu.log"; exit 1; }
    sleep 0.1
done
[ -s "$TMP/port" ] || { echo "emulator did not start" >&2; exit 1; }

export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_MAX_ATTEMPTS=1
timeout 600 python3 - "http://127.0.0.1:$(cat "$TMP/port")" "$PID" "$CALLS" "$PER_CALL" \
    "$RSS_LIMIT_MB" <<'PY'
import sys, time, boto3, botocore
ep, pid, calls, per, limit_mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
cw = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1")

def rss_kb():
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

start = rss_kb()
print("metric-series: rss before: %d KB" % start)
done, t0 = 0, time.monotonic()
for c in range(calls):
    data = [{"MetricName": "Load", "Dimensions": [{"Name": "Host", "Value": "h-%d-%d" % (c, i)}],
             "Value": float(i % 100)} for i in range(per)]
    try:
        cw.put_metric_data(Namespace="Series", MetricData=data)
    except botocore.exceptions.ClientError as e:
        err = e.response["Error"]
        print("metric-series: call %d refused: %s %s: %s" % (c + 1, e.response["ResponseMetadata"]["HTTPStatusCode"],
                                                            err.get("Code"), err.get("Message")))
        break
    done += per
    rss = rss_kb()
    if (c + 1) % 10 == 0 or c + 1 == calls:
        print("metric-series: after %d calls (%d series): rss %d KB" % (c + 1, done, rss))
    if rss > limit_mb * 1024:
        print("metric-series: stopped: rss over %d MB" % limit_mb)
        break
end = rss_kb()
print("metric-series: %d series stored in %.1f s, rss %d -> %d KB, %.0f bytes per series"
      % (done, time.monotonic() - t0, start, end, (end - start) * 1024.0 / max(done, 1)))
PY
