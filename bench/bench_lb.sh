#!/usr/bin/env bash
# bench_lb.sh: the load balancer's bars, side by side with nginx in the same run.
#  1. throughput: `emulator proxy` vs nginx as a proxy over the same two nginx backends
#     ($SHARED_BENCH/lb-vs-nginx.sh, wrk closed loop; bar: ratio >= 0.80);
#  2. added p99 at half capacity: the proxy's capacity first (wrk, CONNS connections,
#     median of CAP_RUNS runs; nginx's too), then an open-model constant rate of half of
#     it (of the smaller of the two, so that neither runs above half of its own; loadgen
#     --rate, latency from each request's intended send time, as wrk2) through nginx and
#     through our proxy to the same two backends, alternately, RUNS times each; p99 of
#     each (median of runs) and the difference (bar: ours - nginx <= 1 ms). nginx's
#     capacity is measured the same way, so the line also gives the requests/s ratio.
# Env: as lb-vs-nginx.sh (CONNS DUR RUNS URL_PATH SERVER_CPUS LB_CPUS CLIENT_CPUS);
#      RATE_DUR [10] seconds per constant-rate run, CAP_RUNS [3], SKIP_THROUGHPUT=1.
set -uo pipefail
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
LOADGEN="$ROOT/$BUILD/bin/loadgen"
if [ -z "${SHARED_BENCH:-}" ]; then
    for d in "$ROOT/../shared/bench" /work/shared/bench; do
        [ -d "$d" ] && SHARED_BENCH=$d && break
    done
fi
[ -x "$EMU" ] || { echo "bench_lb: $EMU not built"; exit 1; }
[ -x "$LOADGEN" ] || { echo "bench_lb: $LOADGEN not built"; exit 1; }
[ -x "$SHARED_BENCH/lb-vs-nginx.sh" ] || { echo "bench_lb: no $SHARED_BENCH/lb-vs-nginx.sh"; exit 1; }
TPL="$EMU proxy --listen {port} --backend {backend1} --backend {backend2}"
rc=0
if [ "${SKIP_THROUGHPUT:-0}" != 1 ]; then
    echo "# 1. throughput (CONNS=${CONNS:-50})"
    "$SHARED_BENCH/lb-vs-nginx.sh" "$TPL"
    rc=$?
fi

# --- 2. added p99 at half of the proxy's capacity --------------------------------------------
. "$SHARED_BENCH/lib.sh"
CONNS=${CONNS:-50}
RUNS=${RUNS:-3}
CAP_RUNS=${CAP_RUNS:-3}
RATE_DUR=${RATE_DUR:-10}
URL_PATH=${URL_PATH:-/soap}
LB_CPUS=${LB_CPUS:-$SERVER_CPUS}
bench_need "$NGINX" "$WRK" taskset setsid ss timeout /usr/bin/time
bench_init
alloc_port B1; alloc_port B2; alloc_port PX; alloc_port LBP
start_nginx b1 "$SERVER_CPUS" nginx_static_conf "$B1" 1 b1
start_nginx b2 "$SERVER_CPUS" nginx_static_conf "$B2" 1 b2
start_nginx nginxlb "$SERVER_CPUS" nginx_proxy_conf "$PX" "127.0.0.1:$B1" "127.0.0.1:$B2" 1
start_bg cand "$LB_CPUS" "$EMU" proxy --listen "$LBP" --backend "127.0.0.1:$B1" --backend "127.0.0.1:$B2"
for p in "$B1" "$B2" "$PX" "$LBP"; do
    wait_port "$p" || { tail -n 5 "$BENCH_TMP"/*.log; bench_die "nothing listens on $p"; }
done
echo "# 2. added p99 at half capacity: backends :$B1 :$B2 (nginx, CPU $SERVER_CPUS), nginx proxy :$PX, ours :$LBP (CPU $LB_CPUS), clients on CPU $CLIENT_CPUS, $URL_PATH"

# capacity NAME PORT: wrk closed loop, CAP_RUNS x 5 s, median requests/s
capacity() {
    local name=$1 port=$2 i
    timed "$BENCH_TMP/w-$name" "$CLIENT_CPUS" 30 "$WRK" -t1 -c"$CONNS" -d2s "http://127.0.0.1:$port$URL_PATH"
    for i in $(seq 1 "$CAP_RUNS"); do
        timed "$BENCH_TMP/cap-$name.$i" "$CLIENT_CPUS" 40 "$WRK" -t1 -c"$CONNS" -d5s --latency \
            "http://127.0.0.1:$port$URL_PATH"
        set -- $(parse_wrk "$BENCH_TMP/cap-$name.$i.out")
        echo "$1"
    done | median
}
CAP_N=$(capacity nginx "$PX")
CAP_C=$(capacity ours "$LBP")
# half of the smaller capacity: both proxies at or below half of theirs
RATE=$(awk -v c="$CAP_C" -v n="$CAP_N" 'BEGIN { m = c < n ? c : n; printf "%d", m / 2 }')
RATIO=$(awk -v c="$CAP_C" -v n="$CAP_N" 'BEGIN { printf "%.2f", (n > 0) ? c / n : 0 }')
echo "capacity (wrk -c$CONNS, median of $CAP_RUNS x 5 s): nginx-proxy rps=$CAP_N ours rps=$CAP_C ratio=$RATIO"
[ "$RATE" -gt 0 ] || { echo "p99-at-half-capacity: no capacity measured"; exit 1; }

# at_rate NAME PORT RUN: loadgen --rate RATE, p99 (corrected) and errors
at_rate() {
    local name=$1 port=$2 i=$3 pre="$BENCH_TMP/r-$1.$3" rps mean p50 p99 err
    timed "$pre" "$CLIENT_CPUS" $((RATE_DUR + 30)) "$LOADGEN" --rate "$RATE" -c "$CONNS" \
        --duration "${RATE_DUR}s" --latency "http://127.0.0.1:$port$URL_PATH"
    read -r rps mean p50 p99 err <<<"$(parse_wrk "$pre.out")"
    echo "$rps $p50 $p99 $err" >>"$BENCH_TMP/r-$name.res"
    printf '%-6s run %s at %s/s: rps=%-9s p50_ms=%-7s p99_ms=%-7s errors=%s\n' "$name" "$i" "$RATE" \
        "$rps" "$p50" "$p99" "$err"
}
timed "$BENCH_TMP/warm" "$CLIENT_CPUS" 30 "$LOADGEN" --rate "$RATE" -c "$CONNS" --duration 2s "http://127.0.0.1:$LBP$URL_PATH"
for i in $(seq 1 "$RUNS"); do
    at_rate nginx "$PX" "$i"
    at_rate ours "$LBP" "$i"
done
col() { awk -v k="$2" '{ print $k }' "$BENCH_TMP/r-$1.res" | median; }
N99=$(col nginx 3); C99=$(col ours 3); N50=$(col nginx 2); C50=$(col ours 2)
NE=$(awk '{ s += $4 } END { print s + 0 }' "$BENCH_TMP/r-nginx.res")
CE=$(awk '{ s += $4 } END { print s + 0 }' "$BENCH_TMP/r-ours.res")
awk -v r="$RATE" -v n50="$N50" -v c50="$C50" -v n="$N99" -v c="$C99" -v ne="$NE" -v ce="$CE" \
    -v cn="$CAP_N" -v cc="$CAP_C" -v runs="$RUNS" -v d="$RATE_DUR" 'BEGIN {
    printf "p99-at-half-capacity: rate=%d/s (half of the smaller capacity) %d x %ds each: nginx p50_ms=%.3f p99_ms=%.3f errors=%d; ours p50_ms=%.3f p99_ms=%.3f errors=%d; added_p99_ms=%+.3f (bar <= 1); rps_ratio_vs_nginx=%.2f (bar >= 0.80)\n",
        r, runs, d, n50, n, ne, c50, c, ce, c - n, (cn > 0) ? cc / cn : 0 }'
exit $rc
