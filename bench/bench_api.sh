#!/usr/bin/env bash
# The emulator's API throughput side by side with moto's server, same run, same machine:
# $SHARED_BENCH/api-throughput.sh (DescribeAutoScalingGroups over the Query protocol, a
# launch configuration and one group of 2 seeded first) against each, then the ratio.
# Bars (issue 3): >= 50x moto's requests/s at 10 connections, p99 <= 5 ms; idle RSS < 20 MB.
#   bench/bench_api.sh            env: DURATION=10 CONCURRENCY=10
set -euo pipefail

ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
SHARED_BENCH=${SHARED_BENCH:-/work/shared/bench}
HARNESS="$SHARED_BENCH/api-throughput.sh"
EMU="$ROOT/$BUILD/bin/emulator"
# wrk by default: hey costs ~3x the client CPU per request, which on 2 shared cores
# comes out of the servers being measured.
export DURATION=${DURATION:-10} CONCURRENCY=${CONCURRENCY:-10} TOOL=${TOOL:-wrk}
TMP=$(mktemp -d)
PIDS=()

cleanup() {
    for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$p" 2>/dev/null || true
    done
    rm -rf "$TMP"
}
trap cleanup EXIT

[ -x "$HARNESS" ] || [ -f "$HARNESS" ] || { echo "no harness at $HARNESS" >&2; exit 2; }
[ -x "$EMU" ] || { echo "build the emulator first (make)" >&2; exit 2; }

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# --- ours ---
setsid "$EMU" --port 0 --port-file "$TMP/emu.port" --quiet 2>"$TMP/emu.log" &
PIDS+=($!)
emu_pid=$!
for _ in $(seq 100); do [ -s "$TMP/emu.port" ] && break; sleep 0.1; done
emu_port=$(cat "$TMP/emu.port")
sleep 0.5
idle_kb=$(rss_kb "$emu_pid")
ours=$(bash "$HARNESS" "http://127.0.0.1:$emu_port" | tee /dev/stderr | grep '^api-throughput')
busy_kb=$(rss_kb "$emu_pid")

# --- moto ---
moto_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
setsid python3 -m moto.server -H 127.0.0.1 -p "$moto_port" >"$TMP/moto.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 150); do curl -s -o /dev/null "http://127.0.0.1:$moto_port/moto-api/" && break; sleep 0.2; done
theirs=$(bash "$HARNESS" "http://127.0.0.1:$moto_port" | tee /dev/stderr | grep '^api-throughput')

field() { sed -n "s|.* $2=\([^ ]*\).*|\1|p" <<<"$1"; }
r_ours=$(field "$ours" 'requests/s'); r_moto=$(field "$theirs" 'requests/s')
p99_ours=$(field "$ours" p99_ms)
ratio=$(awk -v a="$r_ours" -v b="$r_moto" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')
echo "emulator: requests/s=$r_ours p99_ms=$p99_ours idle_rss_kb=$idle_kb rss_after_kb=$busy_kb"
echo "moto:     requests/s=$r_moto p99_ms=$(field "$theirs" p99_ms)"
pass=$(awk -v r="$ratio" -v p="$p99_ours" -v m="$idle_kb" 'BEGIN { print (r >= 50 && p <= 5 && m < 20480) ? "yes" : "no" }')
echo "bars: ratio>=50 p99<=5ms idle_rss<20MB met=$pass"
echo "ratio=$ratio"
