#!/usr/bin/env bash
# PutMetricData through the emulator's API (CloudWatch over the query protocol, wrk, 10
# connections), without and with --state (every reply then waits for the metric journal's
# fdatasync: group commit). Each request carries $PUT_DATUMS datums of one value (no
# Timestamp: the current minute), each datum a distinct metric of 2 dimensions.
# Bar (issue 3): >= 20,000 datapoints/s sustained.
#   bench/bench_put_metrics.sh     env: DURATION=10 CONCURRENCY=10 PUT_DATUMS=100
set -euo pipefail

ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
DURATION=${DURATION:-10}
CONCURRENCY=${CONCURRENCY:-10}
PUT_DATUMS=${PUT_DATUMS:-100}
TMP=$(mktemp -d)
PID=

stop() {
    if [ -n "$PID" ]; then
        kill -TERM -- "-$PID" 2>/dev/null || kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$PID" 2>/dev/null || true
        PID=
    fi
}
cleanup() { stop; rm -rf "$TMP"; }
trap cleanup EXIT
[ -x "$EMU" ] || { echo "build the emulator first (make)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "need wrk (Debian: apt-get install wrk)" >&2; exit 2; }

body=$(python3 - "$PUT_DATUMS" <<'PY'
import sys
n = int(sys.argv[1])
parts = ["Action=PutMetricData", "Version=2010-08-01", "Namespace=Bench"]
for i in range(1, n + 1):
    p = "MetricData.member.%d." % i
    parts += [p + "MetricName=Load", p + "Value=%d" % (i % 97), p + "Unit=Percent",
              p + "Dimensions.member.1.Name=AutoScalingGroupName",
              p + "Dimensions.member.1.Value=g-%03d" % (i % 100),
              p + "Dimensions.member.2.Name=Shard", p + "Dimensions.member.2.Value=%d" % i]
print("&".join(parts))
PY
)
cat >"$TMP/put.lua" <<EOF
wrk.method = "POST"
wrk.body = "$body"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded; charset=utf-8"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/monitoring/aws4_request, SignedHeaders=host, Signature=00"
EOF

# run LABEL ARGS...: one emulator, one wrk run; prints the summary line
run() {
    local label=$1; shift
    rm -f "$TMP/port"
    setsid "$EMU" --port 0 --port-file "$TMP/port" --quiet "$@" 2>"$TMP/emu-$label.log" &
    PID=$!
    for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
    [ -s "$TMP/port" ] || { echo "emulator did not start:"; cat "$TMP/emu-$label.log"; exit 1; }
    local ep="http://127.0.0.1:$(cat "$TMP/port")/"
    local code
    code=$(curl -s -o "$TMP/probe" -w '%{http_code}' -X POST --data "$body" \
        -H 'Content-Type: application/x-www-form-urlencoded; charset=utf-8' \
        -H 'Authorization: AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/monitoring/aws4_request, SignedHeaders=host, Signature=00' "$ep")
    [ "$code" = 200 ] || { echo "probe failed: $code $(head -c 300 "$TMP/probe")"; exit 1; }
    local t0 t1 out rps p99 non2xx extra=""
    t0=$(awk '{print $14+$15}' "/proc/$PID/stat")
    out=$(timeout $((DURATION + 30)) wrk -t 2 -c "$CONCURRENCY" -d "${DURATION}s" --timeout 20s --latency -s "$TMP/put.lua" "$ep")
    t1=$(awk '{print $14+$15}' "/proc/$PID/stat")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk 'function ms(v){ if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v } / 99% / {printf "%.2f", ms($2)}' <<<"$out")
    non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
    if [ -f "$TMP/state.json.metrics" ]; then extra=" journal_bytes=$(stat -c %s "$TMP/state.json.metrics")"; fi
    echo "put-metrics $label: datums/request=$PUT_DATUMS c=$CONCURRENCY requests/s=$rps datapoints/s=$(awk -v r="$rps" -v n="$PUT_DATUMS" 'BEGIN {printf "%.0f", r * n}') p99_ms=$p99 non2xx=${non2xx:-0} emulator_cpu_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b - a) / 100}')$extra loadavg=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
    stop
}

run memory
run state --state "$TMP/state.json"
echo "bars: datapoints/s>=20000 (see both lines)"
