#!/usr/bin/env bash
# bench_alb.sh: issue 14's bar, in one run: an ALB listener of the emulator with one path
# rule proxying two targets (bench/alb-candidate.sh: an ip target group of the two
# backends) against nginx (bar >= 1.0x its requests/s) and HAProxy (Debian's haproxy, one
# thread; bar >= 0.8x) proxying to the same two nginx backends (../shared/bench/lib.sh's
# nginx configurations and haproxy-lb.sh). wrk through each of the three in turn, RUNS
# times; prints each run (with the server side's CPU seconds: backends + proxies, and the
# proxy's own CPU microseconds per request, which the machine's load disturbs less), the
# medians, the load average before and after, and the two ratios of medians last.
# Env: CONNS [50] DUR [10] RUNS [3] URL_PATH [/soap] SERVER_CPUS [0] (backends and every
#      proxy) CLIENT_CPUS [1] (wrk).
set -uo pipefail
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
if [ -z "${SHARED_BENCH:-}" ]; then
    for d in "$ROOT/../shared/bench" /work/shared/bench; do
        [ -d "$d" ] && SHARED_BENCH=$d && break
    done
fi
[ -x "$ROOT/$BUILD/bin/emulator" ] || { echo "bench_alb: $ROOT/$BUILD/bin/emulator not built"; exit 1; }
[ -f "${SHARED_BENCH:-}/lib.sh" ] || { echo "bench_alb: no ../shared/bench/lib.sh"; exit 1; }
. "$SHARED_BENCH/lib.sh"
CONNS=${CONNS:-50}
DUR=${DUR:-10}
RUNS=${RUNS:-3}
URL_PATH=${URL_PATH:-/soap}
bench_need "$NGINX" "$WRK" haproxy python3 taskset setsid ss timeout /usr/bin/time
bench_init

alloc_port B1; alloc_port B2; alloc_port PX; alloc_port HP; alloc_port AP
start_nginx b1 "$SERVER_CPUS" nginx_static_conf "$B1" 1 b1; G1=$LAST_PID
start_nginx b2 "$SERVER_CPUS" nginx_static_conf "$B2" 1 b2; G2=$LAST_PID
start_nginx nginxlb "$SERVER_CPUS" nginx_proxy_conf "$PX" "127.0.0.1:$B1" "127.0.0.1:$B2" 1; GN=$LAST_PID
start_bg haproxy "$SERVER_CPUS" bash "$SHARED_BENCH/haproxy-lb.sh" "$HP" "127.0.0.1:$B1" "127.0.0.1:$B2"; GH=$LAST_PID
start_bg alb "$SERVER_CPUS" env SCALELAB_ROOT="$ROOT" BUILD="$BUILD" \
    bash "$ROOT/bench/alb-candidate.sh" "$AP" "$B1" "$B2"; GA=$LAST_PID
for p in "$B1" "$B2" "$PX" "$HP" "$AP"; do
    wait_port "$p" 30 || { tail -n 5 "$BENCH_TMP"/*.log >&2; bench_die "nothing listens on $p"; }
done
sleep 1 # the ALB's targets pass their health checks (fail open until then)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# backends :$B1 :$B2 (nginx, 1 worker each); nginx proxy :$PX, haproxy :$HP, ALB :$AP; all on CPU $SERVER_CPUS, wrk -t1 -c$CONNS -d${DUR}s on CPU $CLIENT_CPUS, $URL_PATH, $RUNS runs each"
echo "# load average before: $LOAD0 (a shared machine: the ratios of one run are what counts)"

# spread PORT: X-Backend of 4 requests over fresh connections ("b1 b2 b1 b2")
spread() {
    local i out=""
    for i in 1 2 3 4; do
        out+="$(curl -s -m 5 -D - -o /dev/null "http://127.0.0.1:$1$URL_PATH" | tr -d '\r' |
            awk -F': ' 'tolower($1) == "x-backend" { print $2 }') "
    done
    echo "$out"
}
for n in "nginx:$PX" "haproxy:$HP" "alb:$AP"; do echo "# ${n%%:*} spread: $(spread "${n#*:}")"; done

SRV_GROUPS=("$G1" "$G2" "$GN" "$GH" "$GA")
# run_wrk NAME PORT RUN PROXY_GROUP: wrk through PORT; the proxy's own CPU per request too
# (its process group's ticks over the run: less sensitive to the machine's load than rps)
run_wrk() {
    local name=$1 port=$2 i=$3 pg=$4 pre="$BENCH_TMP/$1.$3" t0=0 t1=0 p0 p1 g rps mean p50 p99 err us
    p0=$(group_cpu_ticks "$pg")
    for g in "${SRV_GROUPS[@]}"; do t0=$((t0 + $(group_cpu_ticks "$g"))); done
    timed "$pre" "$CLIENT_CPUS" $((DUR + 30)) "$WRK" -t1 -c"$CONNS" -d"${DUR}s" --latency \
        "http://127.0.0.1:$port$URL_PATH"
    for g in "${SRV_GROUPS[@]}"; do t1=$((t1 + $(group_cpu_ticks "$g"))); done
    p1=$(group_cpu_ticks "$pg")
    read -r rps mean p50 p99 err <<<"$(parse_wrk "$pre.out")"
    us=$(awk -v a="$p0" -v b="$p1" -v r="$rps" -v d="$DUR" 'BEGIN { printf "%.1f", (r > 0) ? (b - a) * 10000 / (r * d) : 0 }')
    echo "$rps $p50 $p99 $err $us" >>"$BENCH_TMP/$name.res"
    printf '%-8s run %s: rps=%-10s p50_ms=%-7s p99_ms=%-7s errors=%-4s server_side_cpu_s=%-5s proxy_cpu_us_per_req=%s\n' \
        "$name" "$i" "$rps" "$p50" "$p99" "$err" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 100 }')" "$us"
}
for n in "nginx:$PX" "haproxy:$HP" "alb:$AP"; do
    timed "$BENCH_TMP/warm-${n%%:*}" "$CLIENT_CPUS" 30 "$WRK" -t1 -c"$CONNS" -d2s "http://127.0.0.1:${n#*:}$URL_PATH"
done
for i in $(seq 1 "$RUNS"); do
    run_wrk nginx "$PX" "$i" "$GN"
    run_wrk haproxy "$HP" "$i" "$GH"
    run_wrk alb "$AP" "$i" "$GA"
done
[ "$(group_alive "$GA")" -gt 0 ] || echo "# warning: the ALB's process group has exited"
col() { awk -v k="$2" '$k != "nan" && $k != "" { print $k }' "$BENCH_TMP/$1.res" | median; }
N=$(col nginx 1); H=$(col haproxy 1); A=$(col alb 1)
echo "# medians: nginx rps=$N p99_ms=$(col nginx 3) cpu_us_per_req=$(col nginx 5); haproxy rps=$H p99_ms=$(col haproxy 3) cpu_us_per_req=$(col haproxy 5); alb rps=$A p99_ms=$(col alb 3) cpu_us_per_req=$(col alb 5); errors alb=$(awk '{ s += $4 } END { print s + 0 }' "$BENCH_TMP/alb.res")"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v a="$A" -v n="$N" -v h="$H" 'BEGIN {
    printf "alb-vs-nginx ratio=%.2f (bar >= 1.00)  alb-vs-haproxy ratio=%.2f (bar >= 0.80)\n",
        (n > 0) ? a / n : 0, (h > 0) ? a / h : 0 }'
