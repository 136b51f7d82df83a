#!/usr/bin/env bash
# The emulator's API throughput side by side with moto's server, same run, same machine:
# $SHARED_BENCH/api-throughput.sh (DescribeAutoScalingGroups over the Query protocol, a
# launch configuration and one group of 2 seeded first) against each, then the ratio.
# Bars (issue 3): >= 50x moto's requests/s at 10 connections, p99 <= 5 ms; idle RSS < 20 MB.
# Where the p99 comes from: the emulator's CPU per request in the measured run, then a
# second run against an emulator that logs every request (its own handling time, from
# reading the request to queueing the reply) gives the emulator's share of the client's p99;
# the rest is waiting for a CPU (the load average is printed beside).
#   bench/bench_api.sh            env: DURATION=10 CONCURRENCY=10 PIN=0 (1: emulator on
#                                 CPU 0, the client on CPU 1)
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
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
PIN=${PIN:-0}
emu_cpu=() client_cpu=()
if [ "$PIN" = 1 ]; then emu_cpu=(taskset -c 0); client_cpu=(taskset -c 1); fi

# --- ours ---
setsid "${emu_cpu[@]}" "$EMU" --port 0 --port-file "$TMP/emu.port" --quiet 2>"$TMP/emu.log" &
PIDS+=($!)
emu_pid=$!
for _ in $(seq 100); do [ -s "$TMP/emu.port" ] && break; sleep 0.1; done
emu_port=$(cat "$TMP/emu.port")
sleep 0.5
idle_kb=$(rss_kb "$emu_pid")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(cpu_ticks "$emu_pid")
ours=$("${client_cpu[@]}" bash "$HARNESS" "http://127.0.0.1:$emu_port" | tee /dev/stderr | grep '^api-throughput')
t1=$(cpu_ticks "$emu_pid")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
busy_kb=$(rss_kb "$emu_pid")

# the emulator's own handling time per request, from its per-request log line (same load)
setsid "${emu_cpu[@]}" "$EMU" --port 0 --port-file "$TMP/emu2.port" 2>"$TMP/emu2.log" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$TMP/emu2.port" ] && break; sleep 0.1; done
"${client_cpu[@]}" bash "$HARNESS" "http://127.0.0.1:$(cat "$TMP/emu2.port")" >/dev/null 2>&1 || true
handling=$(grep -o 'action=DescribeAutoScalingGroups status=200 ms=[0-9.]*' "$TMP/emu2.log" | sed 's/.*ms=//' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "n=%d p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f", NR, v[int(NR*0.5)+1], v[int(NR*0.99)+1], v[int(NR*0.999)+1], v[NR]; else print "n=0" }')

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
cpu_us=$(awk -v a="$t0" -v b="$t1" -v r="$r_ours" -v d="$DURATION" 'BEGIN { if (r > 0) printf "%.1f", (b - a) * 10000 / (r * d); else print "NA" }')
echo "emulator: requests/s=$r_ours p99_ms=$p99_ours idle_rss_kb=$idle_kb rss_after_kb=$busy_kb cpu_us_per_request=$cpu_us pin=$PIN loadavg_before=\"$load_before\" loadavg_after=\"$load_after\""
echo "emulator handling time (its log, logging on): $handling"
echo "moto:     requests/s=$r_moto p99_ms=$(field "$theirs" p99_ms)"
pass=$(awk -v r="$ratio" -v p="$p99_ours" -v m="$idle_kb" 'BEGIN { print (r >= 50 && p <= 5 && m < 20480) ? "yes" : "no" }')
echo "bars: ratio>=50 p99<=5ms idle_rss<20MB met=$pass"
echo "ratio=$ratio"
