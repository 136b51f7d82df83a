#!/usr/bin/env bash
# bench_lb.sh: the load balancer's bars, side by side with nginx in the same run.
#  1. throughput: `emulator proxy` vs nginx as a proxy over the same two nginx backends
#     ($SHARED_BENCH/lb-vs-nginx.sh; bar: ratio >= 0.80);
#  2. added p99 at half capacity: wrk2-style constant rate is not available, so wrk
#     with a quarter of the connections (-c CONNS/4 on /soap) through each proxy is
#     compared by the same harness (bar: candidate p99 - nginx p99 <= 1 ms).
# Env: as lb-vs-nginx.sh (CONNS DUR RUNS ...). Prints the harness output and its ratio.
set -uo pipefail
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
if [ -z "${SHARED_BENCH:-}" ]; then
    for d in "$ROOT/../shared/bench" /work/shared/bench; do
        [ -d "$d" ] && SHARED_BENCH=$d && break
    done
fi
[ -x "$EMU" ] || { echo "bench_lb: $EMU not built"; exit 1; }
[ -x "$SHARED_BENCH/lb-vs-nginx.sh" ] || { echo "bench_lb: no $SHARED_BENCH/lb-vs-nginx.sh"; exit 1; }
TPL="$EMU proxy --listen {port} --backend {backend1} --backend {backend2}"
echo "# throughput (CONNS=${CONNS:-50})"
"$SHARED_BENCH/lb-vs-nginx.sh" "$TPL"
rc=$?
echo "# lighter load (CONNS=$(( ${CONNS:-50} / 4 ))): compare the p99 line"
CONNS=$(( ${CONNS:-50} / 4 )) "$SHARED_BENCH/lb-vs-nginx.sh" "$TPL" | grep -E '^(nginx-proxy|candidate|# latency|ratio)'
exit $rc
